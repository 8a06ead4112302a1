/**
 * The command registry: one file per command under ./ ; add a line here to register a new one.
 */
import type { Command } from 'commander';
import * as paths from './paths.js';
import * as config from './config.js';
import * as doctor from './doctor.js';
import * as demo from './demo.js';
import * as proposals from './proposals.js';
import * as applyCmd from './apply.js';
import * as rejectCmd from './reject.js';
import * as forgetCmd from './forget.js';
import * as revertCmd from './revert.js';
import * as nightCmd from './night.js';
import * as reviewCmd from './review.js';
import * as startCmd from './start.js';
import * as stopCmd from './stop.js';
import * as restartCmd from './restart.js';
import * as statusCmd from './status.js';
import * as logsCmd from './logs.js';
import * as scheduleCmd from './schedule.js';
import * as harvestCmd from './harvest.js';
import * as sessionsCmd from './sessions.js';
import * as ledgerCmd from './ledger.js';
import * as trainCmd from './train.js';
import * as mineCmd from './mine.js';
import * as tasksCmd from './tasks.js';
import * as wipeCmd from './wipe.js';
import * as exportCmd from './export.js';
import * as hooksCmd from './hooks.js';
import * as uninstallCmd from './uninstall.js';
import * as skillsCmd from './skills.js';
import * as historyCmd from './history.js';

export const COMMANDS: Array<{ register(program: Command): void }> = [paths, config, doctor, demo, proposals, applyCmd, rejectCmd, forgetCmd, revertCmd, nightCmd, reviewCmd, startCmd, stopCmd, restartCmd, statusCmd, logsCmd, scheduleCmd, harvestCmd, sessionsCmd, ledgerCmd, trainCmd, mineCmd, tasksCmd, wipeCmd, exportCmd, hooksCmd, uninstallCmd, skillsCmd, historyCmd];

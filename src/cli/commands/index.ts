/**
 * The command registry: one file per command under ./ ; add a line here to register a new one.
 */
import type { Command } from 'commander';
import * as paths from './paths.js';
import * as config from './config.js';
import * as doctor from './doctor.js';
import * as demo from './demo.js';

export const COMMANDS: Array<{ register(program: Command): void }> = [paths, config, doctor, demo];

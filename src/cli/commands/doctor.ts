import fs from 'node:fs';
import type { Command } from 'commander';
import { action } from '../run.js';
import { loadConfig } from '../../core/config.js';
import { openDb, schemaVersion } from '../../store/db.js';
import { errorMessage, isSleepError } from '../../core/errors.js';
import { configProblems } from '../../core/config-validate.js';
import { DAMAGED_DB_HINT } from '../../core/error-diagnosis.js';
import { liveChecks } from '../doctor-live.js';
import { formatDoctorChecks, runDoctorSections, type DoctorCheck, type DoctorSection } from '../../core/doctor.js';
import type { CliContext } from '../context.js';
import { repairDatabase, type RepairOutcome } from '../../proposals/rebuild.js';
import * as harvestDoctor from '../../harvest/doctor-probe.js';
import * as llmDoctor from '../../llm/doctor-probe.js';
import * as daemonDoctor from '../../daemon/doctor-probe.js';
import * as teamDoctor from '../../team/doctor-probe.js';

/**
 * The modules' checks, in the order doctor prints them: the data flows from transcripts, through the
 * backends that train on them, to the daemon that runs the nights. Add a module here, nowhere else.
 */
export const DOCTOR_SECTIONS: ReadonlyArray<DoctorSection<CliContext>> = [
  { name: 'transcripts', checks: harvestDoctor.doctorChecks },
  { name: 'backends', checks: llmDoctor.doctorChecks },
  { name: 'daemon', checks: daemonDoctor.doctorChecks },
  // no line unless this machine has joined a team (team mode is opt-in)
  { name: 'team', checks: teamDoctor.doctorChecks },
];

/** The repair's one line: what the database was, where it came from, and what it holds now. */
function repairCheck(r: RepairOutcome): DoctorCheck {
  const holds = `${r.proposals} proposal(s), ${r.applies} apply record(s), ${r.bans} banned edit(s)`;
  const merged = `${r.proposalsAdded} proposal(s) and ${r.decisionsReplayed} decision(s) added from the proposal folders`;
  if (r.database === 'healthy') return { name: 'repair', status: 'ok', detail: `the database was healthy; ${merged}; it holds ${holds}` };
  const aside = r.movedAside.length ? `; the damaged file is kept at ${r.movedAside[0]}` : '';
  if (r.database === 'restored') return { name: 'repair', status: 'ok', detail: `restored from ${r.backup}; ${merged}; it holds ${holds}${aside}` };
  return {
    name: 'repair',
    status: 'warn',
    detail: `no good backup: a new database was created; ${merged}; it holds ${holds}${aside}`,
    fix: '`skillopt-sleep harvest` reads your transcripts again, and the next night mines the tasks again',
  };
}

/** Runs every check, prints one line each (ok / warn / fail) with what to do. */
export function register(program: Command): void {
  program
    .command('doctor')
    .description('check Node, config, database, agent transcript folders and backends; say what to fix')
    .option('--live', 'also make one minimal real call per configured role and say what answered')
    .option('--repair', 'rebuild a damaged or missing database from the newest backup and the proposal records on disk (keeps proposals, applies, rejections and bans; moves the damaged file aside, deletes nothing)')
    .action(
      action(async (ctx, opts: { live?: boolean; repair?: boolean }) => {
        const checks: DoctorCheck[] = [];
        // before anything opens the database: the repair may replace the file
        const repair = opts.repair ? repairDatabase(ctx.paths) : null;
        if (repair) checks.push(repairCheck(repair));
        const major = Number(process.versions.node.split('.')[0]);
        checks.push(
          major >= 20
            ? { name: 'node', status: 'ok', detail: `Node.js ${process.versions.node}` }
            : { name: 'node', status: 'fail', detail: `Node.js ${process.versions.node} is too old`, fix: 'install Node.js 20 or newer' },
        );
        let configOk = false;
        try {
          const loaded = loadConfig(ctx.paths, ctx.env);
          configOk = true;
          for (const p of configProblems(loaded.config)) checks.push({ name: 'config', status: 'fail', detail: `${p.key}: ${p.message}`, fix: `${p.hint} (\`skillopt-sleep config set ${p.key} …\`)` });
          checks.push({
            name: 'config',
            status: 'ok',
            detail: loaded.fileExists ? ctx.paths.configFile : `defaults (no ${ctx.paths.configFile} yet)`,
          });
        } catch (err) {
          checks.push({ name: 'config', status: 'fail', detail: errorMessage(err), fix: '`skillopt-sleep config show` and fix the key it names' });
        }
        try {
          const existed = fs.existsSync(ctx.paths.database);
          const db = openDb(ctx.paths.database);
          const v = schemaVersion(db);
          db.close();
          checks.push({ name: 'database', status: 'ok', detail: `${ctx.paths.database} (schema v${v}${existed ? '' : ', created now'})` });
        } catch (err) {
          // each failure names its own fix (a lock, a read-only folder, a missing binding, damage): never "move it away"
          const fix = (isSleepError(err) && err.hint) || DAMAGED_DB_HINT;
          checks.push({ name: 'database', status: 'fail', detail: errorMessage(err), fix });
        }
        if (configOk) checks.push(...(await runDoctorSections(DOCTOR_SECTIONS, ctx)));
        if (opts.live && configOk) checks.push(...(await liveChecks(loadConfig(ctx.paths, ctx.env).config, ctx.env)));
        const failed = checks.some((c) => c.status === 'fail');
        ctx.emit('doctor', { ok: !failed, checks, ...(repair ? { repair } : {}) }, () => {
          for (const line of formatDoctorChecks(checks)) ctx.print(line);
        });
        return failed ? 1 : 0;
      }),
    );
}

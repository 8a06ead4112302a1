/**
 * Harvest passes in a fresh process (so peak RSS is the harvest's own): prints
 * `{durationMs, cpuMs, passMs, maxRssMb, summary}` as JSON (cpuMs: user+sys of every thread), where `passMs` lists every pass and
 * `durationMs`/`summary` are the first pass's. With `passes` > 1 the later passes run on the same
 * connection, as the daemon's rescans do. Usage: node harvest-child.js <db> <env-json> <state-dir> [passes]
 */
import { openDb } from '../src/store/db.js';
import { defaultConfig } from '../src/core/config.js';
import { runHarvest, type HarvestSummary } from '../src/harvest/ingest.js';

const [dbPath, envJson, stateDir, passesArg] = process.argv.slice(2);
const env = { ...(JSON.parse(envJson) as NodeJS.ProcessEnv), PATH: process.env.PATH, SKILLOPT_SLEEP_HARVEST_WORKERS: process.env.SKILLOPT_SLEEP_HARVEST_WORKERS };
const db = openDb(dbPath);
// the config is read before the clock starts, as the CLI reads it before a pass: its first
// validation compiles the config schema (~15 ms), a cost of the process, not of the harvest
const config = defaultConfig();
const passMs: number[] = [];
const cpuMs: number[] = [];
const summaries: HarvestSummary[] = [];
for (let i = 0; i < Math.max(1, Number(passesArg ?? 1)); i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage(); // the whole process: the worker threads' time is in it
  summaries.push(await runHarvest(db, config, { env, stateDir }));
  passMs.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpuMs.push((c.user + c.system) / 1000);
}
db.close();
const first = summaries[0];
process.stdout.write(
  JSON.stringify({
    durationMs: passMs[0],
    cpuMs: cpuMs[0],
    passMs,
    changedInLaterPasses: summaries.slice(1).reduce((n, s) => n + s.filesChanged, 0),
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    summary: { ...first, newSessionIds: first.newSessionIds.length },
  }) + '\n',
);

/**
 * One harvest pass in a fresh process (so peak RSS is the harvest's own): prints
 * `{durationMs, maxRssMb, summary}` as JSON. Usage: node harvest-child.js <db> <env-json>
 */
import { openDb } from '../src/store/db.js';
import { defaultConfig } from '../src/core/config.js';
import { runHarvest } from '../src/harvest/ingest.js';

const [dbPath, envJson, stateDir] = process.argv.slice(2);
const env = { ...(JSON.parse(envJson) as NodeJS.ProcessEnv), PATH: process.env.PATH, SKILLOPT_SLEEP_HARVEST_WORKERS: process.env.SKILLOPT_SLEEP_HARVEST_WORKERS };
const db = openDb(dbPath);
const t0 = performance.now();
const summary = await runHarvest(db, defaultConfig(), { env, stateDir });
const durationMs = performance.now() - t0;
db.close();
process.stdout.write(JSON.stringify({ durationMs, maxRssMb: process.resourceUsage().maxRSS / 1024, summary: { ...summary, newSessionIds: summary.newSessionIds.length } }) + '\n');

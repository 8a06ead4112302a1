// A member's team night in its own process (tests/integration/team-night-pg.test.ts kills it with
// SIGKILL mid-training): the built modules, the sim backend, the lease TTL from argv.
import { openTeamServer } from '../../dist/src/team/server.js';
import { runTeamNight } from '../../dist/src/team/night.js';
import { openDb } from '../../dist/src/store/db.js';
import { resolvePaths } from '../../dist/src/core/paths.js';
import { defaultConfig } from '../../dist/src/core/config.js';

const [url, repo, repoKey, memberId, ttl, seed] = process.argv.slice(2);
const c = defaultConfig();
for (const role of Object.keys(c.roles)) c.roles[role].backend = 'sim';
c.backends.sim.seed = Number(seed);
c.training.seed = Number(seed);
c.training.epochs = 2;
Object.assign(c.budget, { maxCalls: 5000, maxTokens: 20_000_000, maxTasks: 300 });
const paths = resolvePaths({ env: process.env });
const db = openDb(paths.database);
const server = await openTeamServer(url);
const progress = { start() {}, tick() {}, done() {}, log: (line) => process.stderr.write(`${line}\n`) };
const r = await runTeamNight(server, { path: repo, key: repoKey }, c, { db, paths, env: process.env, memberId, leaseTtlMs: Number(ttl), progress });
process.stdout.write(JSON.stringify(r));
await server.close();
db.close();

/**
 * The daemon pushes to the team after each mining pass (issue 42): the Daemon in-process with a
 * scripted harvester and miner, the production team push (src/daemon/deps-default.ts), a real
 * SQLite store and a real PostgreSQL. Without a team, the push loads nothing and sends nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePaths } from '../../src/core/paths.js';
import { defaultConfig } from '../../src/core/config.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createDefaultDeps } from '../../src/daemon/deps-default.js';
import type { DaemonDeps } from '../../src/daemon/deps.js';
import { joinTeam } from '../../src/team/member.js';
import { openDb } from '../../src/store/db.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { makeUserRepo } from '../helpers/user-repo.js';
import { pgAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { seedProjectTasks } from '../helpers/team-world.js';

const run = pgAvailable();

function memLogger() {
  const lines: Array<{ level: number; msg: string; team?: string }> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as { level: number; msg: string });
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const until = async (cond: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe.skipIf(!run)('the daemon pushes to the team after mining', () => {
  let cluster: PgCluster;
  let sb: Sandbox;
  let savedHome: string | undefined;
  beforeAll(async () => {
    cluster = await startPgCluster();
    await cluster.createDatabase('team');
    sb = makeSandbox();
    savedHome = process.env.SKILLOPT_SLEEP_HOME;
    // the production deps read the state folder from the environment, as the daemon does
    process.env.SKILLOPT_SLEEP_HOME = sb.home;
  }, 120_000);
  afterAll(() => {
    if (savedHome === undefined) delete process.env.SKILLOPT_SLEEP_HOME;
    else process.env.SKILLOPT_SLEEP_HOME = savedHome;
    cluster?.stop();
    sb?.cleanup();
  });

  it('sends nothing and loads nothing when no team was joined', async () => {
    const db = openDb(resolvePaths({ env: sb.env }).database);
    try {
      expect(await createDefaultDeps().teamPush!(db, defaultConfig())).toEqual([]);
    } finally {
      db.close();
    }
  });

  it("pushes the opted-in repository's mined tasks once mining ends", async () => {
    const paths = resolvePaths({ env: sb.env });
    const repo = path.join(sb.root, 'work', 'app');
    fs.mkdirSync(repo, { recursive: true });
    makeUserRepo(repo);
    seedProjectTasks(paths.database, repo, 40, 'daemonjob');
    await joinTeam({ paths, config: defaultConfig(), env: sb.env }, cluster.urlFor('team'), repo);

    const order: string[] = [];
    const real = createDefaultDeps();
    let harvested = false;
    const deps: DaemonDeps = {
      discoverRoots: () => [],
      isTranscriptFile: () => false,
      harvest: async () => {
        const fresh = !harvested;
        harvested = true;
        return { newSessionIds: fresh ? ['s1'] : [], filesRead: 0, sessionsTouched: fresh ? 1 : 0 };
      },
      mine: async () => {
        order.push('mine');
      },
      detectBackend: async () => ({ name: 'sim', detail: 'sim' }),
      teamPush: async (db, config) => {
        order.push('push');
        return real.teamPush!(db, config);
      },
    };
    const { logger, lines } = memLogger();
    const daemon = new Daemon({ paths, config: defaultConfig(), env: sb.env, deps, logger, nightCommand: [process.execPath, '-e', ''], version: 'test', debounceMs: 50, mineDelayMs: 50 });
    await daemon.start();
    try {
      await until(() => lines.some((l) => l.msg === 'pushed to the team server' || l.msg === 'team push failed'));
    } finally {
      await daemon.stop('test');
    }
    expect(order.slice(0, 2)).toEqual(['mine', 'push']);
    const pushed = lines.find((l) => l.msg === 'pushed to the team server');
    expect(pushed?.team).toMatch(/40 task\(s\) sent/);
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: cluster.urlFor('team') });
    await c.connect();
    const n = Number((await c.query('SELECT count(*) AS n FROM pooled_tasks')).rows[0].n);
    await c.end();
    expect(n).toBe(40);
  });
});

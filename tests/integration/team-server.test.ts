/**
 * TeamServer against a real PostgreSQL (issue 42): versioned migrations, the night lease (exactly one
 * of two simultaneous members wins; an expired lease is taken over with a new fencing token and the
 * stale holder's renew, checkpoint and summary are refused), checkpoints, idempotent pooled pushes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { openTeamServer, type TeamServerConnection } from '../../src/team/server.js';
import { TEAM_SCHEMA_VERSION } from '../../src/store/team/schema.js';
import { optInRepo, pushBatch, type PushRow } from '../../src/store/team/repo.js';
import { makeTask } from '../helpers/tasks.js';

const run = pgAvailable();

describe.skipIf(!run)('team server on a real PostgreSQL', () => {
  let cluster: PgCluster;
  let a: TeamServerConnection;
  let b: TeamServerConnection;

  beforeAll(async () => {
    cluster = await startPgCluster();
    await cluster.createDatabase('team');
    // two members open the server at once: the migrations run once (advisory lock), both see the version
    [a, b] = await Promise.all([openTeamServer(cluster.urlFor('team')), openTeamServer(cluster.urlFor('team'))]);
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    cluster?.stop();
  });

  it('is at the newest schema version, recorded once per migration', async () => {
    expect(await a.schemaVersion()).toBe(TEAM_SCHEMA_VERSION);
    const rows = await a.pool.query('SELECT version FROM schema_version');
    expect(rows.rows.map((r) => r.version)).toEqual([...Array(TEAM_SCHEMA_VERSION).keys()].map((i) => i + 1));
    // opening again migrates nothing
    const c = await openTeamServer(cluster.urlFor('team'));
    await c.close();
    expect((await a.pool.query('SELECT count(*)::int AS n FROM schema_version')).rows[0].n).toBe(TEAM_SCHEMA_VERSION);
  });

  it('gives the night to exactly one of many members starting at once', async () => {
    const holders = Array.from({ length: 8 }, (_, i) => `member-${i}`);
    const servers = [a, b];
    const got = await Promise.all(holders.map((h, i) => servers[i % 2]!.acquireNight('repo-race', h, 60_000)));
    const winners = got.filter((l) => l !== null);
    expect(winners).toHaveLength(1);
    expect((await a.pool.query("SELECT count(*)::int AS n FROM night_leases WHERE repo_key = 'repo-race'")).rows[0].n).toBe(1);
    // released, it is free again with a new token
    await a.releaseNight(winners[0]!);
    const next = await b.acquireNight('repo-race', 'member-x', 60_000);
    expect(next).not.toBeNull();
    expect(next!.token).not.toBe(winners[0]!.token);
  });

  it('takes over an expired lease with a new fencing token; the stale holder is refused', async () => {
    const first = await a.acquireNight('repo-expire', 'member-a', 300);
    expect(first).not.toBeNull();
    expect(await b.acquireNight('repo-expire', 'member-b', 60_000)).toBeNull();
    await a.saveCheckpoint(first!, { step: 1, skill: 'v1' });
    await new Promise((r) => setTimeout(r, 500));
    const second = await b.acquireNight('repo-expire', 'member-b', 60_000);
    expect(second).not.toBeNull();
    expect(BigInt(second!.token)).toBeGreaterThan(BigInt(first!.token));
    // the new holder resumes from the stale holder's checkpoint
    expect(await b.loadCheckpoint('repo-expire')).toEqual({ step: 1, skill: 'v1' });
    // the stale holder can neither renew, nor save, nor record
    expect(await a.renewNight(first!, 60_000)).toBe(false);
    await expect(a.saveCheckpoint(first!, { step: 2, skill: 'stale' })).rejects.toMatchObject({ code: 'STALE' });
    const summary = { repoKey: 'repo-expire', status: 'staged' as const, members: 1, sessions: 1, tasks: 1, finishedAt: Date.now() };
    await expect(a.recordNight(first!, summary)).rejects.toMatchObject({ code: 'STALE' });
    expect(await b.loadCheckpoint('repo-expire')).toEqual({ step: 1, skill: 'v1' });
    // the holder renews, saves, records (which clears the checkpoint) and releases
    expect(await b.renewNight(second!, 60_000)).toBe(true);
    await b.saveCheckpoint(second!, { step: 2, skill: 'v2' });
    await b.recordNight(second!, summary);
    expect(await b.loadCheckpoint('repo-expire')).toBeNull();
    expect((await a.pool.query("SELECT count(*)::int AS n FROM night_summaries WHERE repo_key = 'repo-expire'")).rows[0].n).toBe(1);
    await b.releaseNight(second!);
  });

  it('pools pushed tasks once, whatever the repeats, and a re-mined task replaces its older content', async () => {
    await optInRepo(a.pool, 'm1', 'repo-pool');
    const t1 = makeTask({ id: 't1', intent: 'bump the version', judge: { checks: [], reference: { kind: 'rule' } }, split: 'train' });
    const row = (hash: string, task = t1): PushRow => ({ repo_key: 'repo-pool', content_hash: hash, member_id: 'm1', task_ref: 'ref-1', session_key: 's1', task });
    const first = await pushBatch(a.pool, [row('h1')]);
    expect(first.inserted).toBe(1);
    const again = await pushBatch(a.pool, [row('h1')]);
    expect(again).toMatchObject({ inserted: 0, replaced: 0 });
    const changed = await pushBatch(a.pool, [row('h2', { ...t1, occurrences: 5 })]);
    expect(changed).toMatchObject({ inserted: 1, replaced: 1 });
    const pooled = await a.pooledTasks('repo-pool');
    expect(pooled.map((p) => p.contentHash)).toEqual(['h2']);
    expect(pooled[0]!.task.occurrences).toBe(5);
  });
});

describe.skipIf(!run)('a member role with the permissions docs/TEAM.md lists', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPgCluster();
    await cluster.createDatabase('skillopt');
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('joins, pushes and takes the night on a schema the owner created, without CREATE', async () => {
    const owner = await openTeamServer(cluster.urlFor('skillopt'));
    await owner.pool.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await owner.pool.query('CREATE ROLE skillopt_member NOLOGIN');
    await owner.pool.query('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO skillopt_member');
    await owner.pool.query('GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO skillopt_member');
    await owner.pool.query("CREATE ROLE alice LOGIN PASSWORD 'alice-pw' IN ROLE skillopt_member");
    await owner.close();
    const alice = await openTeamServer(`postgres://alice:alice-pw@127.0.0.1:${cluster.port}/skillopt`);
    try {
      await optInRepo(alice.pool, 'alice-id', 'repo-a');
      const t = makeTask({ id: 't', intent: 'x', judge: { checks: [], reference: { kind: 'rule' } }, split: 'train' });
      expect((await pushBatch(alice.pool, [{ repo_key: 'repo-a', content_hash: 'h', member_id: 'alice-id', task_ref: 'r', session_key: 's', task: t }])).inserted).toBe(1);
      const lease = await alice.acquireNight('repo-a', 'alice', 10_000);
      expect(lease).not.toBeNull();
      await alice.saveCheckpoint(lease!, { step: 1 });
      await alice.releaseNight(lease!);
      // and what it may not do: change the schema
      await expect(alice.pool.query('CREATE TABLE public.nope (x int)')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await alice.close();
    }
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { askKeysOf } from '../../src/mine/ask-keys.js';
import { kvSet } from '../../src/store/repos/kv.js';
import { listOccurrences, listTasks, syncOccurrences } from '../../src/store/repos/tasks.js';
import { generateCorpus, insertCorpus } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function freshDb(): Db {
  const d = makeTempDir();
  dirs.push(d);
  return openDb(path.join(d, 'state', 'sleep.db'));
}
const T0 = Date.UTC(2026, 9, 1);
const DAY = 86_400_000;

/** The same two nights of mining; `between` runs on the store after the first. */
async function twoNights(between: (db: Db) => void = () => {}): Promise<Db> {
  const db = freshDb();
  insertCorpus(db, generateCorpus({ sessions: 150, seed: 5, startTs: T0 }), T0);
  await runMining(db, defaultConfig(), { now: T0 + DAY });
  between(db);
  insertCorpus(db, generateCorpus({ sessions: 30, seed: 6, idPrefix: 'late', startTs: T0 + 2 * DAY }), T0 + 2 * DAY);
  await runMining(db, defaultConfig(), { now: T0 + 3 * DAY });
  return db;
}

const members = (db: Db) =>
  db.prepare('SELECT prompt, ask_key AS askKey, dedupe_key AS dedupeKey FROM cluster_members ORDER BY session_id, event_seq').all() as Array<{ prompt: string; askKey: string | null; dedupeKey: string | null }>;
const snapshot = (db: Db) => ({
  tasks: listTasks(db).map((t) => JSON.stringify(t)),
  occurrences: db.prepare('SELECT task_id, session_id, event_seq, prompt, outcome FROM task_occurrences ORDER BY 1, 2, 3').all(),
});

describe('stored ask keys (migration 011)', () => {
  it('stores each mined ask with its keys, the ones family synthesis would compute', async () => {
    const db = await twoNights();
    const rows = members(db);
    expect(rows.length).toBeGreaterThan(200);
    for (const r of rows) expect({ askKey: r.askKey, dedupeKey: r.dedupeKey }).toEqual(askKeysOf(r.prompt));
  });

  it('backfills a store mined before the migration, and mines it to the same tasks', async () => {
    const keyed = await twoNights();
    const legacy = await twoNights((db) => {
      // what a store from before migration 011 looks like: no keys, no version recorded
      db.prepare('UPDATE cluster_members SET ask_key = NULL, dedupe_key = NULL').run();
      db.prepare("DELETE FROM kv WHERE key = 'mine.askKeysVersion'").run();
    });
    for (const r of members(legacy)) expect({ askKey: r.askKey, dedupeKey: r.dedupeKey }).toEqual(askKeysOf(r.prompt));
    expect(snapshot(legacy)).toEqual(snapshot(keyed));
  });

  it('recomputes every stored key when the key functions changed (an older version recorded)', async () => {
    const db = await twoNights((d) => {
      d.prepare("UPDATE cluster_members SET ask_key = 'stale', dedupe_key = 'stale'").run();
      kvSet(d, 'mine.askKeysVersion', 0, T0);
    });
    const rows = members(db);
    expect(rows.some((r) => r.askKey === 'stale')).toBe(false);
    for (const r of rows) expect({ askKey: r.askKey, dedupeKey: r.dedupeKey }).toEqual(askKeysOf(r.prompt));
  });
});

describe('syncOccurrences', () => {
  it('inserts missing asks, removes departed ones and rewrites only those asked for', async () => {
    const db = await twoNights();
    const task = listTasks(db).find((t) => listOccurrences(db, t.id).length >= 2)!;
    const before = listOccurrences(db, task.id);
    const [gone, ...kept] = before;
    const added = { taskId: task.id, sessionId: 'elsewhere:1', eventSeq: 3, ts: T0, prompt: 'a moved ask', outcome: { label: 'success' } };
    // a kept ask whose stored prompt differs: only rewritten when the caller says it was read again
    const changedKept = { ...kept[0], prompt: 'grown' };
    const first = syncOccurrences(db, task.id, [changedKept, ...kept.slice(1), added], () => false);
    expect(first).toEqual({ written: 1, removed: 1 });
    const after = listOccurrences(db, task.id);
    expect(after.map((o) => `${o.sessionId}#${o.eventSeq}`).sort()).toEqual([...kept, added].map((o) => `${o.sessionId}#${o.eventSeq}`).sort());
    expect(after.find((o) => o.sessionId === kept[0].sessionId && o.eventSeq === kept[0].eventSeq)?.prompt).toBe(kept[0].prompt);
    expect(after.some((o) => o.sessionId === gone.sessionId && o.eventSeq === gone.eventSeq)).toBe(false);
    const second = syncOccurrences(db, task.id, [changedKept, ...kept.slice(1), added], (o) => o.sessionId === changedKept.sessionId && o.eventSeq === changedKept.eventSeq);
    expect(second).toEqual({ written: 1, removed: 0 });
    expect(listOccurrences(db, task.id).find((o) => o.sessionId === kept[0].sessionId && o.eventSeq === kept[0].eventSeq)?.prompt).toBe('grown');
  });
});

describe('stored task records', () => {
  it('a record of another shape goes through the schema (and one it rejects is re-synthesized, not trusted)', async () => {
    const db = await twoNights((d) => {
      // a record written by an older schema (no corrections, no agents) and one with an agent the schema no longer knows
      const [a, b] = d.prepare("SELECT id, record FROM tasks WHERE origin = 'real' ORDER BY id LIMIT 2").all() as Array<{ id: string; record: string }>;
      const older = JSON.parse(a.record) as Record<string, unknown>;
      delete older.corrections;
      delete older.agents;
      const unknownAgent = { ...(JSON.parse(b.record) as Record<string, unknown>), agents: ['no-such-agent'] };
      d.prepare('UPDATE tasks SET record = ? WHERE id = ?').run(JSON.stringify(older), a.id);
      d.prepare('UPDATE tasks SET record = ? WHERE id = ?').run(JSON.stringify(unknownAgent), b.id);
    });
    // the run went through, and every stored task is a valid record again
    expect(() => listTasks(db)).not.toThrow();
    expect(listTasks(db).every((t) => Array.isArray(t.corrections) && t.agents.every((x) => (x as string) !== 'no-such-agent'))).toBe(true);
  });
});

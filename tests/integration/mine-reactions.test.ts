/**
 * Fixture sessions for the two ways a reaction can be misread: a correction phrased as a plain
 * instruction must never become a task of its own, and a follow-up ask must never become a
 * correction (a rule in the skill). Also: sessions without a project never make a job cross-project.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { listOccurrences, listTasks } from '../../src/store/repos/tasks.js';
import { addSession } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function freshDb(): Db {
  const d = makeTempDir();
  dirs.push(d);
  return openDb(path.join(d, 'sleep.db'));
}
const T0 = Date.UTC(2026, 9, 1);
const DAY = 86_400_000;

/** Corrections the user typed right after the agent's answer, as instructions, not as "no, …". */
const INSTRUCTION_CORRECTIONS: Array<[ask: string, correction: string]> = [
  ['write release notes for v2.4.0', 'the title line must be `# Release v2.4.0`'],
  ['draft the release notes for 3.1.0', 'too thin - it should be at least 600 characters'],
  ['write release notes for v1.9.2', 'add a Highlights section for the top features'],
  ['give me a commit message: fix the memory leak', 'keep commit messages at most 500 characters'],
  ['write a commit message for the staged changes', 'commit messages need a type prefix like feat:'],
  ['add a changelog entry for PR #949: fix the memory leak', 'entries must start with a verb in past tense'],
  ['write vitest cases for parseAmount', 'tests go next to the source file as *.test.ts'],
  ['create a db migration adding a status column on orders', 'column names must be snake_case'],
  ['write the PR description for this branch', 'the summary should be three bullet points at most'],
  ['write a migration to add currency to invoices', 'the down migration is missing'],
];

/** New requests right after an answer: each is an ask, never a correction. */
const FOLLOW_UPS: Array<[ask: string, followUp: string]> = [
  ['write vitest cases for parseAmount', 'fix the null handling in src/cli/add.ts too'],
  ['write vitest cases for parseAmount', 'now add tests for formatDate as well'],
  ['fix the typescript errors in src/core/config.ts', 'also write the changelog entry for it'],
  ['add a changelog entry for PR #12: retry on 429', 'and then a commit message for all of it'],
  ['bump zod to the latest version', 'handle the timeout case in src/api/client.ts as well'],
  ['write the PR description for this branch', 'next: rename loadConfig to something clearer across src/core/config.ts'],
  ['update the README for the auth middleware', 'then add it to the changelog'],
  ['cut a patch release', 'write release notes for it too'],
];

describe('reactions in mined sessions', () => {
  it('0 corrections phrased as plain instructions become tasks; each is kept as a correction of its ask', async () => {
    const db = freshDb();
    INSTRUCTION_CORRECTIONS.forEach(([ask, correction], i) => {
      for (const k of [0, 1]) {
        addSession(db, { id: `claude-code:c${i}-${k}`, startedAt: T0 + (i * 2 + k) * DAY, turns: [{ user: ask, reply: 'Here it is.' }, { user: correction, reply: 'Updated.' }] });
      }
    });
    await runMining(db, defaultConfig(), { now: T0 + 30 * DAY });
    const corrections = new Set(INSTRUCTION_CORRECTIONS.map((c) => c[1]));
    const tasks = listTasks(db);
    expect(tasks.length).toBeGreaterThan(0);
    const asTasks = tasks.filter((t) => listOccurrences(db, t.id).some((o) => corrections.has(o.prompt)) || corrections.has(t.intent));
    expect(asTasks.map((t) => t.intent)).toEqual([]);
    // and every one of them reached its family as a correction
    const kept = new Set(tasks.flatMap((t) => t.corrections));
    for (const c of corrections) expect(kept, c).toContain(c);
    db.close();
  });

  it('0 follow-up asks become corrections', async () => {
    const db = freshDb();
    FOLLOW_UPS.forEach(([ask, follow], i) => {
      for (const k of [0, 1]) {
        addSession(db, { id: `claude-code:f${i}-${k}`, startedAt: T0 + (i * 2 + k) * DAY, turns: [{ user: ask, reply: 'Done.' }, { user: follow, reply: 'Done too.' }] });
      }
    });
    await runMining(db, defaultConfig(), { now: T0 + 30 * DAY });
    const follows = new Set(FOLLOW_UPS.map((f) => f[1]));
    const asCorrections = listTasks(db).flatMap((t) => t.corrections).filter((c) => follows.has(c));
    expect(asCorrections).toEqual([]);
    // the follow-ups were mined as asks of their own
    const prompts = new Set(listTasks(db).flatMap((t) => listOccurrences(db, t.id).map((o) => o.prompt)));
    for (const f of follows) expect(prompts, f).toContain(f);
    db.close();
  });

  it('sessions without a project never make a one-project job cross-project', async () => {
    const db = freshDb();
    const asks = ['write release notes for v1.0.0', 'draft the release notes for 1.1.0, user-facing', 'release notes for the 1.2.0 release'];
    asks.forEach((user, i) => addSession(db, { id: `claude-code:p${i}`, startedAt: T0 + i * DAY, turns: [{ user }] }));
    // a legacy Copilot CLI session without cwd: no project
    addSession(db, { id: 'copilot:legacy1', agent: 'copilot', project: null, startedAt: T0 + 5 * DAY, turns: [{ user: 'prepare the GitHub release text for v1.5.0' }] });
    await runMining(db, defaultConfig(), { now: T0 + 30 * DAY });
    const tasks = listTasks(db);
    expect(new Set(tasks.map((t) => t.family)).size).toBe(1);
    expect(listOccurrences(db, tasks.find((t) => t.agents.includes('copilot'))!.id)).toHaveLength(1); // the project-less ask is in the family
    expect(tasks.map((t) => t.project)).toEqual(tasks.map(() => '/home/dana/src/ledgerline'));
    db.close();
  });
});

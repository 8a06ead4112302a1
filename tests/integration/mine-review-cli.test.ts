/**
 * The cluster review's decisions through the CLI: `mine` with the sim miner reviews the clusters,
 * `tasks list` shows what it merged (with the command that undoes it), `tasks split` undoes a
 * merge and keeps the two apart on later runs, `tasks merge` puts them back.
 */
import fs from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { clusterAssignments } from '../../src/store/repos/mining.js';
import { insertCorpus } from '../../bench/mine-corpus.js';
import { generateParaphraseCorpus } from '../../bench/mine-paraphrase.js';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

const boxes: Sandbox[] = [];
afterEach(() => boxes.splice(0).forEach((b) => b.cleanup()));
beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
});

const ok = (r: { stdout: string; stderr: string; status: number | null }) => {
  expect(r.status, r.stderr).toBe(0);
  return r;
};
const json = (r: { stdout: string; stderr: string; status: number | null }) => JSON.parse(ok(r).stdout);

interface Decision {
  by: 'llm' | 'user';
  kind: 'merge' | 'split';
  cluster: string;
  other: string;
  moved: string[];
}

describe('tasks split / tasks merge undo the cluster review', () => {
  it('list shows the review decisions; split undoes a merge for good; merge puts it back', { timeout: 240_000 }, () => {
    const box = makeSandbox();
    boxes.push(box);
    const dbPath = resolvePaths({ env: box.env }).database;
    const db = openDb(dbPath);
    insertCorpus(db, generateParaphraseCorpus({ templates: 'heldout', sessions: 200, seed: 22 }));
    db.close();
    const clusterOf = () => {
      const d = openDb(dbPath);
      try {
        return new Map(clusterAssignments(d).map((r) => [`${r.sessionId}#${r.seq}`, r.clusterId]));
      } finally {
        d.close();
      }
    };

    for (const role of ['target', 'optimizer', 'judge', 'miner']) ok(runCli(['config', 'set', `roles.${role}.backend`, 'sim'], box.env));
    ok(runCli(['config', 'set', 'mining.useLlm', 'true'], box.env));
    const mined = json(runCli(['mine', '--json'], box.env));
    expect(mined.review).toMatchObject({ called: true });
    expect(mined.review.merges).toBeGreaterThan(0);

    // tasks list names the families the review named and shows each decision with its undo
    const listed = json(runCli(['tasks', 'list', '--json'], box.env));
    const decisions = listed.review.decisions as Decision[];
    // `tasks split F` undoes the latest merge into F
    const latestInto = (id: string) => [...decisions].reverse().find((d) => d.kind === 'merge' && d.cluster === id);
    const where = clusterOf();
    // (one whose absorbed asks are a recurring family of their own, seen in two sessions or more:
    // a split part of one ask that joined its job has no tasks once split off again)
    const sessionsOf = (keys: string[]) => new Set(keys.map((k) => k.slice(0, k.lastIndexOf('#')))).size;
    const merge = decisions.find((d) => d.kind === 'merge' && d.by === 'llm' && latestInto(d.cluster) === d && where.get(d.moved[0]) === d.cluster && sessionsOf(d.moved) >= 2);
    expect(merge, 'the review merged two halves of a job').toBeDefined();
    const text = ok(runCli(['tasks', 'list'], box.env)).stdout;
    expect(text).toContain(`review merged ${merge!.other} into it`);
    expect(text).toContain(`undo: tasks split ${merge!.cluster}`);
    expect(Object.keys(listed.review.names).length).toBeGreaterThan(3);
    expect(text).toMatch(/── cl_\w+ \((writing|fixing|cutting|upgrading|investigating|updating)[^)]*\)/);

    // undo the merge: the merged asks are their own family again, with their own tasks
    const moved = merge!.moved.filter((k) => clusterOf().get(k) === merge!.cluster);
    expect(moved.length).toBeGreaterThan(0);
    const split = json(runCli(['tasks', 'split', merge!.cluster, '--json'], box.env));
    expect(split).toMatchObject({ ok: true, kind: 'split', cluster: merge!.cluster, other: merge!.other });
    for (const k of moved) expect(clusterOf().get(k)).toBe(merge!.other);
    const afterSplit = json(runCli(['tasks', 'list', '--json'], box.env));
    expect(afterSplit.tasks.some((t: { family: string }) => t.family === merge!.other)).toBe(true);
    expect(ok(runCli(['tasks', 'list'], box.env)).stdout).toContain(`you split ${merge!.other} off ${merge!.cluster}`);

    // a later night does not merge them again
    json(runCli(['mine', '--json'], box.env));
    for (const k of moved) expect(clusterOf().get(k)).toBe(merge!.other);

    // and a person can merge them back
    const back = json(runCli(['tasks', 'merge', merge!.cluster, merge!.other, '--json'], box.env));
    expect(back).toMatchObject({ ok: true, kind: 'merge' });
    for (const k of moved) expect(clusterOf().get(k)).toBe(back.cluster);
    const families = new Set(json(runCli(['tasks', 'list', '--json'], box.env)).tasks.map((t: { family: string }) => t.family));
    expect(families.has(back.other)).toBe(false);

    // unknown families are refused loudly
    const bad = runCli(['tasks', 'split', 'cl_nope'], box.env);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/cl_nope|no family|not found/i);
  });
});

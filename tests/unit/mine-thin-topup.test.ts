/**
 * A skill too thin to gate (fewer than training.minValTasks validation tasks) while it has train
 * tasks to spare gets new ones held out for validation (splits.ts topUpThinValidation): the pure
 * rule, then mining a one-job project whose family fractions alone left its night skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assignFamilySplits, checkSplitIntegrity, checkStoredSplitIntegrity, MIN_TRAIN_AFTER_TOP_UP, topUpThinValidation, type TopUpFacts } from '../../src/mine/splits.js';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { listTasks } from '../../src/store/repos/tasks.js';
import { checkItem } from '../../src/night/plan.js';
import { addSession } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';

type Fact = TopUpFacts;
const fact = (id: string, split: Fact['split'], over: Partial<Fact> = {}): Fact => ({
  id,
  project: '/tallybook',
  family: 'tests',
  intent: `write unit tests for fn${id}Value`,
  split,
  status: 'active',
  origin: 'real',
  movable: true,
  ...over,
});
/** One project, one recurring job of 8 tasks split by the family fractions: 2 val, 1 test, 5 train. */
const oneJobOfEight = (over: Partial<Fact> = {}) => [
  ...['v1', 'v2'].map((id) => fact(id, 'val', over)),
  fact('t1', 'test', over),
  ...['a', 'b', 'c', 'd', 'e'].map((id) => fact(id, 'train', over)),
];
const apply = (facts: Fact[], promoted: Set<string>) => facts.map((f) => (promoted.has(f.id) ? { ...f, split: 'val' as const } : f));
const count = (facts: Fact[], split: Fact['split']) => facts.filter((f) => f.split === split).length;

describe('topping up validation for a skill too thin to gate', () => {
  it('holds out one more new train task so a one-job project of 8 tasks can gate (minValTasks 3)', () => {
    const facts = oneJobOfEight();
    const promoted = topUpThinValidation(facts, 3);
    expect(promoted.size).toBe(1);
    const after = apply(facts, promoted);
    expect([count(after, 'train'), count(after, 'val'), count(after, 'test')]).toEqual([4, 3, 1]);
    // what it moved was a train task, and the result passes the integrity check the gate runs
    expect(facts.find((f) => promoted.has(f.id))!.split).toBe('train');
    expect(checkSplitIntegrity(after.map((f) => ({ ...f })))).toEqual([]);
    // deterministic, whatever the input order
    expect(topUpThinValidation([...facts].reverse(), 3)).toEqual(promoted);
  });

  it('never moves a stored task (one trained on is never held out later), a test task or a synthetic one', () => {
    expect(topUpThinValidation(oneJobOfEight({ movable: false }), 3).size).toBe(0);
    const dreams = oneJobOfEight().map((f) => (f.split === 'train' ? { ...f, origin: 'dream' as const } : f));
    expect(topUpThinValidation(dreams, 3).size).toBe(0);
    const testsOnly = [fact('v1', 'val'), ...['t1', 't2', 't3'].map((id) => fact(id, 'test')), ...['a', 'b'].map((id) => fact(id, 'train'))];
    expect(topUpThinValidation(testsOnly, 3).size).toBe(0);
  });

  it(`keeps at least ${MIN_TRAIN_AFTER_TOP_UP} train tasks per skill and one per job`, () => {
    // 5 tasks (2 val, 1 test, 2 train): nothing to spare, the night stays thin and says so
    const five = [fact('v1', 'val'), fact('v2', 'val'), fact('t1', 'test'), fact('a', 'train'), fact('b', 'train')];
    expect(topUpThinValidation(five, 3).size).toBe(0);
    // two jobs in one project, one of them with a single train task: that one is never taken
    const twoJobs = [fact('v1', 'val'), fact('a', 'train'), fact('b', 'train'), fact('c', 'train'), fact('x', 'train', { family: 'commit' }), fact('w', 'val', { family: 'commit' })];
    const promoted = topUpThinValidation(twoJobs, 3);
    expect(promoted.has('x')).toBe(false);
    const after = apply(twoJobs, promoted);
    expect(count(after, 'val')).toBe(3);
    expect(count(after, 'train')).toBe(3);
    expect(after.find((f) => f.id === 'x')!.split).toBe('train');
  });

  it('leaves a skill that already gates alone, and counts per skill (project), not per job', () => {
    expect(topUpThinValidation(oneJobOfEight(), 2).size).toBe(0);
    // a second project with its own validation tasks does not lend them to the first
    const other = ['o1', 'o2', 'o3'].map((id) => fact(id, 'val', { project: '/ledgerline', family: 'changelog' }));
    const promoted = topUpThinValidation([...oneJobOfEight(), ...other, fact('o4', 'train', { project: '/ledgerline', family: 'changelog' })], 3);
    expect([...promoted].every((id) => oneJobOfEight().some((f) => f.id === id))).toBe(true);
    expect(promoted.size).toBe(1);
  });

  it('never holds out an ask another task outside validation shares (the gate would refuse the night)', () => {
    const facts = oneJobOfEight().map((f) => (f.split === 'train' ? { ...f, intent: 'write unit tests for parseDuration' } : f));
    // every train task asks the same thing: holding one out would put one ask in train and val
    expect(topUpThinValidation(facts, 3).size).toBe(0);
  });
});

describe('mining a one-job project of 8 occurrences', () => {
  const made: string[] = [];
  afterEach(() => made.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const T0 = Date.UTC(2026, 9, 1);
  const fns = ['parseAmount', 'formatCurrency', 'splitLedger', 'roundHalfEven', 'slugify', 'mergeConfig', 'parseDuration', 'sumColumns', 'padLeft', 'trimAll'];
  const session = (db: Db, i: number) =>
    addSession(db, { id: `claude-code:t${i}`, project: '/home/dana/src/tallybook', startedAt: T0 + i * 86_400_000, turns: [{ user: `write vitest cases for ${fns[i]}`, tools: ['Edit'], reply: 'Added tests.' }, { user: 'use `it.each` for the input variants' }] });

  it('reserves minValTasks validation tasks so its first night can gate, and moves no stored task later', async () => {
    const dir = makeTempDir();
    made.push(dir);
    const db = openDb(path.join(dir, 'state', 'sleep.db'));
    try {
      for (let i = 0; i < 8; i++) session(db, i);
      const config = defaultConfig();
      const first = await runMining(db, config, { now: T0 + 20 * 86_400_000 });
      const tasks = listTasks(db, { status: 'active' });
      expect(tasks).toHaveLength(8);
      // the family fractions alone give this job 2 validation tasks: one short of the gate
      const byFractions = assignFamilySplits(tasks.map((t) => ({ id: t.id })), config.training.seed);
      expect([...byFractions.values()].filter((s) => s === 'val')).toHaveLength(2);
      const splitCount = (s: string) => tasks.filter((t) => t.split === s).length;
      expect([splitCount('train'), splitCount('val'), splitCount('test')]).toEqual([4, config.training.minValTasks, 1]);
      expect(first.thin).toEqual([]);
      expect(checkStoredSplitIntegrity(db)).toEqual([]);
      // the night's plan agrees: the skill is not skipped as thin
      expect(checkItem({ train: tasks.filter((t) => t.split === 'train'), val: tasks.filter((t) => t.split === 'val'), test: tasks.filter((t) => t.split === 'test') }, config.training.minValTasks)).toBeUndefined();

      // two more sessions later: every stored task keeps its split
      const before = new Map(tasks.map((t) => [t.id, t.split]));
      session(db, 8);
      session(db, 9);
      await runMining(db, config, { now: T0 + 30 * 86_400_000 });
      const later = listTasks(db, { status: 'active' });
      expect(later).toHaveLength(10);
      for (const t of later) if (before.has(t.id)) expect(t.split).toBe(before.get(t.id));
    } finally {
      db.close();
    }
  });
});

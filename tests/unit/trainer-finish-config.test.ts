/**
 * The trainer's finishing passes (rescue of a rejected candidate, prune, simplify) are config keys:
 * on by default exactly as before, off per key (config file, env var or `train --no-…`), and a pass
 * that is off leaves the accepted edits untouched and never measures anything.
 *
 * The world is fully scripted so each pass fires deterministically: a task passes a check when the
 * skill tells the target to "say" its word; ALPHA and BETA help, GAMMA breaks a `not_contains`
 * check, and "keep answers tidy" changes nothing.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Edit, Task } from '../../src/core/records.js';
import type { PerformPayload, RoleBackends } from '../../src/core/protocol.js';
import { defaultConfig, listLeafKeys, loadConfig } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { DEFAULT_TRAIN_OPTIONS, resolveTrainOptions, trainOptionsFromConfig, trainSkill, type TrainOptions, type TrainResult } from '../../src/trainer/index.js';
import { scriptedBackend } from '../helpers/scripted-backend.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { makeTask } from '../helpers/tasks.js';

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const d of dbs.splice(0)) d.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const task = (id: string, split: Task['split']): Task =>
  makeTask({
    id,
    intent: `answer ${id}`,
    judge: {
      checks: [
        { id: 'alpha', op: 'contains', value: 'ALPHA', weight: 1, sealed: false, description: 'says ALPHA' },
        { id: 'beta', op: 'contains', value: 'BETA', weight: 1, sealed: false, description: 'says BETA' },
        { id: 'gamma', op: 'not_contains', value: 'GAMMA', weight: 1, sealed: false, description: 'never says GAMMA' },
      ],
      reference: { kind: 'rule' },
    },
    split,
  });
const tasks = {
  train: [task('t1', 'train'), task('t2', 'train')],
  val: [task('v1', 'val'), task('v2', 'val'), task('v3', 'val')],
  test: [],
};
const SAY = (w: string) => `- say ${w} in every answer`;
const TIDY = '- keep answers tidy';
const add = (content: string): Edit => ({ op: 'add', content, rationale: 'seen in the failures', evidence: ['t1'] });

/** target: says each word the skill asks for; optimizer: proposes `proposal` at every reflect. */
function backends(proposal: string[]): RoleBackends {
  const target = scriptedBackend({
    perform: (req) => {
      const { content } = (req.payload as PerformPayload).skill;
      const words = ['ALPHA', 'BETA', 'GAMMA'].filter((w) => content.includes(SAY(w)));
      return words.length ? words.join(' ') : 'done';
    },
  });
  const optimizer = scriptedBackend({
    reflect: () => JSON.stringify({ edits: proposal.map(add) }),
    merge: (req) => JSON.stringify({ edits: (req.payload as { patches: Edit[][] }).patches.flat() }),
    rank: (req) => JSON.stringify({ order: (req.payload as { edits: Edit[] }).edits.map((_, i) => i) }),
  });
  return { target, optimizer, judge: scriptedBackend({}) };
}

async function run(proposal: string[], options: Partial<TrainOptions> = {}): Promise<{ r: TrainResult; notes: string[] }> {
  const home = makeTempDir('sos-finish-');
  dirs.push(home);
  const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
  const db = openDb(paths.database);
  dbs.push(db);
  const notes: string[] = [];
  const r = await trainSkill({
    db,
    paths,
    skill: { name: 'finish-conventions', content: '', handWritten: false },
    tasks,
    backends: backends(proposal),
    // one step (2 train tasks, batch 8), no epoch-boundary rewrites: only the passes under test move the skill
    // (the step's leave-one-out screen and pre-screen would drop the edits before the finishing passes see them: they have their own tests)
    options: { ...trainOptionsFromConfig(defaultConfig().training), epochs: 1, batchSize: 8, lr: 4, lrSchedule: 'constant', slowUpdate: false, metaSkill: false, preScreen: false, ...options },
    onNote: (l) => notes.push(l),
  });
  return { r, notes };
}

const status = (r: TrainResult) => Object.fromEntries(r.edits.map((e) => [e.content, e.status]));

describe('finishing-pass config keys', () => {
  it('default to the previous behaviour (all on, attribution of up to 12 edits)', () => {
    const c = defaultConfig().training;
    expect(c).toMatchObject({ rescue: true, prune: true, simplify: true, attributionMaxEdits: 12 });
    expect(DEFAULT_TRAIN_OPTIONS).toMatchObject({ rescue: true, prune: true, simplify: true, attributionMaxEdits: 12 });
    // the config mapping changes nothing when the config is the default
    expect(resolveTrainOptions(trainOptionsFromConfig(c))).toEqual(DEFAULT_TRAIN_OPTIONS);
    expect(listLeafKeys().map((k) => k.path)).toEqual(expect.arrayContaining(['training.rescue', 'training.prune', 'training.simplify', 'training.attributionMaxEdits']));
  });

  it('env vars turn each pass off and reach the trainer options; bad values are named', () => {
    const home = makeTempDir('sos-finish-env-');
    dirs.push(home);
    const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
    fs.writeFileSync(paths.configFile, JSON.stringify({ training: { simplify: false } }));
    const { config, envOverrides } = loadConfig(paths, {
      SKILLOPT_SLEEP_TRAINING_RESCUE: 'false',
      SKILLOPT_SLEEP_TRAINING_PRUNE: 'false',
      SKILLOPT_SLEEP_TRAINING_ATTRIBUTION_MAX_EDITS: '3',
    });
    expect(config.training).toMatchObject({ rescue: false, prune: false, simplify: false, attributionMaxEdits: 3 });
    expect(envOverrides).toEqual(expect.arrayContaining(['SKILLOPT_SLEEP_TRAINING_RESCUE', 'SKILLOPT_SLEEP_TRAINING_PRUNE', 'SKILLOPT_SLEEP_TRAINING_ATTRIBUTION_MAX_EDITS']));
    expect(resolveTrainOptions(trainOptionsFromConfig(config.training))).toMatchObject({ rescue: false, prune: false, simplify: false, attributionMaxEdits: 3 });
    expect(() => loadConfig(paths, { SKILLOPT_SLEEP_TRAINING_ATTRIBUTION_MAX_EDITS: '-1' })).toThrow(/training\.attributionMaxEdits/);
    expect(() => resolveTrainOptions({ attributionMaxEdits: 1.5 })).toThrow(/attribution max edits must be an integer/);
  });

  // one accepted step of ALPHA + BETA + GAMMA (harmful) + TIDY (inert): val 1/3 → 2/3
  const bundle = [SAY('ALPHA'), SAY('BETA'), SAY('GAMMA'), TIDY];

  it('by default prune drops the harmful edit; simplify measures the inert one but a tie is rejected', async () => {
    const { r, notes } = await run(bundle);
    expect(r.steps).toHaveLength(1);
    expect(r.steps[0].action).toBe('accept_new_best');
    expect(status(r)).toEqual({ [SAY('ALPHA')]: 'accepted', [SAY('BETA')]: 'accepted', [SAY('GAMMA')]: 'rejected', [TIDY]: 'accepted' });
    expect(r.best.val).toBeCloseTo(1);
    expect(r.bestSkill).not.toContain(SAY('GAMMA'));
    expect(r.bestSkill).toContain(TIDY);
    expect(notes.some((n) => n.startsWith('[prune] removed 1'))).toBe(true);
    expect(notes.some((n) => n.startsWith('[simplify] removed'))).toBe(false);
    expect(r.usage.stages.prune).toBeDefined();
    expect(r.usage.stages.simplify).toBeDefined();
    // every reuse of the val split is counted: 1 gate, 3 leave-one-out per round, 1 prune, 1 simplify
    expect(r.valComparisons).toMatchObject({ gate: 1, prune: 1, simplify: 1 });
    expect(r.valComparisons.attribution).toBeGreaterThanOrEqual(4);
  });

  it('prune off: the harmful edit stays accepted with its negative effect; simplify still runs (and rejects the tie)', async () => {
    const { r, notes } = await run(bundle, { prune: false });
    expect(status(r)).toEqual({ [SAY('ALPHA')]: 'accepted', [SAY('BETA')]: 'accepted', [SAY('GAMMA')]: 'accepted', [TIDY]: 'accepted' });
    expect(r.usage.stages.simplify).toBeDefined();
    expect(r.edits.find((e) => e.content === SAY('GAMMA'))?.effect).toBeCloseTo(-1 / 3);
    expect(r.bestSkill).toContain(SAY('GAMMA'));
    expect(r.best.val).toBeCloseTo(2 / 3);
    expect(notes.some((n) => n.startsWith('[prune]'))).toBe(false);
    expect(r.usage.stages.prune).toBeUndefined(); // not even measured
  });

  it('simplify off: the inert edit stays accepted (effect 0); prune still runs', async () => {
    const { r, notes } = await run(bundle, { simplify: false });
    expect(status(r)).toEqual({ [SAY('ALPHA')]: 'accepted', [SAY('BETA')]: 'accepted', [SAY('GAMMA')]: 'rejected', [TIDY]: 'accepted' });
    expect(r.edits.find((e) => e.content === TIDY)?.effect).toBe(0);
    expect(r.bestSkill).toContain(TIDY);
    expect(notes.some((n) => n.startsWith('[simplify]'))).toBe(false);
    expect(r.usage.stages.simplify).toBeUndefined();
  });

  it('both off: the step\'s accepted edits are left exactly as the gate accepted them', async () => {
    const { r } = await run(bundle, { prune: false, simplify: false });
    expect(Object.values(status(r))).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
    expect(r.best.val).toBeCloseTo(2 / 3);
    expect(r.bestStep).toBe(1);
    for (const c of bundle) expect(r.bestSkill).toContain(c);
  });

  it('attributionMaxEdits 0: no edit is attributed, so nothing can be pruned or simplified', async () => {
    const { r } = await run(bundle, { attributionMaxEdits: 0 });
    expect(Object.values(status(r))).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
    expect(r.edits.every((e) => e.effect === null)).toBe(true);
    expect(r.usage.stages.attribution).toBeUndefined();
  });

  // ALPHA + GAMMA scores 1/3 like the baseline (a tie is rejected); ALPHA alone scores 2/3
  const mixed = [SAY('ALPHA'), SAY('GAMMA')];

  it('by default rescue keeps the edit that helps alone from a rejected candidate', async () => {
    const { r } = await run(mixed);
    expect(r.steps[0].rescued).toEqual({ kept: 1, of: 2, fullValAfter: expect.closeTo(1 / 3) as number });
    expect(r.steps[0].action).toBe('accept_new_best');
    expect(status(r)).toEqual({ [SAY('ALPHA')]: 'accepted', [SAY('GAMMA')]: 'rejected' });
    expect(r.best.val).toBeCloseTo(2 / 3);
  });

  it('rescue off: the rejected candidate is rejected whole and nothing is measured alone', async () => {
    const { r } = await run(mixed, { rescue: false });
    expect(r.steps[0].action).toBe('reject');
    expect(r.steps[0].rescued).toBeUndefined();
    expect(Object.values(status(r))).toEqual(['rejected', 'rejected']);
    expect(r.bestSkill).toBe(r.baselineSkill);
    expect(r.usage.stages.rescue).toBeUndefined();
  });
});

/**
 * The gate's focus look (paired.ts focusComparison, val-gate.ts gateOnVal with a focus): an
 * otherwise indecisive candidate is rejected decisively when, on the val tasks of its own job
 * (sampled densely in the extra rounds) and on the whole split, its gain interval lies below the
 * minimum worthwhile gain; and, with the focus accept, an otherwise indecisive candidate whose
 * gain there is surely worth it is accepted when the other jobs' tasks, sampled enough to see
 * their noise, show no loss.
 */
import { describe, expect, it } from 'vitest';
import type { Edit, Task } from '../../src/core/records.js';
import { focusComparison, gainsElsewhere, losesElsewhere, pairedGateDecision } from '../../src/trainer/gate/paired.js';
import type { SplitScores } from '../../src/trainer/gate/gate.js';
import { focusBoost, gateOnVal } from '../../src/trainer/gate/val-gate.js';
import { focusTaskIds } from '../../src/trainer/gate/scope-leak.js';
import { mulberry32 } from '../../src/trainer/rng.js';
import { DEFAULT_TRAIN_OPTIONS } from '../../src/trainer/options.js';
import type { TrainContext } from '../../src/trainer/context.js';
import type { RunState } from '../../src/trainer/run-files.js';
import { makeTask } from '../helpers/tasks.js';

/** Per-task samples → SplitScores the way measure.ts builds them (samples kept when there are several). */
function scoresOf(perTask: Array<[string, number[]]>): SplitScores {
  const rows = perTask.map(([taskId, xs]) => {
    const soft = xs.reduce((a, x) => a + x, 0) / xs.length;
    return { taskId, hard: 0, soft, ...(xs.length > 1 ? { samples: xs.map((x) => ({ hard: 0, soft: x })) } : {}) };
  });
  const soft = rows.reduce((a, t) => a + t.soft, 0) / rows.length;
  return { hard: 0, soft, perTask: rows };
}

const FAMILIES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const IDS = FAMILIES.flatMap((f) => [0, 1, 2].map((i) => `${f}${i}`));
const FOCUS_A = new Set(['a0', 'a1', 'a2']);
/** A val task of the job named by the id's first letter (the gate reads only its id and family). */
const valTask = (id: string): Task => makeTask({ id, family: id[0], intent: `ask ${id}`, judge: { checks: [], reference: { kind: 'rule' } }, split: 'val' });

describe('focusComparison and the futility reject (pure)', () => {
  /** n samples alternating mean ± spread (sample sd = spread). */
  const seq = (mean: number, spread: number, n: number) => Array.from({ length: n }, (_, k) => mean + (k % 2 ? spread : -spread));
  /** 24 tasks: the 3 focus tasks with `focusN` samples, the others with `otherN`; the candidate shifted by `own` there and `other` elsewhere. */
  function pair(o: { own: number; other: number; focusN: number; otherN: number; spread?: number; otherSpread?: number }) {
    const sp = (id: string) => (FOCUS_A.has(id) ? (o.spread ?? 0.2) : (o.otherSpread ?? o.spread ?? 0.2));
    const n = (id: string) => (FOCUS_A.has(id) ? o.focusN : o.otherN);
    return {
      current: scoresOf(IDS.map((id) => [id, seq(0.7, sp(id), n(id))])),
      candidate: scoresOf(IDS.map((id) => [id, seq(0.7 + (FOCUS_A.has(id) ? o.own : o.other), sp(id), n(id))])),
    };
  }
  const base = { metric: 'soft' as const, bestScore: 0.7, seed: 5, confidence: 0.98 };
  const focus = { taskIds: FOCUS_A, minGain: 0.1 };

  it('no focus look on one sample a task: the candidate stays indecisive', () => {
    // one sample a task: per-task differences swinging ±0.2 around a +0.01 mean
    const current = scoresOf(IDS.map((id) => [id, [0.7]]));
    const candidate = scoresOf(IDS.map((id, i) => [id, [0.71 + (i % 2 ? 0.2 : -0.2)]]));
    const d = pairedGateDecision({ ...base, current, candidate, focus });
    expect(d.outcome).toBe('indecisive');
    expect(d.focus).toBeUndefined();
  });

  it('with dense samples where it acts, a candidate that does nothing there is rejected decisively, and says why', () => {
    const p = pair({ own: 0, other: 0.01, focusN: 48, otherN: 12 });
    expect(pairedGateDecision({ ...base, ...p }).outcome).toBe('indecisive');
    const d = pairedGateDecision({ ...base, ...p, focus });
    expect(d.outcome).toBe('reject');
    expect(d.accepted).toBe(false);
    expect(d.focus?.n).toBe(3);
    expect(d.focus?.hi).toBeLessThan(0.1);
    expect(d.ci.hi).toBeLessThan(0.1);
    expect(d.reason).toMatch(/no worthwhile gain/);
  });

  it('a real gain on its own job is not rejected by the focus look: the whole-split interval decides it', () => {
    const d = pairedGateDecision({ ...base, ...pair({ own: 0.15, other: 0.01, focusN: 48, otherN: 12, spread: 0.2 }), focus });
    expect(d.outcome).toBe('indecisive');
    expect(d.focus?.lo).toBeGreaterThan(0);
    expect(d.focus?.hi).toBeGreaterThan(0.1);
  });

  it('the whole-split reading must agree: a rule acting everywhere with a wide whole-split interval stays indecisive', () => {
    const d = pairedGateDecision({ ...base, ...pair({ own: 0, other: 0.035, focusN: 48, otherN: 4, otherSpread: 0.4 }), focus });
    expect(d.focus?.hi).toBeLessThan(0.1);
    expect(d.ci.hi).toBeGreaterThan(0.1);
    expect(d.outcome).toBe('indecisive');
  });

  it('an edit that gains on the other jobs is not rejected for doing nothing on its own (a rule for every reply)', () => {
    // its own job: no gain (dense); every other job: +0.06 a task, a gain the whole split cannot yet confirm at its confidence
    const p = pair({ own: 0, other: 0.06, focusN: 48, otherN: 4, otherSpread: 0.3 });
    expect(gainsElsewhere({ ...base, ...p, focus })).toBe(true);
    const d = pairedGateDecision({ ...base, ...p, focus });
    expect(d.focus?.hi).toBeLessThan(0.1);
    expect(d.outcome).not.toBe('reject');
    // the same own-job look with nothing happening elsewhere is rejected
    expect(gainsElsewhere({ ...base, ...pair({ own: 0, other: 0.01, focusN: 48, otherN: 12 }), focus })).toBe(false);
  });

  it('the focus accept: a gain surely worth it on its own job, with no loss elsewhere, accepts an otherwise indecisive candidate', () => {
    const p = pair({ own: 0.3, other: 0, focusN: 48, otherN: 6, otherSpread: 0.3 });
    expect(pairedGateDecision({ ...base, ...p, focus }).outcome).toBe('indecisive');
    const d = pairedGateDecision({ ...base, ...p, focus: { ...focus, accept: true } });
    expect(d.outcome).toBe('accept');
    expect(d.accepted).toBe(true);
    expect(d.focus?.lo).toBeGreaterThanOrEqual(0.1);
    expect(d.reason).toMatch(/worth it where it acts/);
  });

  it('the focus accept is blocked by a loss on the other jobs, a mean below even there, or too few samples there to see their noise', () => {
    const accept = { ...focus, accept: true };
    // a leak: +0.3 on its job, −0.03 a task on every other (sampled enough): blocked, stays indecisive
    const leak = pair({ own: 0.3, other: -0.03, focusN: 48, otherN: 6, otherSpread: 0.3 });
    expect(losesElsewhere({ ...base, ...leak, focus: accept })).toBe(true);
    expect(pairedGateDecision({ ...base, ...leak, focus: accept }).outcome).not.toBe('accept');
    // no loss elsewhere, but two samples a task there: too few to tell
    const sparse = pair({ own: 0.3, other: 0, focusN: 48, otherN: 2, otherSpread: 0.3 });
    expect(losesElsewhere({ ...base, ...sparse, focus: accept })).toBe(true);
    expect(pairedGateDecision({ ...base, ...sparse, focus: accept }).outcome).not.toBe('accept');
    // a gain on its job below the minimum worth a change: no focus accept
    const small = pair({ own: 0.08, other: 0, focusN: 48, otherN: 6, otherSpread: 0.3 });
    expect(pairedGateDecision({ ...base, ...small, focus: accept }).outcome).not.toBe('accept');
  });

  it('minGain 0 switches the look off', () => {
    expect(focusComparison({ ...base, ...pair({ own: 0, other: 0.01, focusN: 48, otherN: 12 }), focus: { taskIds: FOCUS_A, minGain: 0 } })).toBeNull();
  });
});

describe('helpers', () => {
  it('focusBoost gives the focus tasks as many new rollouts a round as the whole split', () => {
    expect(focusBoost(3, 24)).toBe(8);
    expect(focusBoost(12, 24)).toBe(2);
    expect(focusBoost(20, 24)).toBe(1);
    expect(focusBoost(0, 24)).toBe(1);
  });
  it('focusTaskIds: the val tasks of the evidence families; null without labels or when they cover every task', () => {
    const tasks = IDS.map((id) => valTask(id));
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const edit = (evidence: string[]): Edit => ({ op: 'add', content: '- x', rationale: 'r', evidence }) as Edit;
    expect(focusTaskIds([edit(['a1'])], byId, tasks)).toEqual(FOCUS_A);
    expect(focusTaskIds([edit([])], byId, tasks)).toBeNull();
    const unlabelled = new Map([...byId].map(([k, t]) => [k, { ...t, family: null }]));
    expect(focusTaskIds([edit(['a1'])], unlabelled, tasks)).toBeNull();
    expect(focusTaskIds([edit(FAMILIES.map((f) => `${f}0`))], byId, tasks)).toBeNull();
  });
});

/**
 * A scripted stratified val world, the shape the persona world and a mined night have: 8 jobs × 3
 * val tasks, independent draws per skill (no common random numbers, like a real model at
 * temperature > 0), per-sample noise sd 0.2, true per-task scores 0.55–0.75. Candidates are targeted edits, as the optimizer
 * proposes them after a good start: real fixes (+0.25 on their own job), paraphrases of a rule the
 * skill holds (+0.03 there), rules about nothing (0), each with a small cost elsewhere (−0.005,
 * a longer skill dilutes the rest), and leaks (+0.1 on their job, −0.05 on every other). Both
 * arms see the same draws, so the focus look can only turn an indecisive end into a reject (a leak
 * the whole-split interval accepts is accepted in both arms: in the loop the scope-leak screen
 * follows the gate).
 */
describe('gateOnVal with the focus look in a stratified noisy world', () => {
  type Kind = 'fix' | 'paraphrase' | 'nothing' | 'leak';
  const KINDS: Kind[] = ['fix', 'paraphrase', 'nothing', 'nothing', 'paraphrase', 'leak'];
  const SHIFT: Record<Kind, { own: number; other: number }> = {
    fix: { own: 0.25, other: -0.005 },
    paraphrase: { own: 0.03, other: -0.005 },
    nothing: { own: 0, other: -0.005 },
    leak: { own: 0.1, other: -0.05 },
  };
  const SD = 0.2;

  /** The noise of one sample, fixed by candidate, skill, task and sample index: both arms see the same draws. */
  const drawNoise = (k: number, content: string, taskId: string, sample: number) => {
    let h = 2166136261;
    for (const ch of `${k}:${content}:${taskId}:${sample}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    const r = mulberry32(h >>> 0);
    return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  };

  async function run(withFocus: boolean, n: number) {
    const rand = mulberry32(2027);
    const clamp = (x: number) => Math.min(1, Math.max(0, x));
    const val: Task[] = IDS.map((id) => valTask(id));
    const tally = { indecisive: 0, worseAccepted: 0, fixes: 0, fixesAccepted: 0, fixesFutile: 0, rollouts: 0 };
    for (let k = 0; k < n; k++) {
      const kind = KINDS[k % KINDS.length];
      const own = FAMILIES[k % FAMILIES.length];
      const truthCur = new Map(IDS.map((id) => [id, 0.55 + 0.2 * rand()]));
      const truthCand = new Map(IDS.map((id) => [id, clamp(truthCur.get(id)! + (id[0] === own ? SHIFT[kind].own : SHIFT[kind].other))]));
      const trueDelta = IDS.reduce((a, id) => a + truthCand.get(id)! - truthCur.get(id)!, 0) / IDS.length;
      const draws = new Map<string, number[]>();
      const measure = async (tasks: Task[], content: string, _stage: string, samples = 1, from = 0) => {
        const truth = content === 'cur' ? truthCur : truthCand;
        const perTask = tasks.map((t): [string, number[]] => {
          const key = `${content}:${t.id}`;
          const xs = draws.get(key) ?? [];
          while (xs.length < samples) {
            xs.push(clamp(truth.get(t.id)! + SD * drawNoise(k, content, t.id, xs.length)));
            tally.rollouts++;
          }
          draws.set(key, xs);
          return [t.id, xs.slice(from, samples)];
        });
        return { scores: scoresOf(perTask), rollouts: [] };
      };
      const st = { valComparisons: {} } as unknown as RunState;
      const ctx = { options: { ...DEFAULT_TRAIN_OPTIONS, gateMetric: 'soft' as const }, st, val, measure } as unknown as Pick<TrainContext, 'options' | 'st' | 'val' | 'measure'>;
      const cur = (await measure(val, 'cur', 'gate')).scores;
      const cand = (await measure(val, 'cand', 'gate')).scores;
      const focus = withFocus ? new Set(IDS.filter((id) => id[0] === own)) : null;
      const settled = await gateOnVal(ctx, 'gate', { content: 'cur', scores: cur }, { content: 'cand', scores: cand }, cur.soft, k + 1, focus);
      const d = settled.decision;
      if (d.outcome === 'indecisive') tally.indecisive++;
      if (d.accepted && trueDelta < -0.005) tally.worseAccepted++;
      if (kind === 'fix') {
        tally.fixes++;
        if (d.accepted) tally.fixesAccepted++;
        if (/no worthwhile gain/.test(d.reason)) tally.fixesFutile++;
      }
    }
    return tally;
  }

  it('decides where the whole-split gate stays indecisive, accepts more real fixes and no more truly worse candidates, and rejects no real fix as not worthwhile', async () => {
    const N = 240;
    const off = await run(false, N);
    const on = await run(true, N);
    console.log(
      `focus-look figure: ${N} targeted candidates; indecisive at the end: whole split only ${off.indecisive} (${((100 * off.indecisive) / N).toFixed(1)}%), with the focus look ${on.indecisive} (${((100 * on.indecisive) / N).toFixed(1)}%); truly worse accepted ${off.worseAccepted} / ${on.worseAccepted}; real fixes accepted ${off.fixesAccepted}/${off.fixes} / ${on.fixesAccepted}/${on.fixes}, rejected as not worthwhile ${on.fixesFutile}; rollouts ${off.rollouts} / ${on.rollouts}`,
    );
    expect(off.indecisive / N).toBeGreaterThan(0.15);
    expect(on.indecisive / N).toBeLessThanOrEqual(0.75 * (off.indecisive / N));
    // the same draws in both arms: the focus accept takes real fixes the whole split cannot confirm
    // (its own job's gain surely worth it, no loss elsewhere), and no truly worse candidate more
    expect(on.worseAccepted).toBeLessThanOrEqual(off.worseAccepted);
    expect(on.fixesFutile).toBe(0);
    expect(on.fixesAccepted).toBeGreaterThanOrEqual(2 * off.fixesAccepted);
  });
});

/**
 * The mid-run prune (mid-prune.ts): at an epoch boundary, accepted edits and the rule sentences of
 * multi-rule edits are scored leave-one-out; the worst suspects, one at a time, are cut only
 * through the gate. A harmful sentence that rode in inside a good bullet is cut alone (the good
 * rules of that bullet stay, in the skill, the lineage and the edit's record), and under sampling
 * noise a skill made only of helpful rules loses none of them.
 */
import { describe, expect, it } from 'vitest';
import type { EditRecord, Task } from '../../src/core/records.js';
import type { SplitScores } from '../../src/trainer/gate/gate.js';
import { midRunPrune, ruleSentences } from '../../src/trainer/passes/mid-prune.js';
import { rebuildSkill, type LineageOp } from '../../src/trainer/passes/attribution.js';
import { RejectedEditBuffer } from '../../src/trainer/optimizer/buffer.js';
import { mulberry32 } from '../../src/trainer/rng.js';
import { DEFAULT_TRAIN_OPTIONS } from '../../src/trainer/options.js';
import type { TrainContext } from '../../src/trainer/context.js';
import type { RunState } from '../../src/trainer/run-files.js';
import type { ApplyOptions } from '../../src/skilldoc/edits.js';
import { makeTask } from '../helpers/tasks.js';

const IDS = Array.from({ length: 24 }, (_, i) => `t${i}`);
const val: Task[] = IDS.map((id) => makeTask({ id, family: id, intent: `ask ${id}`, judge: { checks: [], reference: { kind: 'rule' } }, split: 'val' }));
const applyOpts: ApplyOptions = { scope: 'document' };

const USAGE = 'Put README usage docs under a `## Usage` heading.';
const JSON_ONLY = 'In every reply: reply only with JSON and nothing else.';
const RISK = 'Give PR summaries a `## Risk` heading.';
const TESTING = 'Add a `## Testing` section to PR summaries.';

/**
 * A target that follows the skill: each helpful rule adds `gain` to every task's mean, a JSON-only
 * rule ruins every reply (0.05); one draw per (skill, task, sample), noise ±`noise`.
 */
function world(noise: number, seed: number, gain = 0.15) {
  let rollouts = 0;
  const measure = async (tasks: Task[], content: string, _stage: string, samples = 1, from = 0) => {
    const helpful = [USAGE, RISK, TESTING].filter((r) => content.includes(r)).length;
    const mean = content.includes('only with JSON') ? 0.05 : 0.2 + gain * helpful;
    const perTask = tasks.map((t) => {
      const xs: number[] = [];
      for (let s = from; s < samples; s++) {
        const h = [...`${content}|${t.id}|${s}|${seed}`].reduce((a, c) => (a * 31 + c.charCodeAt(0)) >>> 0, 7);
        const r = mulberry32(h)();
        xs.push(Math.max(0, Math.min(1, mean + (r * 2 - 1) * noise)));
        rollouts++;
      }
      const soft = xs.reduce((a, x) => a + x, 0) / xs.length;
      return { taskId: t.id, hard: 0, soft, ...(xs.length > 1 ? { samples: xs.map((x) => ({ hard: 0, soft: x })) } : {}) };
    });
    const scores: SplitScores = { hard: 0, soft: perTask.reduce((a, t) => a + t.soft, 0) / perTask.length, perTask };
    return { scores, rollouts: [] };
  };
  return { measure, rollouts: () => rollouts };
}

async function contextFor(bullets: string[], noise: number, seed: number, gain = 0.15) {
  const lineage: LineageOp[] = bullets.map((b, i) => ({ kind: 'edits', step: i + 1, edits: [{ id: `s${i + 1}e0`, edit: { op: 'add', content: `- ${b}`, rationale: '', evidence: [] } }] }));
  const content = rebuildSkill('', lineage, applyOpts);
  const w = world(noise, seed, gain);
  const scores = (await w.measure(val, content, 'gate')).scores;
  const edits: EditRecord[] = lineage.flatMap((op) => (op.kind === 'edits' ? op.edits.map((e) => ({ ...e.edit, id: e.id, status: 'accepted' as const })) : []));
  const emptyScores = (await w.measure(val, '', 'gate')).scores;
  const st = {
    valComparisons: {},
    baseline: { content: '', scores: emptyScores, score: emptyScores.soft, origin: 'baseline' },
    current: { content, scores, score: scores.soft, origin: 'step_2' },
    best: { content, scores, score: scores.soft, origin: 'step_2', step: bullets.length, lineageLength: lineage.length },
    lineage,
    edits,
    lastCompletedStep: bullets.length,
  } as unknown as RunState;
  const buffer = new RejectedEditBuffer(null, 'k');
  let written = '';
  const ctx = {
    options: { ...DEFAULT_TRAIN_OPTIONS, gateMetric: 'soft' as const, epochs: 3, seed },
    st,
    val,
    measure: w.measure,
    score: (s: SplitScores) => s.soft,
    applyOpts,
    buffer,
    runId: 'run_test',
    files: { writeBest: (c: string) => (written = c) },
  } as unknown as TrainContext;
  return { ctx, st, buffer, written: () => written };
}

describe('ruleSentences', () => {
  it('splits a bullet into its rule sentences, code spans intact', () => {
    expect(ruleSentences(`- ${USAGE} ${JSON_ONLY} Begin with \`feat:\` or \`fix:\`.`)).toEqual([USAGE, JSON_ONLY, 'Begin with `feat:` or `fix:`.']);
    expect(ruleSentences(`- ${RISK}`)).toEqual([RISK]);
  });
});

describe('midRunPrune', () => {
  it('cuts a ruinous sentence out of a good bullet and keeps the bullet’s good rule', async () => {
    const { ctx, st, buffer, written } = await contextFor([`${USAGE} ${JSON_ONLY}`, RISK], 0.1, 3);
    const summary = await midRunPrune(ctx, 1);
    expect(summary).toMatch(/removed s1e0 \(one sentence\)/);
    expect(st.current.content).toContain(USAGE);
    expect(st.current.content).toContain(RISK);
    expect(st.current.content).not.toContain('only with JSON');
    // the history rebuilds the new skill, the best follows it, the record holds the cut bullet
    expect(rebuildSkill('', st.lineage, applyOpts)).toBe(st.current.content);
    expect(st.best.content).toBe(st.current.content);
    expect(written()).toBe(st.current.content);
    expect(st.edits.find((e) => e.id === 's1e0')).toMatchObject({ status: 'accepted', content: `- ${USAGE}` });
    expect(st.current.score).toBeGreaterThan(0.5);
    // the cut sentence is remembered, so the optimizer is told not to propose it again
    expect(buffer.list().map((e) => e.edit.content)).toEqual([`- ${JSON_ONLY}`]);
  });

  it('leaves a multi-line edit whole: no sentence cut flattens a section', async () => {
    const { ctx, st } = await contextFor([`${USAGE}\n${RISK}\n${JSON_ONLY}`], 0.1, 2);
    await midRunPrune(ctx, 1);
    // the only cut it may make is the whole edit (here it does: the edit ruins every reply); its
    // lines never run together into one bullet, which a sentence cut would do
    expect(st.current.content).not.toContain(`${USAGE} ${RISK}`);
    expect(st.current.content).not.toContain('only with JSON');
    expect(rebuildSkill('', st.lineage, applyOpts)).toBe(st.current.content);
  });

  it('cuts nothing at the last epoch (the finish prunes) or with the gate off', async () => {
    const a = await contextFor([`${USAGE} ${JSON_ONLY}`], 0.1, 1);
    expect(await midRunPrune(a.ctx, 3)).toBe('off');
    const b = await contextFor([`${USAGE} ${JSON_ONLY}`], 0.1, 1);
    b.ctx.options.gateEnabled = false;
    expect(await midRunPrune(b.ctx, 1)).toBe('off');
    expect(b.st.current.content).toContain('only with JSON');
  });

  it('under sampling noise, cuts no helpful rule from a skill made only of helpful rules', async () => {
    // small gains under large noise: one look per cut often calls a helpful rule harmful
    let cutRules = 0;
    let withSuspects = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const { ctx, st } = await contextFor([`${USAGE} ${RISK}`, TESTING], 0.4, seed, 0.04);
      const summary = await midRunPrune(ctx, 1);
      if (/suspect/.test(summary)) withSuspects++;
      cutRules += [USAGE, RISK, TESTING].filter((r) => !st.current.content.includes(r)).length;
    }
    expect(withSuspects).toBeGreaterThanOrEqual(5);
    expect(cutRules).toBe(0);
  });
});

/**
 * The run's starting point: the start draft (start-draft.ts: the task data's visible check
 * descriptions and the user's corrections, one section per job) weighed against the starting
 * skill on the gate's val slice by the same paired gate as any candidate. The draft becomes the
 * skill training starts from only when the gate accepts it and it scores strictly higher; the
 * starting skill's figures are kept so a caller can report the whole change. Every caller of the
 * trainer gets this (the night, the persona bench); `options.startDraft: false` switches it off.
 */
import type { Task } from '../../core/records.js';
import type { ApplyOptions } from '../../skilldoc/edits.js';
import { correctionsDraft } from './start-draft.js';
import { gateOnVal } from '../gate/val-gate.js';
import { metricScore, splitScore } from '../gate/gate.js';
import type { Measurer } from '../measure.js';
import type { RunState } from '../run-files.js';
import type { StartDraftOutcome, TrainOptions } from '../types.js';

export async function weighStartDraft(args: {
  start: string;
  /** train + val tasks: what the draft may read (never test) */
  tasks: Task[];
  val: Task[];
  /** the test split: the starting skill is scored on it only when the draft is taken (for a caller's "before" figure) */
  test: Task[];
  options: TrainOptions;
  applyOpts: ApplyOptions;
  measure: Measurer;
  st: Pick<RunState, 'valComparisons'>;
}): Promise<{ taken: StartDraftOutcome | null; line: string | null }> {
  const { start, options, val, measure } = args;
  const draft = correctionsDraft(start, args.tasks, args.applyOpts.scope, { withChecks: options.startDraftChecks });
  if (!draft || draft.content === start) return { taken: null, line: null };
  const startOn = await measure(val, start, 'baseline');
  const draftOn = await measure(val, draft.content, 'start_draft');
  const score = (s: typeof startOn.scores) => splitScore(s, options.gateMetric);
  const startVal = score(startOn.scores);
  const draftVal = score(draftOn.scores);
  const rules = draft.jobs.reduce((n, j) => n + (j.checks?.length ?? 0) + j.corrections.length, 0);
  const jobs = draft.jobs.map((j) => j.phrase);
  const ctx = { options, st: args.st as RunState, val, measure };
  const settled = await gateOnVal(ctx, 'gate', { content: start, scores: startOn.scores }, { content: draft.content, scores: draftOn.scores }, startVal, options.seed);
  if (settled.decision.outcome !== 'accept' || !(draftVal > startVal)) {
    return { taken: null, line: `start draft (${rules} rules in ${jobs.length} jobs) not taken: val ${draftVal.toFixed(2)} vs ${startVal.toFixed(2)} (${settled.decision.outcome})` };
  }
  const what = options.startDraftChecks ? "your own corrections and the tasks' visible checks" : 'your own corrections';
  const note = `training started from a draft of ${what} (${rules} rules, in ${jobs.length} job sections: ${jobs.join('; ')}), which scored ${draftVal.toFixed(2)} on validation against ${startVal.toFixed(2)} for the starting skill`;
  const startOnTest = args.test.length ? await measure(args.test, start, 'test') : null;
  const perTask = (split: 'val' | 'test', s: typeof startOn.scores) => s.perTask.map((t) => ({ taskId: t.taskId, split, score: metricScore(t.hard, t.soft, options.gateMetric) }));
  const startPerTask = [...perTask('val', startOn.scores), ...(startOnTest ? perTask('test', startOnTest.scores) : [])];
  const startTest = startOnTest ? score(startOnTest.scores) : null;
  return { taken: { content: draft.content, edits: draft.edits, startSkill: start, startVal, startTest, startPerTask, draftVal, rules, jobs, note }, line: note };
}

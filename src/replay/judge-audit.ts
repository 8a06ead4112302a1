/**
 * The judge's sanity audit, before a gate trusts its scores. A judge model that returns valid
 * JSON with a wrong score now and then passes every schema check, and the gate then keeps
 * whatever candidate the noise favoured (issue 43: a 30%-wrong judge let a night stage a skill
 * scoring 0.49 on hidden tests against 0.96 without the fault). Two probes, on a sample of the
 * skill's own tasks replayed under the starting skill:
 *
 * - consistency: a reply the judge graded is graded again, fresh (no response cache); the two
 *   grades must agree (within REPEAT_TOLERANCE);
 * - agreement with rule checks: where a task has a plain-text rule check on the reply
 *   (`contains` / `not_contains`, decided deterministically), the judge grades the same reply
 *   against that check stated as a one-line rubric; its pass/fail must match the check's.
 *
 * Past MAX_JUDGE_DISAGREEMENT on either probe (or on both together) the judge fails the audit and
 * the night stages nothing for the skill, saying why. The rollouts go through the rollout cache,
 * so the trainer's first scoring of the starting skill reuses them.
 */
import type { Db } from '../store/db.js';
import type { Check, Rollout, Task } from '../core/records.js';
import type { Backend } from '../core/protocol.js';
import { sha256 } from '../core/fsutil.js';
import { isSleepError } from '../core/errors.js';
import { describeCheck } from '../core/checks.js';
import { rolloutBatch } from './batch.js';
import { gradeRubric, rubricOf, withChanges } from './judge.js';
import type { SkillDoc } from './rollout.js';

/** Tasks replayed for the audit (each gives at most one pair per probe). */
export const JUDGE_AUDIT_SAMPLE = 8;
/** The share of disagreeing pairs past which the judge's scores are not used (default 20%). */
export const MAX_JUDGE_DISAGREEMENT = 0.2;
/** Two grades of one reply agree when they differ by at most this much (scores are 0..1). */
export const REPEAT_TOLERANCE = 0.25;
/** Fewer pairs than this on a probe and that probe alone decides nothing. */
export const MIN_PROBE_PAIRS = 3;

/** Rule-check ops a judge reads off the reply text as reliably as the rule does. */
const PROBE_OPS = new Set<Check['op']>(['contains', 'not_contains']);

export interface ProbeResult {
  pairs: number;
  disagreements: number;
  /** a few of the disagreements, for the report: task id and what each side said */
  examples: string[];
}

export interface JudgeAudit {
  /** `passed`: the judge's scores may reach the gate; `skipped`: no task of the skill is graded by the judge */
  verdict: 'passed' | 'failed' | 'skipped';
  /** one line: what was measured and, when failed, why the scores are not used */
  reason: string;
  sampled: number;
  repeat: ProbeResult;
  rules: ProbeResult;
  maxDisagreement: number;
}

export interface JudgeAuditInput {
  db?: Db;
  /** the skill's tasks (train and val: the ones whose scores reach the gate) */
  tasks: Task[];
  /** the starting skill, whose rollouts the trainer scores first */
  skill: SkillDoc;
  target: Backend;
  judge: Backend;
  seed: number;
  signal?: AbortSignal;
  runId?: string;
  sample?: number;
  maxDisagreement?: number;
}

const emptyProbe = (): ProbeResult => ({ pairs: 0, disagreements: 0, examples: [] });
const rate = (p: ProbeResult) => (p.pairs ? p.disagreements / p.pairs : 0);
const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The tasks to audit on: judge-graded ones, in an order fixed by the seed (not the store's). */
export function auditSample(tasks: Task[], seed: number, n = JUDGE_AUDIT_SAMPLE): Task[] {
  return tasks
    .filter((t) => rubricOf(t) !== null)
    .map((t) => ({ t, k: sha256(`judge-audit\u0000${seed}\u0000${t.id}`) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .slice(0, n)
    .map((x) => x.t);
}

/**
 * Words a reader checks by eye: letters and digits, spaces and dashes between them. A value such as
 * ".each" or "(" is a substring test a rule does exactly and a reader argues about: not a probe.
 */
const PLAIN_WORDS = /^[\p{L}\p{N}](?:[\p{L}\p{N} _-]*[\p{L}\p{N}])?$/u;

/** The first rule check of a task that the rule-agreement probe can put to the judge. */
function probeCheck(task: Task): Check | null {
  return (
    task.judge.checks.find(
      (c) => PROBE_OPS.has(c.op) && (c.target ?? 'reply') === 'reply' && c.sealed !== true && typeof c.value === 'string' && c.value.trim().length >= 3 && PLAIN_WORDS.test(c.value.trim()),
    ) ?? null
  );
}

/** The value occurs only inside longer words ("log" in "changelog"): the rule and a reader may both be right. */
function onlyInsideWords(check: Check, response: string): boolean {
  const value = String(check.value).trim();
  const flags = check.caseSensitive === true ? 'u' : 'iu';
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const inText = (check.caseSensitive === true ? response : response.toLowerCase()).includes(check.caseSensitive === true ? value : value.toLowerCase());
  return inText && !new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, flags).test(response);
}

export async function auditJudge(input: JudgeAuditInput): Promise<JudgeAudit> {
  const maxDisagreement = input.maxDisagreement ?? MAX_JUDGE_DISAGREEMENT;
  const sample = auditSample(input.tasks, input.seed, input.sample);
  const repeat = emptyProbe();
  const rules = emptyProbe();
  const base = { sampled: sample.length, repeat, rules, maxDisagreement };
  if (!sample.length) return { ...base, verdict: 'skipped', reason: 'the judge grades none of these tasks (rule checks only): nothing to audit' };

  const rollouts = await rolloutBatch({ db: input.db, tasks: sample, skill: input.skill, target: input.target, judge: input.judge, signal: input.signal, runId: input.runId, label: 'judge audit' });
  const byId = new Map(sample.map((t) => [t.id, t]));
  for (const r of rollouts) {
    const task = byId.get(r.taskId);
    if (!task || r.error) continue; // a failed call is counted by the night's call tally, not here
    await probeRepeat(task, r, input, repeat);
    await probeRules(task, r, input, rules);
  }

  const both: ProbeResult = { pairs: repeat.pairs + rules.pairs, disagreements: repeat.disagreements + rules.disagreements, examples: [] };
  const figures = `re-graded the same reply: ${repeat.disagreements} of ${repeat.pairs} disagreed; against its rule checks: ${rules.disagreements} of ${rules.pairs} disagreed`;
  const over = (p: ProbeResult, min: number) => p.pairs >= min && rate(p) > maxDisagreement;
  if (over(repeat, MIN_PROBE_PAIRS) || over(rules, MIN_PROBE_PAIRS) || over(both, MIN_PROBE_PAIRS + 1)) {
    const examples = [...rules.examples, ...repeat.examples].slice(0, 3).join('; ');
    return {
      ...base,
      verdict: 'failed',
      reason: `the judge ${input.judge.name}/${input.judge.model} is not consistent enough to gate on (${figures}; more than ${pct(maxDisagreement)} is not allowed)${examples ? `: ${examples}` : ''}`,
    };
  }
  if (both.pairs < MIN_PROBE_PAIRS) return { ...base, verdict: 'passed', reason: `too few judged replies to audit the judge (${figures})` };
  return { ...base, verdict: 'passed', reason: `the judge agreed with itself and its rule checks (${figures})` };
}

/** Grade the reply again, fresh; the rollout's own rubric grade is the first of the pair. */
async function probeRepeat(task: Task, r: Rollout, input: JudgeAuditInput, out: ProbeResult): Promise<void> {
  const rubric = rubricOf(task);
  const first = r.checks.find((c) => c.checkId === 'reference:rubric');
  if (!rubric || !first) return;
  const again = await gradeRubric(task, rubric.rubric, withChanges(r.response, r.workspace), input.judge, { signal: input.signal, runId: input.runId, fresh: true }).catch(rethrowFatal);
  if (!again) return;
  out.pairs++;
  if (Math.abs(again.score - first.score) > REPEAT_TOLERANCE) {
    out.disagreements++;
    out.examples.push(`${task.id} graded ${first.score.toFixed(2)} then ${again.score.toFixed(2)}`);
  }
}

/** Put one rule check to the judge as a rubric; compare its verdict with the rule's. */
async function probeRules(task: Task, r: Rollout, input: JudgeAuditInput, out: ProbeResult): Promise<void> {
  const check = probeCheck(task);
  const truth = check && r.checks.find((c) => c.checkId === check.id);
  if (!check || !truth || onlyInsideWords(check, r.response)) return;
  const graded = await gradeRubric(task, `The response must ${describeCheck(check)}.`, r.response, input.judge, { signal: input.signal, runId: input.runId, fresh: true }).catch(rethrowFatal);
  if (!graded) return;
  out.pairs++;
  const judgePassed = graded.score >= 0.5;
  if (judgePassed !== truth.passed) {
    out.disagreements++;
    out.examples.push(`${task.id}: the rule "${describeCheck(check)}" ${truth.passed ? 'passed' : 'failed'}, the judge gave ${graded.score.toFixed(2)}`);
  }
}

/**
 * A probe call that failed is no pair (the night's call tally counts the failure); an abort, a
 * spent budget or a refused key ends the audit like any batch.
 */
function rethrowFatal(err: unknown): null {
  if (isSleepError(err) && ['ABORTED', 'BUDGET_EXCEEDED', 'BACKEND_AUTH'].includes(err.code)) throw err;
  return null;
}

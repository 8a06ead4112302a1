/**
 * Judging one response to a task: rule checks, an exact reference answer, and a rubric graded by
 * the `judge` role. Produces the hard score (every check passed), the soft score (weighted
 * fraction, the rubric counting with its continuous score) and the optimizer feedback (non-sealed
 * failures and the rubric critique only).
 */
import type { Check, CheckResult, ReplayWorkspace, Task } from '../core/records.js';
import { JudgeRubricReply, type Backend, type JudgeRubricPayload, type LlmReply } from '../core/protocol.js';
import { SleepError } from '../core/errors.js';
import { evaluateCheck } from '../core/checks.js';
import { completeJson } from '../llm/json.js';

export interface Judgement {
  hardScore: number;
  softScore: number;
  checks: CheckResult[];
  feedback: string;
  /** judge calls made (rubric), for accounting */
  judgeReplies: LlmReply[];
}

export const EXACT_CHECK_ID = 'reference:exact';
export const RUBRIC_CHECK_ID = 'reference:rubric';
export const IMPLICIT_CHECK_ID = 'implicit:no_refusal';
export const OUTCOME_CHECK_ID = 'outcome:command';

/** How much of the agent's changes a rubric judge is shown. */
const JUDGE_DIFF_CHARS = 12_000;

/** A task with no check and a plain rule reference is judged "did the agent do something". */
const IMPLICIT_CHECK: Check = {
  id: IMPLICIT_CHECK_ID,
  op: 'no_refusal',
  weight: 1,
  sealed: false,
  description: 'The agent must attempt the task',
};

export async function judgeResponse(
  task: Task,
  response: string,
  toolsCalled: string[],
  judgeBackend: Backend | undefined,
  opts: { signal?: AbortSignal; runId?: string; workspace?: ReplayWorkspace; commandsRun?: readonly string[] } = {},
): Promise<Judgement> {
  const reference = task.judge.reference;
  const checks = task.judge.checks.length === 0 && reference.kind === 'rule' ? [IMPLICIT_CHECK] : task.judge.checks;
  const results: Array<{ result: CheckResult; weight: number }> = checks.map((c) => ({
    result: evaluateTargeted(c, response, toolsCalled, opts.workspace, opts.commandsRun),
    weight: c.weight ?? 1,
  }));
  const judgeReplies: LlmReply[] = [];
  const outcome = opts.workspace?.outcome;
  if (outcome) {
    const passed = outcome.exitCode === 0 && !outcome.timedOut;
    const why = outcome.timedOut ? `it was killed at its time limit` : `it exited with ${outcome.exitCode ?? 'no code'}`;
    results.push({
      weight: outcome.weight ?? 1,
      result: {
        checkId: OUTCOME_CHECK_ID,
        passed,
        score: passed ? 1 : 0,
        sealed: false,
        feedback: passed ? '' : `The project's check \`${outcome.command}\` failed in the workspace after the agent's changes: ${why}. ${outcome.tail.slice(-600)}`.trim(),
      },
    });
  }

  if (reference.kind === 'exact') {
    const passed = exactMatch(response, reference.answer, reference.normalize);
    results.push({
      weight: 1,
      result: {
        checkId: EXACT_CHECK_ID,
        passed,
        score: passed ? 1 : 0,
        sealed: false,
        feedback: passed ? '' : 'The final answer does not match the reference answer; give only the answer, in the expected form.',
      },
    });
  } else if (reference.kind === 'rubric' || reference.kind === 'outcome') {
    const { rubric, threshold } = rubricOf(task)!;
    const graded = await gradeRubric(task, rubric, withChanges(response, opts.workspace), judgeBackend, opts);
    judgeReplies.push(...graded.replies);
    const passed = graded.score >= threshold;
    results.push({
      weight: 1,
      result: {
        checkId: RUBRIC_CHECK_ID,
        passed,
        score: graded.score,
        sealed: false,
        feedback: graded.feedback ? `Rubric (${graded.score.toFixed(2)}): ${graded.feedback}` : passed ? '' : `Rubric score ${graded.score.toFixed(2)} is below ${threshold}.`,
      },
    });
  }

  const totalWeight = results.reduce((s, r) => s + r.weight, 0);
  const softScore = totalWeight > 0 ? results.reduce((s, r) => s + r.weight * r.result.score, 0) / totalWeight : 0;
  const hardScore = results.length > 0 && results.every((r) => r.result.passed) ? 1 : 0;
  const feedback = results
    .map((r) => (r.result.sealed ? '' : r.result.feedback))
    .filter((f) => f.length > 0)
    .join('\n');
  return { hardScore, softScore: clamp01(softScore), checks: results.map((r) => r.result), feedback, judgeReplies };
}

/** The rubric the judge role grades a task by, and its pass threshold; null when no judge model grades it. */
export function rubricOf(task: Task): { rubric: string; threshold: number } | null {
  const reference = task.judge.reference;
  if (reference.kind === 'rubric') return { rubric: reference.rubric, threshold: reference.passThreshold };
  if (reference.kind === 'outcome') return { rubric: `The work achieves this outcome: ${reference.description}`, threshold: 0.7 };
  return null;
}

/**
 * One rubric grade by the judge role. `fresh` asks the model again instead of the response cache
 * (and keeps the answer out of it): the judge audit (judge-audit.ts) re-grades with it.
 */
export async function gradeRubric(
  task: Task,
  rubric: string,
  response: string,
  judge: Backend | undefined,
  opts: { signal?: AbortSignal; runId?: string; fresh?: boolean },
): Promise<{ score: number; feedback: string; replies: LlmReply[] }> {
  if (!judge) {
    throw new SleepError('BACKEND_UNAVAILABLE', `task ${task.id} needs a judge model for its rubric, but no judge backend is configured`, {
      hint: 'set roles.judge in the config (see `skillopt-sleep doctor`)',
    });
  }
  const payload: JudgeRubricPayload = { rubric, intent: task.intent, response };
  const { value, replies } = await completeJson(
    judge,
    {
      role: 'judge',
      operation: 'judge_rubric',
      system: 'You grade a coding agent\'s response against a rubric. Reply with JSON only: {"score": number between 0 and 1, "feedback": "what is missing or wrong, in one or two sentences"}.',
      prompt: `## Task\n${task.intent}\n\n## Rubric\n${rubric}\n\n## Response\n${response}`,
      payload,
      temperature: 0,
      cacheable: opts.fresh !== true,
      runId: opts.runId,
    },
    JudgeRubricReply,
    opts.signal,
  );
  return { score: clamp01(value.score), feedback: value.feedback.trim(), replies };
}

/**
 * The text a check reads: the reply, a file the agent created or changed, or the whole diff.
 * `commandsRun` (the target's LlmReply.commandsRun) is what a `ran_command` check reads, whatever its target.
 */
export function evaluateTargeted(check: Check, response: string, toolsCalled: string[], workspace: ReplayWorkspace | undefined, commandsRun: readonly string[] = []): CheckResult {
  const target = check.target ?? 'reply';
  if (target === 'reply') return evaluateCheck(check, response, toolsCalled, 'the response', commandsRun);
  if (target === 'diff') return evaluateCheck(check, workspace?.diff ?? '', toolsCalled, 'the diff of the changes', commandsRun);
  const wanted = target.slice('file:'.length).replace(/^\.\//, '');
  const file = workspace?.changedFiles.find((f) => f.path === wanted && f.status !== 'deleted');
  if (!file) {
    return {
      checkId: check.id,
      passed: false,
      score: 0,
      sealed: check.sealed === true,
      feedback: check.sealed === true ? '' : `Failed check "${check.id}": the agent must change ${wanted} in the workspace; it did not.`,
    };
  }
  return evaluateCheck(check, file.content ?? '', toolsCalled, `the changed ${wanted}`, commandsRun);
}

/** The reply followed by what the agent changed in its workspace (capped), for a rubric judge. */
export function withChanges(response: string, workspace: ReplayWorkspace | undefined): string {
  if (!workspace || workspace.changedFiles.length === 0) return response;
  const list = workspace.changedFiles.map((f) => `- ${f.status}: ${f.path}`).join('\n');
  const diff = workspace.diff.length > JUDGE_DIFF_CHARS ? `${workspace.diff.slice(0, JUDGE_DIFF_CHARS)}\n[diff cut]` : workspace.diff;
  return `${response}\n\n## Files the agent changed\n${list}\n\n\`\`\`diff\n${diff}\n\`\`\``;
}

/** Normalized comparison: case, whitespace, surrounding quotes/backticks/punctuation ignored. */
export function normalizeAnswer(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/^```[^\n]*\n([\s\S]*?)\n?```$/m, '$1')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'`*_\s]+|["'`*_.!\s]+$/g, '');
}

/** The response is the answer, or ends with it on its own line, or states it as "answer: X". */
export function exactMatch(response: string, answer: string, normalize: boolean): boolean {
  if (!normalize) return response.trim() === answer.trim();
  const want = normalizeAnswer(answer);
  if (normalizeAnswer(response) === want) return true;
  const lines = response.split(/\r?\n/).filter((l) => l.trim() !== '');
  const last = lines[lines.length - 1] ?? '';
  if (normalizeAnswer(last) === want) return true;
  const stated = /(?:^|\n)\s*(?:final\s+)?answer\s*[:=]\s*(.+)\s*$/i.exec(response);
  return stated !== null && normalizeAnswer(stated[1]) === want;
}

function clamp01(x: number): number {
  if (!Number.isFinite(x)) return 0;
  return Math.min(1, Math.max(0, x));
}

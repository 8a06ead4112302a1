/**
 * REFLECT: the "backward pass". Train rollouts are split into failures (hard < 1: partial credit is
 * a failure, unlike upstream) and successes, never mixed in one call; each list is shuffled with the
 * step seed and cut into minibatches analysed in parallel. Patches come back sorted by minibatch,
 * so the result does not depend on completion order. Rollouts that failed to run (infra errors)
 * are not shown to the analysts: they say nothing about the skill.
 *
 * Skill-aware: the analyst labels each failure a skill `defect` or an execution `lapse` (the skill
 * already says it); an edit whose evidence is only lapses is dropped — another copy of a rule the
 * agent already ignored makes the skill longer, not better.
 */
import type { Edit, Rollout, Task } from '../../core/records.js';
import { ReflectReply, type FailureLabel, type ReflectPayload, type RejectedEditDigest, type RolloutDigest } from '../../core/protocol.js';
import { chunk, mapLimit, shuffled } from '../rng.js';
import { clip, renderPrompt } from './prompts.js';
import { askOptimizer, isSurvivable, type CallContext } from './call.js';
import { stripMarkers } from '../../skilldoc/segments.js';
import { optimizerView } from '../../mine/view.js';
import { attemptEvidence, EVIDENCE_BUDGET, fenced, renderEvidence, supersededCorrections } from './evidence.js';

export type EditSource = 'failure' | 'success';

/** An edit on its way through aggregate and select, with its provenance. */
export interface ProposedEdit {
  edit: Edit;
  source: EditSource;
  /** how many trajectories back it (evidence task ids), summed when edits are merged */
  support: number;
  /** merge level that produced it (0 = straight from an analyst) */
  level: number;
}

export interface Patch {
  id: string; // fail_000 | succ_000
  source: EditSource;
  taskIds: string[];
  edits: ProposedEdit[];
  /** the analyst's defect/lapse labels of this minibatch's failures */
  labels?: FailureLabel[];
  /** edits dropped because every task behind them was labelled a lapse */
  lapseOnly?: number;
}

export interface ReflectInput {
  call: CallContext;
  skill: string;
  scopeNote: string;
  rollouts: Rollout[];
  tasks: Map<string, Task>;
  rejected: RejectedEditDigest[];
  metaSkill: string;
  history: string;
  maxEdits: number;
  minibatchSize: number;
  seed: number;
  concurrency: number;
  failureOnly?: boolean;
  /** false only for the ablation: the defect/lapse labels are read but no edit is dropped for them */
  skillAware?: boolean;
}

export interface ReflectResult {
  patches: Patch[];
  errors: Array<{ minibatch: string; error: string }>;
  failures: number;
  successes: number;
  /** rollouts left out because they failed to run */
  infraErrors: number;
  /** failures the analysts labelled execution lapses (no rule written for them) */
  lapses: number;
}

export function isFailure(r: Rollout): boolean {
  return r.hardScore < 1;
}

export function digestRollout(r: Rollout, task: Task | undefined, superseded?: ReadonlySet<string>): RolloutDigest {
  return {
    taskId: r.taskId,
    intent: task?.intent ?? r.taskId,
    score: r.softScore,
    passed: r.hardScore >= 1,
    feedback: clip(r.feedback, EVIDENCE_BUDGET.feedback),
    ...attemptEvidence(r, task, superseded),
  };
}

export function renderAttempt(d: RolloutDigest, task: Task | undefined, i: number): string {
  const view = task ? optimizerView(task) : undefined; // no sealed check or exact answer reaches the optimizer
  return [
    `### Attempt ${i + 1} (task=${d.taskId})`,
    `Task: ${d.intent}`,
    view?.context ? `Context:\n${clip(view.context, 1000)}` : '',
    ...renderEvidence(d),
    `Result: ${d.passed ? 'PASS' : 'FAIL'} (soft=${d.score.toFixed(2)})`,
    d.feedback ? `Feedback:\n${d.feedback}` : '',
    `Response:\n${fenced(d.response)}`,
  ]
    .filter(Boolean)
    .join('\n');
}

/** Drops edits backed only by tasks the analyst labelled lapses (only failures are labelled). */
export function dropLapseOnly(edits: ProposedEdit[], labels: FailureLabel[]): { kept: ProposedEdit[]; dropped: number } {
  const lapses = new Set(labels.filter((l) => l.kind === 'lapse').map((l) => l.taskId));
  const defects = new Set(labels.filter((l) => l.kind === 'defect').map((l) => l.taskId));
  for (const id of defects) lapses.delete(id);
  if (!lapses.size) return { kept: edits, dropped: 0 };
  const kept = edits.filter((p) => !p.edit.evidence.length || p.edit.evidence.some((id) => !lapses.has(id)));
  return { kept, dropped: edits.length - kept.length };
}

export function renderRejected(rejected: RejectedEditDigest[]): string {
  if (!rejected.length) return '';
  const lines = rejected.map((r, i) => {
    const drop = r.scoreDrop === null ? 'n/a' : r.scoreDrop.toFixed(3);
    const where = r.anchor ? ` anchor="${clip(r.anchor, 80)}"` : '';
    return `${i + 1}. [${r.op}]${where} "${clip(r.content, 200)}" (${r.source === 'user' ? 'rejected by the user' : `validation drop ${drop}`})`;
  });
  return `\n## Rejected edits (do not propose these again)\n${lines.join('\n')}\n`;
}

export function renderMeta(meta: string): string {
  if (!meta.trim()) return '';
  return `\n## Optimizer Meta Skill\nOptimizer-side memory distilled from earlier epochs. Prefer it when the evidence is ambiguous; do not force it when the trajectories contradict it.\n\n${meta.trim()}\n`;
}

/** Keeps analyst edits well-formed: markers stripped, evidence limited to the minibatch's tasks. */
export function sanitizeEdits(edits: Edit[], taskIds: string[], maxEdits: number, source: EditSource): ProposedEdit[] {
  const allowed = new Set(taskIds);
  return edits.slice(0, Math.max(0, maxEdits)).map((e) => {
    const evidence = (e.evidence ?? []).filter((id) => allowed.has(id));
    const edit: Edit = {
      op: e.op,
      ...(e.anchor !== undefined && e.anchor.trim() !== '' ? { anchor: stripMarkers(e.anchor) } : {}),
      content: stripMarkers(e.content ?? ''),
      rationale: e.rationale ?? '',
      evidence: evidence.length ? evidence : taskIds.slice(),
    };
    return { edit, source, support: Math.max(1, evidence.length), level: 0 };
  });
}

export async function reflect(input: ReflectInput): Promise<ReflectResult> {
  const usable = input.rollouts.filter((r) => !r.error);
  const failures = shuffled(usable.filter(isFailure), input.seed);
  const successes = input.failureOnly ? [] : shuffled(usable.filter((r) => !isFailure(r)), input.seed + 1);
  const jobs = [
    ...chunk(failures, input.minibatchSize).map((batch, i) => ({ id: `fail_${String(i).padStart(3, '0')}`, source: 'failure' as const, batch })),
    ...chunk(successes, input.minibatchSize).map((batch, i) => ({ id: `succ_${String(i).padStart(3, '0')}`, source: 'success' as const, batch })),
  ];
  const errors: ReflectResult['errors'] = [];
  const superseded = supersededCorrections(input.tasks.values());
  const results = await mapLimit(jobs, input.concurrency, async (job): Promise<Patch | null> => {
    const digests = job.batch.map((r) => digestRollout(r, input.tasks.get(r.taskId), superseded));
    const payload: ReflectPayload = {
      skill: input.skill,
      mode: job.source === 'failure' ? 'failures' : 'successes',
      rollouts: digests,
      rejectedEdits: input.rejected,
      metaSkill: input.metaSkill,
      maxEdits: input.maxEdits,
    };
    const rendered = renderPrompt(job.source === 'failure' ? 'reflect_failures' : 'reflect_successes', {
      skill: input.skill,
      scope_note: input.scopeNote,
      max_edits: input.maxEdits,
      history: input.history,
      rejected: renderRejected(input.rejected),
      meta: renderMeta(input.metaSkill),
      count: digests.length,
      rollouts: digests.map((d, i) => renderAttempt(d, input.tasks.get(d.taskId), i)).join('\n---\n'),
    });
    try {
      const reply = await askOptimizer(input.call, 'reflect', 'reflect', payload, rendered, ReflectReply);
      const taskIds = job.batch.map((r) => r.taskId);
      const ids = new Set(taskIds);
      const labels = job.source === 'failure' ? reply.failures.filter((l) => ids.has(l.taskId)) : [];
      const sane = sanitizeEdits(reply.edits, taskIds, input.maxEdits, job.source);
      const { kept, dropped } = input.skillAware === false ? { kept: sane, dropped: 0 } : dropLapseOnly(sane, labels);
      return { id: job.id, source: job.source, taskIds, edits: kept, labels, lapseOnly: dropped };
    } catch (err) {
      if (!isSurvivable(err)) throw err;
      errors.push({ minibatch: job.id, error: (err as Error).message });
      return null;
    }
  });
  return {
    patches: results.filter((p): p is Patch => p !== null && p.edits.length > 0),
    errors: errors.sort((a, b) => a.minibatch.localeCompare(b.minibatch)),
    failures: failures.length,
    successes: successes.length,
    infraErrors: input.rollouts.length - usable.length,
    lapses: results.reduce((a, p) => a + (p?.labels?.filter((l) => l.kind === 'lapse').length ?? 0), 0),
  };
}

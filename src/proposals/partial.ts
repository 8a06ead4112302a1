/**
 * Partial apply: the user keeps only some of a proposal's accepted edits. The chosen subset is
 * re-applied, in the original order, to the document training started from (`start.md` in the
 * proposal folder: the live base, or the scaffold of a new skill), and — for the review screen —
 * re-scored on the validation tasks (from the rollout cache when the same text was already scored).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Edit, Proposal, Task } from '../core/records.js';
import type { Backend } from '../core/protocol.js';
import type { Progress } from '../core/progress.js';
import { SleepError, throwIfAborted } from '../core/errors.js';
import { sha256 } from '../core/fsutil.js';
import { requireProposal } from '../store/repos/proposals.js';
import { getTask } from '../store/repos/tasks.js';
import { applyEdits } from '../skilldoc/edits.js';
import { scoreSkill, type GateMetric } from '../replay/index.js';
import { guardPartialContent, stagedRemovals } from './staging-guard.js';

/** Where edits may land for this target: the whole document of our managed skill, else the learned region. */
export function editScopeFor(p: Proposal): 'document' | 'learned' {
  const recorded = readReportScope(p);
  if (recorded) return recorded;
  return p.skillTarget.kind === 'managed' ? 'document' : 'learned';
}

/** The edit scope report.json recorded, when the report is this proposal's own (same id and candidate). */
function readReportScope(p: Proposal): 'document' | 'learned' | null {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(p.dir, 'report.json'), 'utf8')) as { id?: unknown; candidateHash?: unknown; editScope?: unknown };
    if (r.id !== p.id || r.candidateHash !== sha256(p.candidate)) return null;
    return r.editScope === 'document' || r.editScope === 'learned' ? r.editScope : null;
  } catch {
    return null;
  }
}

/**
 * The document training started from, checked: `start.md` (or `base.md`) of the proposal folder
 * only when its hash is the one the store recorded at staging (`startHash`; for a proposal staged
 * before that was recorded, the base's hash). The folder is plain files a user or a tool can edit,
 * and a partial apply writes what it rebuilds from them to the live skill.
 */
export function startContent(p: Proposal): string {
  const expected = p.startHash ?? (p.baseHash !== '' ? p.baseHash : null);
  const read = (name: string) => {
    try {
      return fs.readFileSync(path.join(p.dir, name), 'utf8');
    } catch {
      return undefined;
    }
  };
  const text = read('start.md') ?? read('base.md');
  if (text === undefined) throw new SleepError('NOT_FOUND', `proposal folder ${p.dir} has no start.md or base.md`, { hint: 'the proposal folder was removed; apply the whole proposal or run a new night' });
  if (expected !== null && sha256(text) === expected) return text;
  throw new SleepError('INVALID_INPUT', expected === null
    ? `cannot check ${path.join(p.dir, 'start.md')}: proposal ${p.id} was staged before its start was recorded, and it starts from no base`
    : `${path.join(p.dir, 'start.md')} is not what proposal ${p.id} was staged with (sha256 ${expected.slice(0, 12)} expected): it was edited, so a partial apply will not rebuild the skill from it`, {
    hint: `apply the whole proposal (\`skillopt-sleep apply ${p.id}\` without --only), or run a new night`,
  });
}

/** The skill text with only `editIds` (accepted edits of the proposal) applied. */
export function contentForEdits(p: Proposal, editIds: string[], _paths?: SleepPaths): string {
  const accepted = p.edits.filter((e) => e.status === 'accepted');
  const unknown = editIds.filter((id) => !accepted.some((e) => e.id === id));
  if (unknown.length) {
    throw new SleepError('INVALID_INPUT', `not accepted edits of proposal ${p.id}: ${unknown.join(', ')}`, {
      hint: `\`skillopt-sleep proposals show ${p.id}\` lists the edit ids (${accepted.map((e) => e.id).join(', ') || 'none'})`,
    });
  }
  const chosen: Edit[] = accepted
    .filter((e) => editIds.includes(e.id))
    .map((e) => ({ op: e.op, anchor: e.anchor, content: e.content, rationale: e.rationale, evidence: e.evidence }));
  const { content, results } = applyEdits(startContent(p), chosen, { scope: editScopeFor(p) });
  const failed = results.filter((r) => r.status === 'unmatched');
  if (failed.length) {
    throw new SleepError('INVALID_INPUT', `${failed.length} of the chosen edits no longer apply without the others (${failed.map((f) => f.reason).join(', ')})`, {
      hint: 'include the edits they depend on, or apply the whole proposal',
    });
  }
  // only rules reach a live file: no empty heading left by the edits not chosen, nothing staging refused
  return guardPartialContent(content, startContent(p), stagedRemovals(p.dir));
}

export interface RescoreOptions {
  target: Backend;
  judge?: Backend;
  metric: GateMetric;
  mixedWeight?: number;
  /** validation tasks; default: the proposal's validation tasks loaded from the store */
  tasks?: Task[];
  signal?: AbortSignal;
  progress?: Progress;
}

export interface RescoreResult {
  content: string;
  editIds: string[];
  baselineScore: number;
  fullScore: number;
  subsetScore: number;
  perTask: Array<{ taskId: string; before: number; after: number }>;
}

export function loadTasksById(db: Db, ids: string[]): Task[] {
  return ids.map((id) => getTask(db, id)).filter((t): t is Task => t !== undefined);
}

/**
 * Re-scores a subset of a proposal's accepted edits on its validation tasks (for the TUI). When
 * `opts.signal` fires the replay stops and this rejects with SleepError ABORTED: finished rollouts
 * stay in the cache, but no mean over a partial set of tasks is ever returned as the score.
 */
export async function rescoreSubset(db: Db, proposalId: string, editIds: string[], opts: RescoreOptions): Promise<RescoreResult> {
  throwIfAborted(opts.signal);
  const p = requireProposal(db, proposalId);
  const content = contentForEdits(p, editIds);
  const valRows = p.perTask.filter((t) => t.split === 'val');
  const tasks = opts.tasks ?? loadTasksById(db, valRows.map((t) => t.taskId));
  if (tasks.length === 0) {
    throw new SleepError('NOT_FOUND', `the validation tasks of proposal ${p.id} are no longer in the store`, { hint: 'apply the whole proposal, or run a new night' });
  }
  const score = await scoreSkill({
    db,
    tasks,
    skill: { name: p.skillTarget.name, content },
    target: opts.target,
    judge: opts.judge,
    metric: opts.metric,
    mixedWeight: opts.mixedWeight,
    signal: opts.signal,
    progress: opts.progress,
    label: 'rescoring the chosen edits',
  });
  // the replay batch already throws ABORTED; checked again so a cancelled call can never return a score
  throwIfAborted(opts.signal);
  const before = new Map(valRows.map((t) => [t.taskId, t.before]));
  return {
    content,
    editIds,
    baselineScore: p.baselineScore,
    fullScore: p.candidateScore,
    subsetScore: score.mean,
    perTask: score.perTask.map((t) => ({ taskId: t.taskId, before: before.get(t.taskId) ?? Number.NaN, after: t.score })),
  };
}

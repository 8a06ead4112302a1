/**
 * The rollout cache (`rollouts` table): a judged rollout is stored under a key made of the skill
 * content hash, the task (id and everything the target or the judge sees), the target backend and
 * model, and the sample index. Re-scoring an unchanged skill on an unchanged task is then free.
 * Failed rollouts (with `error`) are never cached, so a retry really retries.
 */
import type { Db } from '../store/db.js';
import { deleteTaskRollouts, getRolloutRecord, putRolloutRecord } from '../store/repos/rollouts.js';
import { RolloutSchema, type Rollout, type Task } from '../core/records.js';
import type { Backend, ReplaySeed } from '../core/protocol.js';
import { sha256 } from '../core/fsutil.js';

// One skill is hashed for every rollout of a batch: remember the last few (keyed by the content itself).
const SKILL_HASHES = new Map<string, string>();

export function skillHash(content: string): string {
  let h = SKILL_HASHES.get(content);
  if (h === undefined) {
    h = sha256(content);
    if (SKILL_HASHES.size >= 16) SKILL_HASHES.delete(SKILL_HASHES.keys().next().value as string);
    SKILL_HASHES.set(content, h);
  }
  return h;
}

/** What of the task changes the rollout or its judgement; the id alone would miss edited checks. */
export function taskFingerprint(task: Task): string {
  return sha256(JSON.stringify([task.id, task.intent, task.context, task.judge]));
}

export interface RolloutKeyParts {
  skill: { name: string; content: string };
  task: Task;
  target: Pick<Backend, 'name' | 'model' | 'replayVariant'>;
  /** only when the task needs the judge model (rubric/outcome) */
  judge?: Pick<Backend, 'name' | 'model'>;
  sample: number;
  /** the repository state the replay starts from (only part of the key for workspace backends) */
  seed?: ReplaySeed;
}

export function needsJudgeModel(task: Task): boolean {
  const k = task.judge.reference.kind;
  return k === 'rubric' || k === 'outcome';
}

export function rolloutCacheKey(p: RolloutKeyParts): string {
  const judge = needsJudgeModel(p.task) && p.judge ? `${p.judge.name}/${p.judge.model}` : '';
  const parts: unknown[] = ['rollout/v1', skillHash(p.skill.content), p.skill.name, taskFingerprint(p.task), `${p.target.name}/${p.target.model}`, judge, p.sample];
  // an agent CLI's result also depends on its workspace settings and the commit it starts from:
  // a rollout made in an empty workspace must not answer for one in the seeded repository
  const variant = p.target.replayVariant?.(p.task.project) ?? '';
  if (variant) parts.push(variant, p.seed ? [p.seed.repo, p.seed.branch ?? null, p.seed.before ?? null] : null);
  return sha256(JSON.stringify(parts));
}

export class RolloutCache {
  constructor(private readonly db: Db) {}

  get(key: string): Rollout | null {
    const record = getRolloutRecord(this.db, key);
    if (record === undefined) return null;
    try {
      const parsed = RolloutSchema.safeParse(JSON.parse(record));
      return parsed.success ? parsed.data : null; // an unreadable row is a miss, not a crash
    } catch {
      return null;
    }
  }

  put(key: string, rollout: Rollout, now: number = Date.now()): void {
    if (rollout.error) return;
    putRolloutRecord(this.db, { cacheKey: key, taskId: rollout.taskId, skillHash: rollout.skillHash, record: JSON.stringify({ ...rollout, cached: false }), createdAt: now });
  }

  /** Several rollouts in one transaction (one commit instead of one per row). */
  putMany(entries: Array<{ key: string; rollout: Rollout }>, now: number = Date.now()): void {
    if (entries.length === 0) return;
    this.db.transaction(() => {
      for (const e of entries) this.put(e.key, e.rollout, now);
    })();
  }

  /** Drops cached rollouts of one task (e.g. after its checks were edited by the user). */
  forgetTask(taskId: string): number {
    return deleteTaskRollouts(this.db, taskId);
  }
}

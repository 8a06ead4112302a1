/**
 * A person's edits of the mined families, which also undo the LLM cluster review: `splitFamily`
 * takes back the asks a merge folded into a family (into the cluster they came from), and
 * `mergeFamilies` folds one family into another (undoing a split, or fixing one the miner missed).
 * Both keep every task id and split, record the decision, and mark the sessions involved for
 * re-reading, so the next mining run rewrites the families' tasks. A pair split apart by a person
 * is never merged again automatically.
 */
import type { Db } from '../store/db.js';
import type { Config } from '../core/config.js';
import { SleepError } from '../core/errors.js';
import { markSessionsUnmined, moveMembers, moveTasksOfMembers, recountSessions } from '../store/repos/mining.js';
import { IntentClusterer } from './cluster.js';
import { featuresOf } from './features.js';
import { keyOf } from './normalize.js';
import { clusterMembers, dbClusterSource, loadDf, persistState } from './state.js';
import { apartKey, loadReviewState, saveReviewState, type ReviewDecision } from './cluster-review.js';

export interface FamilyEdit {
  kind: 'split' | 'merge';
  /** the family kept (split: the one split from; merge: the survivor) */
  cluster: string;
  /** split: the family re-created; merge: the family absorbed */
  other: string;
  moved: number;
  undid?: ReviewDecision;
}

/** Splits off the asks the latest merge into `clusterId` brought in (by the review or a person). */
export function splitFamily(db: Db, config: Config, clusterId: string, now = Date.now()): FamilyEdit {
  const state = loadReviewState(db);
  const decision = [...state.decisions].reverse().find((d) => d.kind === 'merge' && d.cluster === clusterId);
  if (!decision) {
    throw new SleepError('NOT_FOUND', `family ${clusterId} has no merge to undo`, { hint: '`skillopt-sleep tasks list` shows the review decisions of each family' });
  }
  const movedKeys = new Set(decision.moved);
  const members = clusterMembers(db, clusterId, 1_000_000).filter((m) => movedKeys.has(`${m.sessionId}#${m.seq}`));
  const df = loadDf(db);
  const clusterer = new IntentClusterer(dbClusterSource(db), df, { threshold: config.mining.threshold, now });
  const sessions = new Set(members.map((m) => m.sessionId));
  const made = clusterer.splitOff(clusterId, decision.other, members.map((m) => featuresOf(keyOf(m.prompt))), sessions);
  if (!made) {
    throw new SleepError('INVALID_INPUT', `family ${clusterId}: nothing left to split off (its merged asks are gone or are the whole family)`, {
      hint: 'use `skillopt-sleep tasks merge` to combine families instead',
    });
  }
  const rows = members.map((m) => ({ sessionId: m.sessionId, seq: m.seq }));
  db.transaction(() => {
    persistState(db, clusterer.changed(), [], df, now);
    moveMembers(db, decision.other, rows);
    moveTasksOfMembers(db, clusterId, decision.other, rows);
    recountSessions(db, clusterId);
    recountSessions(db, decision.other);
    state.apart = [...new Set([...state.apart, apartKey(clusterId, decision.other)])];
    state.decisions.push({ at: now, by: 'user', kind: 'split', cluster: clusterId, other: decision.other, moved: [...movedKeys] });
    saveReviewState(db, state, now);
    markSessionsUnmined(db, [...sessions, ...clusterMembers(db, clusterId, 1_000_000).map((m) => m.sessionId)]);
  }).immediate();
  return { kind: 'split', cluster: clusterId, other: decision.other, moved: members.length, undid: decision };
}

/** Folds family `drop` into family `keep` (or the other way round when `keep` is the smaller one). */
export function mergeFamilies(db: Db, config: Config, a: string, b: string, now = Date.now()): FamilyEdit {
  if (a === b) throw new SleepError('INVALID_INPUT', 'cannot merge a family with itself', { hint: 'give two different families' });
  const df = loadDf(db);
  const clusterer = new IntentClusterer(dbClusterSource(db), df, { threshold: config.mining.threshold, now });
  for (const id of [a, b]) {
    if (!clusterer.get(id)) throw new SleepError('NOT_FOUND', `no family ${id}`, { hint: '`skillopt-sleep tasks list` shows the families (the cl_… ids)' });
  }
  const keep = clusterer.mergeClusters(a, b);
  if (!keep) throw new SleepError('INVALID_INPUT', `families ${a} and ${b} cannot be merged`, { hint: 'check both ids with `skillopt-sleep tasks list`' });
  const drop = keep === a ? b : a;
  const dropped = clusterMembers(db, drop, 1_000_000);
  const state = loadReviewState(db);
  db.transaction(() => {
    persistState(db, clusterer.changed(), [], df, now, [[drop, keep]]);
    recountSessions(db, keep);
    state.apart = state.apart.filter((p) => p !== apartKey(a, b));
    if (state.names[drop] && !state.names[keep]) state.names[keep] = state.names[drop];
    delete state.names[drop];
    state.decisions.push({ at: now, by: 'user', kind: 'merge', cluster: keep, other: drop, moved: dropped.map((m) => `${m.sessionId}#${m.seq}`) });
    saveReviewState(db, state, now);
    markSessionsUnmined(db, [...dropped.map((m) => m.sessionId), ...clusterMembers(db, keep, 1_000_000).map((m) => m.sessionId)]);
  }).immediate();
  return { kind: 'merge', cluster: keep, other: drop, moved: dropped.length };
}

/** The review decisions and job names of the families, for `tasks list`. */
export function familyReview(db: Db): { names: Record<string, string>; decisions: ReviewDecision[] } {
  const s = loadReviewState(db);
  return { names: s.names, decisions: s.decisions };
}

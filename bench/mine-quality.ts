/**
 * Quality figures of a mined store against a labelled paraphrase corpus: pairwise precision and
 * recall counted over pairs of asks within one project (two projects' asks are never one task),
 * corrections mined as asks, follow-up asks swallowed as corrections, and families made
 * cross-project only by sessions without a project.
 */
import type { Db } from '../src/store/db.js';
import { clusterAssignments, familyProjectsOfTasks } from '../src/store/repos/mining.js';
import type { ParaphraseCorpus } from './mine-paraphrase.js';

export interface ParaphraseScores {
  precision: number;
  recall: number;
  /** labelled asks that were not mined as asks */
  missingAsks: number;
  /** correction prompts that were mined as asks (should be 0) */
  correctionsAsAsks: number;
  corrections: number;
  /** follow-up asks that were not mined as asks (taken for a reaction; should be 0) */
  followUpsLost: number;
  followUps: number;
  /** families with a cross-project task whose only other "project" is a session without one */
  crossProjectByNull: number;
}

const pairs = (n: number) => (n * (n - 1)) / 2;

/** Pairwise scores within each project; `assign` maps `sid#seq` → cluster (defaults to the store's clusters). */
export function paraphraseScores(db: Db, corpus: ParaphraseCorpus, assign?: Map<string, string>): ParaphraseScores {
  const clusterOf = assign ?? new Map(clusterAssignments(db).map((r) => [`${r.sessionId}#${r.seq}`, r.clusterId]));
  const byProject = new Map<string, Array<{ cluster: string; label: string }>>();
  let missingAsks = 0;
  for (const [key, label] of corpus.labels) {
    const cluster = clusterOf.get(key);
    if (cluster === undefined) {
      missingAsks++;
      continue;
    }
    const sid = key.slice(0, key.lastIndexOf('#'));
    const p = corpus.projects.get(sid) ?? '(none)';
    const list = byProject.get(p) ?? [];
    list.push({ cluster, label });
    byProject.set(p, list);
  }
  let tp = 0;
  let predicted = 0;
  let truth = 0;
  for (const items of byProject.values()) {
    const cell = new Map<string, number>();
    const byCluster = new Map<string, number>();
    const byLabel = new Map<string, number>();
    for (const { cluster, label } of items) {
      cell.set(`${cluster}\u0000${label}`, (cell.get(`${cluster}\u0000${label}`) ?? 0) + 1);
      byCluster.set(cluster, (byCluster.get(cluster) ?? 0) + 1);
      byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
    }
    for (const n of cell.values()) tp += pairs(n);
    for (const n of byCluster.values()) predicted += pairs(n);
    for (const n of byLabel.values()) truth += pairs(n);
  }
  let correctionsAsAsks = 0;
  for (const key of corpus.corrections.keys()) if (clusterOf.has(key)) correctionsAsAsks++;
  let followUpsLost = 0;
  for (const key of corpus.followUps) if (!clusterOf.has(key)) followUpsLost++;
  // a family is cross-project because of a project-less session when its known projects are one
  let crossProjectByNull = 0;
  for (const f of familyProjectsOfTasks(db)) {
    const known = f.memberProjects.filter((p): p is string => p !== null);
    if (f.taskProject === null && new Set(known).size === 1 && f.memberProjects.includes(null)) crossProjectByNull++;
  }
  return {
    precision: predicted ? tp / predicted : 1,
    recall: truth ? tp / truth : 1,
    missingAsks,
    correctionsAsAsks,
    corrections: corpus.corrections.size,
    followUpsLost,
    followUps: corpus.followUps.size,
    crossProjectByNull,
  };
}

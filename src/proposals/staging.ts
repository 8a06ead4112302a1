/**
 * Staging: turns a trained candidate into a proposal that waits for the user. A proposal is a
 * store row plus `proposals/<id>/` holding:
 *   <native file name>   the candidate in the agent's format (SKILL.md, AGENTS.md, x.instructions.md)
 *   base.md, base.sha256 the live file as it was when training started ('' hash = it did not exist)
 *   start.md             the document training started from (base, or a new skill's scaffold)
 *   changes.diff         unified diff base → candidate
 *   report.md, report.json, evidence.jsonl
 * The folder is assembled under a hidden temp name and renamed into place, then the row is
 * inserted: a crash leaves either nothing visible or a complete folder (an orphan folder without a
 * row is cleaned by `recoverInterrupted`). Staging never touches the live file. A proposal still
 * waiting for the same file becomes `superseded` (never a ban on its edits), unless the new one is
 * the same text for the same base: then nothing is staged and the waiting one stays as it is.
 * The candidate passes the staging guard first (staging-guard.ts): only rules reach a proposal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { EditRecord, Proposal, SkillTarget, Split } from '../core/records.js';
import { assertDerivedTarget } from './targets.js';
import { assessRisk } from './provenance.js';
import { ensurePrivateDir, fsyncDir, sha256, writeFileAtomic } from '../core/fsutil.js';
import { newId } from '../core/ids.js';
import { insertProposal, listProposals, setProposalUserSkillPath, supersedeWaitingProposals } from '../store/repos/proposals.js';
import { correctionSessionCounts } from '../store/repos/corrections.js';
import { SleepError } from '../core/errors.js';
import { describeRemovals, guardSkillContent, isInstanceSpecific, normalizeRule, type GuardResult } from './staging-guard.js';
import { renderProposalReport, type ProposalReport } from './staging-report.js';
import { proposalRuleEvidence } from './rule-evidence.js';

/** What staging needs from a training result (the trainer's TrainResult satisfies it structurally). */
export interface StageableResult {
  /** the gate passed: the candidate strictly beat the base on validation */
  accepted: boolean;
  baselineScore: number;
  candidateScore: number;
  perTask?: Array<{ taskId: string; split: Split; before: number; after: number }>;
  edits?: EditRecord[];
  gateTrials?: unknown[];
  notes?: string[];
}

export interface StageInput {
  target: SkillTarget;
  /** the live file's content at base time; null when it did not exist */
  baseContent: string | null;
  candidate: string;
  /** the document training started from (the base, or the scaffold of a new skill); default base */
  startContent?: string;
  /** the wording lint's token budget (config `training.skillTokenBudget`; default DEFAULT_SKILL_TOKEN_BUDGET) */
  tokenBudget?: number;
  /** where training was allowed to edit; recorded so a partial apply re-applies edits the same way */
  editScope?: 'document' | 'learned';
  result: StageableResult;
  runId: string | null;
  nightId?: string | null;
  /** held-out test scores, evidence only (never read by the gate) */
  test?: { before: number; after: number; perTask?: Array<{ taskId: string; before: number; after: number }> } | null;
  budget?: { usd: number; tokens: number; calls: number; limits?: Record<string, unknown> } | null;
  backends?: Record<string, { backend: string; model: string }>;
  /** evidence lines (objects, one JSON line each) for `evidence.jsonl` */
  evidence?: unknown[];
  notes?: string[];
  now?: number;
  /** the `--skill <path>` the user typed, when the target came from it (targets.ts) */
  userSkillPath?: string;
  /** the environment the target was derived in (HOME, CODEX_HOME…); default process.env */
  env?: NodeJS.ProcessEnv;
}

/** File name of the candidate inside the proposal folder: the live file's own name. */
export function candidateFileName(target: SkillTarget): string {
  return path.basename(target.path);
}

export function proposalDir(paths: SleepPaths, id: string): string {
  return path.join(paths.proposalsDir, id);
}

/**
 * Unified diff base → candidate. Myers' diff is quadratic on large, very different texts, so it
 * gets a time limit; past it the diff is written as "replace every line" (still a valid patch).
 */
export function unifiedDiff(target: SkillTarget, base: string, candidate: string, timeoutMs = 2000): string {
  const a = `a/${target.name}/${candidateFileName(target)}`;
  const b = `b/${target.name}/${candidateFileName(target)}`;
  if (base.length + candidate.length > 1_000_000) return wholeFileDiff(a, b, base, candidate);
  const patch = createTwoFilesPatch(a, b, base, candidate, 'live', 'proposed', { timeout: timeoutMs });
  return patch ?? wholeFileDiff(a, b, base, candidate);
}

function wholeFileDiff(a: string, b: string, base: string, candidate: string): string {
  const lines = (t: string) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
  const oldL = lines(base);
  const newL = lines(candidate);
  const range = (n: number) => (n === 0 ? '0,0' : `1,${n}`);
  return [
    '===================================================================',
    `--- ${a}\tlive`,
    `+++ ${b}\tproposed`,
    `@@ -${range(oldL.length)} +${range(newL.length)} @@`,
    ...oldL.map((l) => `-${l}`),
    ...newL.map((l) => `+${l}`),
    '',
  ].join('\n');
}

/**
 * Normalized texts of the one-off corrections: said in one session only, and worded about that one
 * output (staging-guard `isInstanceSpecific`). A general correction said once stays a rule.
 */
export function oneOffCorrections(db: Db): Set<string> {
  const sessions = new Map<string, Set<string>>();
  for (const c of correctionSessionCounts(db)) {
    const key = normalizeRule(c.text);
    if (!key || !isInstanceSpecific(c.text)) continue;
    const set = sessions.get(key) ?? new Set<string>();
    for (const s of c.sessionIds) set.add(s);
    sessions.set(key, set);
  }
  return new Set([...sessions].filter(([, s]) => s.size < 2).map(([k]) => k));
}

/** The guard over a text that may reach the live file, with what the store knows of one-off corrections. */
export function guardForTarget(db: Db, text: string, start: string | null, tokenBudget?: number): GuardResult {
  return guardSkillContent(text, { start, oneOffCorrections: oneOffCorrections(db), tokenBudget });
}

/** The proposal still waiting for `file` with exactly this base and candidate, if any. */
function identicalWaiting(db: Db, file: string, baseHash: string, candidateHash: string): Proposal | undefined {
  return listProposals(db, { status: ['staged', 'stale'] }).find((p) => p.skillTarget.path === file && p.baseHash === baseHash && sha256(p.candidate) === candidateHash);
}

/** The run's notes the guard took out of the candidate go to the run's folder, beside its other files. */
function writeRunNotes(paths: SleepPaths, runId: string | null, notes: string[]): void {
  if (!runId || !notes.length) return;
  const dir = path.join(paths.runsDir, runId);
  ensurePrivateDir(dir);
  writeFileAtomic(path.join(dir, 'run-notes.md'), `# Notes of run ${runId}\n\nWritten by the trainer between epochs; kept here, never in the skill.\n\n${notes.join('\n')}\n`, { mode: 0o600 });
}

function runNotesNote(paths: SleepPaths, runId: string | null, notes: string[]): string[] {
  if (!notes.length) return [];
  return [`${notes.length} line(s) of the trainer's notes kept out of the skill${runId ? `: ${path.join(paths.runsDir, runId, 'run-notes.md')}` : ''}`];
}

export function stageProposal(db: Db, paths: SleepPaths, input: StageInput): Proposal {
  assertDerivedTarget(db, input.target, { env: input.env, userSkillPath: input.userSkillPath });
  const userTyped = !!input.userSkillPath && path.resolve(input.userSkillPath) === input.target.path;
  const base = input.baseContent ?? '';
  const guarded = guardForTarget(db, input.candidate, input.startContent ?? input.baseContent, input.tokenBudget);
  const candidate = guarded.content;
  writeRunNotes(paths, input.runId, guarded.runNotes);
  if (candidate === base) {
    throw new SleepError('INVALID_INPUT', `nothing left to propose for ${input.target.path}: the staging guard took out every change (${guarded.removed.length} line(s))`, {
      hint: 'nothing was staged and the live file is unchanged; the next night trains again',
    });
  }
  const baseHash = input.baseContent === null ? '' : sha256(input.baseContent);
  // the same text for the same base is already waiting: re-staging it (a night served from the
  // cache) would supersede the proposal the user has not read yet with its own copy
  const twin = identicalWaiting(db, input.target.path, baseHash, sha256(candidate));
  if (twin) return twin;
  // the lint's shapes, and the provenance of the new text (never tool output alone)
  const risk = assessRisk(db, base, candidate, input.result.edits ?? []);
  const now = input.now ?? Date.now();
  const id = newId('p');
  const diff = unifiedDiff(input.target, base, candidate);
  const perTask = [
    ...(input.result.perTask ?? []),
    ...(input.test?.perTask ?? []).map((t) => ({ ...t, split: 'test' as const })),
  ];
  const dir = proposalDir(paths, id);
  const proposal: Proposal = {
    id,
    runId: input.runId,
    nightId: input.nightId ?? null,
    skillTarget: input.target,
    baseHash,
    startHash: sha256(input.startContent ?? base),
    candidate,
    diff,
    baselineScore: input.result.baselineScore,
    candidateScore: input.result.candidateScore,
    testBefore: input.test?.before ?? null,
    testAfter: input.test?.after ?? null,
    perTask,
    edits: input.result.edits ?? [],
    status: 'staged',
    createdAt: now,
    decidedAt: null,
    reason: null,
    dir,
  };
  // each rule's outcome evidence ("you changed `Fix` to `fix(cli):` in 4 of 5 commits"), shown in review
  const ruleEvidence = proposalRuleEvidence(db, candidate, perTask.map((t) => t.taskId));
  if (ruleEvidence.length) proposal.ruleEvidence = ruleEvidence;
  const report: ProposalReport = {
    schema: 'skillopt-sleep.proposal.v1',
    id,
    runId: input.runId,
    nightId: input.nightId ?? null,
    createdAt: new Date(now).toISOString(),
    target: input.target,
    baseHash,
    candidateHash: sha256(candidate),
    editScope: input.editScope ?? (input.target.kind === 'managed' ? 'document' : 'learned'),
    gate: { accepted: input.result.accepted, baselineScore: input.result.baselineScore, candidateScore: input.result.candidateScore, trials: input.result.gateTrials ?? [] },
    test: input.test ? { before: input.test.before, after: input.test.after } : null,
    perTask,
    edits: {
      accepted: proposal.edits.filter((e) => e.status === 'accepted'),
      rejected: proposal.edits.filter((e) => e.status === 'rejected'),
      unmatched: proposal.edits.filter((e) => e.status === 'unmatched'),
    },
    budget: input.budget ?? null,
    backends: input.backends ?? {},
    notes: [...(input.result.notes ?? []), ...(input.notes ?? []), ...describeRemovals(guarded.removed, guarded.rewrites), ...runNotesNote(paths, input.runId, guarded.runNotes), ...risk.map((f) => `RISK ${f.rule}: ${f.why} — "${f.line}" (apply needs --force-risky)`)],
    risk,
    guard: { removed: guarded.removed },
    // kept on disk so `doctor --repair` gives the rebuilt proposal the same allowance at apply
    ...(userTyped ? { userSkillPath: input.target.path } : {}),
  };

  ensurePrivateDir(paths.proposalsDir);
  const tmp = path.join(paths.proposalsDir, `.${id}.${process.pid}.tmp`);
  ensurePrivateDir(tmp);
  const put = (name: string, data: string) => writeFileAtomic(path.join(tmp, name), data, { mode: 0o600 });
  put(candidateFileName(input.target), candidate);
  put('base.md', base);
  put('base.sha256', `${baseHash}\n`);
  put('start.md', input.startContent ?? base);
  put('changes.diff', diff);
  put('report.json', JSON.stringify(report, null, 2) + '\n');
  put('report.md', renderProposalReport(report));
  put('evidence.jsonl', (input.evidence ?? []).map((e) => JSON.stringify(e)).join('\n') + ((input.evidence ?? []).length ? '\n' : ''));
  fs.renameSync(tmp, dir);
  fsyncDir(paths.proposalsDir);
  // one live proposal per file: the newer night's proposal replaces the one still waiting, so the
  // user never reviews (or rejects) the same edit twice; superseding records no rejection
  db.transaction(() => {
    insertProposal(db, proposal);
    // the typed path is the proposal's allowance at apply: for this exact file, nothing else
    if (userTyped) setProposalUserSkillPath(db, id, input.target.path);
    supersedeWaitingProposals(db, input.target.path, id, now);
  }).immediate();
  return proposal;
}

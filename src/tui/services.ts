/**
 * What the review UI needs from the rest of the product, as one injected interface. The real
 * implementation (store-services.ts) reads the store and calls the trainer's apply/reject/revert;
 * tests pass fixtures. The UI never touches SQL or the file system itself.
 */
import type { AgentId, Proposal, Split } from '../core/records.js';
import type { RiskFlag } from '../proposals/risk-lint.js';

export type { RiskFlag };

export interface LedgerSummary {
  /** 'night' = the ledger rows of the most recent night run (its own calls and its training runs'); '24h' = no night on record */
  window: 'night' | '24h';
  /** when that night started (or the start of the 24 h window) */
  since: number;
  /** the night is still running: the counts are so far */
  running?: boolean;
  calls: number;
  failed: number;
  bytesSent: number;
  costUsd: number;
  tokensIn: number;
  tokensOut: number;
  /** per (destination, backend), largest traffic first: the `ledger` command's totals */
  destinations: Array<{ destination: string; backend?: string; calls: number; costUsd: number }>;
}

export interface NextNight {
  cron: string;
  timezone?: string;
  at: Date | null;
  /** set when the cron expression is invalid */
  error?: string;
  /** whether the daemon that runs the nights is up (undefined: not known) */
  daemonRunning?: boolean;
  /** why the running daemon skips its nights (no backend found), when it does */
  nightsSkipped?: string;
}

export interface Excerpt {
  sessionId: string;
  seq: number | null;
  ts: number | null;
  text: string;
}

export interface TaskEvidence {
  id: string;
  intent: string;
  split: Split | null;
  occurrences: number;
  /** prompts where the user asked for this (newest first, a few) */
  prompts: Excerpt[];
  /** what the user said to correct the agent */
  corrections: string[];
}

export interface EvidenceBundle {
  tasks: Record<string, TaskEvidence>;
  /** evidence refs that are not task ids (session/event refs), resolved to transcript text when possible */
  refs: Record<string, Excerpt>;
}

export interface ReportBundle {
  /** label/value pairs shown first (gate, budget, spend, backend, models) */
  facts: Array<{ label: string; value: string }>;
  /** warnings and notes (thin night, budget stop, ...) */
  notes: string[];
  /** report.md text, shown below */
  markdown: string | null;
}

export interface DecisionOutcome {
  /** one line for the status bar */
  message: string;
  path?: string;
  readBy?: AgentId[];
}

export interface RescoreOutcome {
  score: number;
  baseline: number;
  /** where the number came from: the eval cache or a fresh replay */
  source: 'cache' | 'replay' | string;
}

export interface StaleInfo {
  stale: boolean;
  /** hash of the live file now ('' when missing) */
  liveHash: string;
  missing: boolean;
}

export interface ReviewServices {
  /** every proposal, newest first */
  listProposals(): Proposal[];
  staleness(p: Proposal): StaleInfo;
  ledgerSummary(): LedgerSummary;
  nextNight(): NextNight;
  evidence(p: Proposal): EvidenceBundle;
  report(p: Proposal): ReportBundle;
  /**
   * What the risk lint (proposals/risk-lint.ts) flags in what applying would write over the live
   * file now: the whole candidate, the chosen edits only, or the user's edited text.
   */
  risk(p: Proposal, opts?: { editIds?: string[]; content?: string }): RiskFlag[];
  /** agents the user works with in the proposal's project that read none of the files it writes */
  missedBy(p: Proposal): AgentId[];
  /** `forceRisky`: the user confirmed a second time that the flagged lines are wanted */
  apply(id: string, opts: { editIds?: string[]; content?: string; force?: boolean; forceRisky?: boolean; promisedScore?: number }): Promise<DecisionOutcome>;
  reject(id: string, reason?: string): Promise<DecisionOutcome>;
  revert(id: string): Promise<DecisionOutcome>;
  /** lifts the ban a reject put on the proposal's edits (all, or `editIds`), so a later night may propose them again */
  forget(id: string, editIds?: string[]): Promise<DecisionOutcome>;
  /** rejects with SleepError ABORTED when `signal` fires (Esc while re-scoring); never a partial score */
  rescore(id: string, editIds: string[], signal?: AbortSignal): Promise<RescoreOutcome>;
  /** opens the text in $EDITOR with the UI suspended; null when the user aborted or nothing changed */
  editText(text: string, fileName: string): Promise<string | null>;
  /** re-runs training for a proposal's skill (UI suspended); returns a one-line summary */
  rerun(p: Proposal): Promise<DecisionOutcome>;
  /** a team proposal's branch and the command that applies it (merging the branch); null for a personal proposal */
  team?(p: Proposal): { branch: string; merge: string } | null;
  now(): number;
}

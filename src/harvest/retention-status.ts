/**
 * Agents that delete their own transcripts: their window, and what our store keeps beyond it
 * (`status`, `status --json`, `doctor`). Reads the light list of such agents (adapters/retention.ts),
 * so `status` does not load every agent's parser (issue 40).
 */
import fs from 'node:fs';
import type { Config } from '../core/config.js';
import type { DoctorCheck } from '../core/doctor.js';
import { RETAINING_AGENTS } from '../../adapters/retention.js';
import { rootEnvFrom } from '../../adapters/root-env.js';
import { agentEnabled } from '../../adapters/agent.js';
import { retainedSessions } from '../store/repos/sessions.js';
import { openDb } from '../store/db.js';

/** How long one agent keeps its own transcripts, and what our store keeps of them (`status --json`). */
export interface RetentionStatus {
  agent: string;
  /** the agent deletes transcripts older than this at startup */
  days: number;
  /** the agent's default applies (a warning: most users never changed it) */
  isDefault: boolean;
  setting: string;
  /** where the setting was read (null: the default) */
  source: string | null;
  /** what our store keeps: null when nothing is harvested yet */
  stored: { sessions: number; olderThanWindow: number; transcriptGone: number } | null;
}

/** Agents that delete their own transcripts: their window, and what our store keeps beyond it. */
export function retentionStatus(ctx: { config: Config; env: NodeJS.ProcessEnv; paths: { database: string } }, now = Date.now()): RetentionStatus[] {
  const rootEnv = rootEnvFrom(ctx.env);
  const out: RetentionStatus[] = [];
  const db = fs.existsSync(ctx.paths.database) ? openDb(ctx.paths.database, { readonly: true }) : null;
  try {
    for (const a of RETAINING_AGENTS) {
      if (!agentEnabled(ctx.config, a)) continue;
      const r = a.transcriptRetention(ctx.config, rootEnv);
      const kept = db ? retainedSessions(db, a.id, now - r.days * 86_400_000) : null;
      out.push({
        agent: a.id,
        days: r.days,
        isDefault: r.isDefault,
        setting: r.setting,
        source: r.source,
        stored: kept && kept.total > 0 ? { sessions: kept.total, olderThanWindow: kept.older, transcriptGone: kept.fileGone } : null,
      });
    }
  } finally {
    db?.close();
  }
  return out;
}

/** The doctor (and plain `status`) lines of `retentionStatus`. */
export function retentionChecks(ctx: { config: Config; env: NodeJS.ProcessEnv; paths: { database: string } }, now = Date.now()): DoctorCheck[] {
  return retentionStatus(ctx, now).map((r) => {
    const name = RETAINING_AGENTS.find((a) => a.id === r.agent)?.displayName ?? r.agent;
    const keeps = r.stored
      ? `our store keeps all ${r.stored.sessions} harvested session${r.stored.sessions === 1 ? '' : 's'} (${r.stored.olderThanWindow} older than that, ${r.stored.transcriptGone} whose transcript is already gone)`
      : 'nothing harvested yet';
    const where = r.source ? ` (${r.source})` : ' (default)';
    return {
      name: `retention:${r.agent}`,
      status: r.isDefault ? 'warn' : 'ok',
      detail: `${name} deletes transcripts older than ${r.days} days at startup: ${r.setting} = ${r.days}${where}; ${keeps}`,
      ...(r.isDefault ? { fix: `keep the daemon running so sessions are harvested before they go, or raise ${r.setting} in ${name}'s settings.json` } : {}),
    };
  });
}


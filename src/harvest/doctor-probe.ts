/**
 * `doctor`: which agent transcript roots exist on this machine, how many session files each holds,
 * which transcript store each install writes, how long each agent keeps its own transcripts (and
 * what our store keeps beyond that), and which transcript files the last harvests could not use.
 * The doctor command calls `doctorChecks`.
 */
import fs from 'node:fs';
import type { Config } from '../core/config.js';
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import { AGENTS, AGENT_IDS, discoverRoots, getAdapter, rootEnvFrom } from '../../adapters/index.js';
import { agentEnabled } from '../../adapters/agent.js';
import { retainedSessions } from '../store/repos/sessions.js';
import { openDb } from '../store/db.js';
import { fileProblems, type FileProblem } from '../store/repos/files.js';
import type { Db } from '../store/db.js';

/** One line per agent: the transcript folder found (with its session file count), or where it looked. */
export function transcriptRootChecks(ctx: DoctorContext): DoctorCheck[] {
  const roots = discoverRoots(ctx.config, ctx.env);
  const checks: DoctorCheck[] = [];
  const byAgent = new Map<string, number>();
  for (const r of roots) {
    if (!r.exists) continue;
    const n = getAdapter(r.agent).listFiles(r).length;
    byAgent.set(r.agent, (byAgent.get(r.agent) ?? 0) + n);
    checks.push({ name: `transcripts:${r.agent}`, status: 'ok', detail: `${r.path} (${r.kind}, ${n} session file${n === 1 ? '' : 's'})` });
  }
  for (const agent of AGENT_IDS) {
    if (byAgent.has(agent)) continue;
    const where = roots.filter((r) => r.agent === agent).map((r) => r.path);
    if (!where.length) continue; // disabled in config
    checks.push({
      name: `transcripts:${agent}`,
      status: 'warn',
      detail: `no transcript folder found (looked in ${where.slice(0, 3).join(', ')}${where.length > 3 ? ', …' : ''})`,
      fix: `use ${agent} once, or point the env var / config key at its folder (agents.* in \`skillopt-sleep config show\`)`,
    });
  }
  return checks;
}

/** A file's lost lines in a few words: `malformed 2, invalid-event 1`. */
function damageText(damaged: Record<string, number>): string {
  return Object.entries(damaged)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/** What `status --json` says of the transcript files with a problem (`transcriptProblems`, docs/json/status.md). */
export interface TranscriptProblems {
  /** files whose last read failed or some of whose lines could not be stored */
  files: number;
  /** of those, files whose last read failed (their error) */
  errors: number;
  /** lines not stored, in all those files */
  damagedLines: number;
  /** the newest few: path, agent, error (null: read, some lines lost), damaged lines by reason, when (ms) */
  sample: FileProblem[];
}

export function transcriptProblems(db: Db, limit = 5): TranscriptProblems {
  const p = fileProblems(db, limit);
  return { files: p.count, errors: p.errors, damagedLines: p.damagedLines, sample: p.sample };
}

/** One line per problem file: its error, else its lost lines. */
export function describeProblem(f: FileProblem): string {
  const lost = damageText(f.damaged);
  return `${f.path} (${[f.error, lost ? `lines not stored: ${lost}` : ''].filter(Boolean).join('; ')})`;
}

/**
 * The transcript files the harvests could not use, or could use only in part (kept on the file row:
 * an error until the file is stored, lost lines until it is read from its start again).
 */
export function unreadableFileChecks(ctx: DoctorContext): DoctorCheck[] {
  if (!fs.existsSync(ctx.paths.database)) return [];
  const db = openDb(ctx.paths.database, { readonly: true });
  try {
    const p = transcriptProblems(db, 3);
    if (!p.files) return [{ name: 'transcript files', status: 'ok', detail: 'every harvested file was readable' }];
    const what = [p.errors ? `${p.errors} could not be used` : '', p.damagedLines ? `${p.damagedLines} damaged line${p.damagedLines === 1 ? '' : 's'} were skipped` : ''].filter(Boolean).join(', ');
    return [
      {
        name: 'transcript files',
        status: 'warn',
        detail: `${p.files} file${p.files === 1 ? '' : 's'} with problems (${what}): ${p.sample.map(describeProblem).join('; ')}${p.files > p.sample.length ? '; …' : ''}`,
        fix: 'a corrupt transcript is skipped until it changes and a damaged line is skipped for good (the rest of its file is stored); move a file away if it is not needed',
      },
    ];
  } finally {
    db.close();
  }
}

/** Installation facts each agent's record reports (e.g. whether Copilot Chat writes its transcripts store). */
export function storeNoteChecks(ctx: DoctorContext): DoctorCheck[] {
  const rootEnv = rootEnvFrom(ctx.env);
  const checks: DoctorCheck[] = [];
  for (const a of AGENTS) {
    if (!agentEnabled(ctx.config, a) || !a.doctorNotes) continue;
    for (const n of a.doctorNotes(ctx.config, rootEnv)) checks.push({ name: `store:${a.id}`, status: n.status, detail: n.detail, ...(n.fix ? { fix: n.fix } : {}) });
  }
  return checks;
}

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
    for (const a of AGENTS) {
      if (!agentEnabled(ctx.config, a) || !a.transcriptRetention) continue;
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
    const name = AGENTS.find((a) => a.id === r.agent)?.displayName ?? r.agent;
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

/** Every harvest line of doctor, in order. */
export function doctorChecks(ctx: DoctorContext): DoctorCheck[] {
  return [...transcriptRootChecks(ctx), ...storeNoteChecks(ctx), ...retentionChecks(ctx), ...unreadableFileChecks(ctx)];
}

/**
 * `doctor`: which agent transcript roots exist on this machine, how many session files each holds,
 * which transcript store each install writes, how long each agent keeps its own transcripts (and
 * what our store keeps beyond that), and which transcript files the last harvests could not use.
 * The doctor command calls `doctorChecks`.
 */
import fs from 'node:fs';
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import { AGENTS, AGENT_IDS, discoverRoots, getAdapter, rootEnvFrom } from '../../adapters/index.js';
import { agentEnabled } from '../../adapters/agent.js';
import { openDb } from '../store/db.js';
import { describeProblem, transcriptProblems } from './transcript-problems.js';
import { retentionChecks } from './retention-status.js';
import { agentMoves } from './agent-moves.js';

// `status` imports these from their own light modules; doctor and the tests from here
export { describeProblem, transcriptProblems, type TranscriptProblems } from './transcript-problems.js';
export { retentionChecks, retentionStatus, type RetentionStatus } from './retention-status.js';

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

/** Agents that went quiet because their users were moved to another agent (agent-moves.ts). */
export function agentMoveChecks(ctx: DoctorContext): DoctorCheck[] {
  if (!fs.existsSync(ctx.paths.database)) return [];
  const db = openDb(ctx.paths.database, { readonly: true });
  try {
    return agentMoves(db, ctx.config, ctx.env).map((m) => ({ name: `store:${m.agent}`, status: 'warn' as const, detail: m.detail, ...(m.fix ? { fix: m.fix } : {}) }));
  } finally {
    db.close();
  }
}

/** Every harvest line of doctor, in order. */
export function doctorChecks(ctx: DoctorContext): DoctorCheck[] {
  return [...transcriptRootChecks(ctx), ...agentMoveChecks(ctx), ...storeNoteChecks(ctx), ...retentionChecks(ctx), ...unreadableFileChecks(ctx)];
}

/**
 * `doctor`: which agent transcript roots exist on this machine, how many session files each holds,
 * and which transcript files the last harvests could not use. The doctor command calls these.
 */
import fs from 'node:fs';
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import { discoverRoots, getAdapter } from '../../adapters/index.js';
import { openDb } from '../store/db.js';
import { unreadableFiles } from '../store/repos/files.js';

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
  for (const agent of ['claude-code', 'codex', 'copilot']) {
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

/** The transcript files the harvests could not use (kept on the file row until the file changes). */
export function unreadableFileChecks(ctx: DoctorContext): DoctorCheck[] {
  if (!fs.existsSync(ctx.paths.database)) return [];
  const db = openDb(ctx.paths.database, { readonly: true });
  try {
    const { count, sample } = unreadableFiles(db, 3);
    if (!count) return [{ name: 'transcript files', status: 'ok', detail: 'every harvested file was readable' }];
    return [
      {
        name: 'transcript files',
        status: 'warn',
        detail: `${count} file${count === 1 ? '' : 's'} could not be used: ${sample.map((f) => `${f.path} (${f.error})`).join('; ')}${count > sample.length ? '; …' : ''}`,
        fix: 'a corrupt or truncated transcript is skipped until it changes; move it away if it is not needed',
      },
    ];
  } finally {
    db.close();
  }
}

/** Every harvest line of doctor, in order. */
export function doctorChecks(ctx: DoctorContext): DoctorCheck[] {
  return [...transcriptRootChecks(ctx), ...unreadableFileChecks(ctx)];
}

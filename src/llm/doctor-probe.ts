/**
 * `skillopt-sleep doctor` lines for backends: which are available (CLI on PATH, API key set)
 * and which one each role gets, and why. The doctor command calls `doctorChecks`.
 */
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import { Role } from '../core/protocol.js';
import { detectBackends } from './detect.js';
import fs from 'node:fs';
import { modelLifeStatus } from './model-eol.js';
import { openDb } from '../store/db.js';
import { recentModels } from '../store/repos/ledger.js';
import { networkCutAvailable } from './outcome.js';

export function backendChecks(ctx: Pick<DoctorContext, 'config' | 'env'> & Partial<Pick<DoctorContext, 'paths'>>): DoctorCheck[] {
  const d = detectBackends(ctx.config, ctx.env);
  const checks: DoctorCheck[] = [];
  for (const a of d.available) {
    if (a.name === 'sim') continue;
    checks.push({ name: `backend ${a.name}`, status: a.available ? 'ok' : 'warn', detail: a.detail });
  }
  for (const role of Role.options) {
    const c = d.roles[role];
    const configuredButMissing = c.backend !== null && c.reason.startsWith('configured, but');
    checks.push({
      name: `role ${role}`,
      status: c.backend === null ? (role === 'miner' ? 'warn' : 'fail') : configuredButMissing ? 'fail' : 'ok',
      // (with no backend the reason is the install advice, which the fix line gives in full)
      detail: c.backend ? `${c.backend}${c.model ? ` (${c.model})` : ''} — ${c.reason}` : c.reason.replace(/:.*$/, ''),
      fix:
        c.backend === null || configuredButMissing
          ? 'install the claude, codex or copilot CLI, or set ANTHROPIC_API_KEY / OPENAI_API_KEY, or `skillopt-sleep config set roles.' + role + '.backend <name>`'
          : undefined,
    });
  }
  const now = new Date();
  checks.push(...modelLifeChecks(ctx.config, now, ctx.paths ? recentlyUsedModels({ paths: ctx.paths }, now) : []));
  return checks;
}

/**
 * A warning per model past (or near) its provider's end of life: the configured ones, and the ones
 * recent calls really ran (`used`, from the ledger: an agent CLI's own default is no config key).
 */
export function modelLifeChecks(config: DoctorContext['config'], now: Date, used: ReadonlyArray<{ backend: string; model: string }> = []): DoctorCheck[] {
  const models = new Map<string, string>([
    [config.backends.anthropic.model, 'configured'],
    [config.backends.openai.model, 'configured'],
  ]);
  for (const role of Role.options) {
    const m = config.roles[role].model;
    if (m) models.set(m, 'configured');
  }
  for (const u of used) if (!models.has(u.model)) models.set(u.model, `used by the ${u.backend} backend in the last 30 days`);
  const out: DoctorCheck[] = [];
  for (const [m, why] of models) {
    const life = modelLifeStatus(m, now);
    if (life.state === 'current') continue;
    const where = why === 'configured' ? '' : ` (${why}, not configured: the agent's own default)`;
    out.push({
      name: `model ${m}`,
      status: life.state === 'retired' ? 'fail' : 'warn',
      detail: `${life.state === 'retired' ? `past its end of life (${life.endOfLife}): calls to it fail` : `deprecated, end of life ${life.endOfLife}`}${where}`,
      fix:
        why === 'configured'
          ? 'pick a current model, e.g. `skillopt-sleep config set backends.anthropic.model claude-sonnet-4-6`'
          : 'set a current model for that role, e.g. `skillopt-sleep config set roles.target.model claude-sonnet-4-6`, or update the agent CLI',
    });
  }
  return out;
}

/** Models the ledger saw in the last 30 days (none when there is no store yet). */
function recentlyUsedModels(ctx: Pick<DoctorContext, 'paths'>, now: Date): Array<{ backend: string; model: string }> {
  if (!ctx.paths?.database || !fs.existsSync(ctx.paths.database)) return [];
  const db = openDb(ctx.paths.database, { readonly: true });
  try {
    return recentModels(db, now.getTime() - 30 * 86_400_000);
  } finally {
    db.close();
  }
}

/** What a replay may do on this machine: seeding from the user's repositories and the outcome commands that may run. */
export function replayChecks(config: DoctorContext['config']): DoctorCheck[] {
  const r = config.replay;
  const out: DoctorCheck[] = [
    {
      name: 'replay workspace',
      status: 'ok',
      detail: r.seedWorkspace
        ? 'agent-CLI replays start from the repository at the commit before the original session (read from git objects; your working tree and uncommitted files are never read, nothing is written back)'
        : 'agent-CLI replays start in an empty workspace (replay.seedWorkspace is off)',
    },
    {
      name: 'replay agent homes',
      status: r.isolateAgentHomes ? 'ok' : 'warn',
      detail: r.isolateAgentHomes ? 'each replay runs with a private agent config home: no transcripts, counters or state land in your agents' : 'replays use your own agent homes (replay.isolateAgentHomes is off): they leave transcripts there',
    },
  ];
  const commands = Object.entries(r.outcomeCommands);
  if (commands.length === 0) {
    out.push({ name: 'replay commands', status: 'ok', detail: 'no command runs during replays (no replay.outcomeCommands configured)' });
  } else {
    const net = networkCutAvailable();
    for (const [project, c] of commands) {
      out.push({
        name: 'replay command',
        status: net.ok ? 'ok' : 'warn',
        detail: `in replays of ${project}: \`${c.command}\` runs in the temporary workspace after the agent, killed after ${Math.round(c.timeoutMs / 1000)} s; ${net.detail}`,
        fix: net.ok ? undefined : 'install util-linux `unshare` (or allow unprivileged user namespaces) so the command runs with no network',
      });
    }
  }
  return out;
}

/** Every backend line of doctor, in order. */
export function doctorChecks(ctx: DoctorContext): DoctorCheck[] {
  return [...backendChecks(ctx), ...replayChecks(ctx.config)];
}

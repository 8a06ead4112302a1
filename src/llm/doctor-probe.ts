/**
 * `skillopt-sleep doctor` lines for backends: which are available (CLI on PATH, API key set)
 * and which one each role gets, and why. The doctor command calls `doctorChecks`.
 */
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import { Role } from '../core/protocol.js';
import { detectBackends } from './detect.js';
import { modelLifeStatus } from './model-eol.js';
import { networkCutAvailable } from './outcome.js';

export function backendChecks(ctx: Pick<DoctorContext, 'config' | 'env'>): DoctorCheck[] {
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
  checks.push(...modelLifeChecks(ctx.config, new Date()));
  return checks;
}

/** A warning per configured model that is past (or near) its provider's end of life. */
export function modelLifeChecks(config: DoctorContext['config'], now: Date): DoctorCheck[] {
  const models = new Set<string>([config.backends.anthropic.model, config.backends.openai.model]);
  for (const role of Role.options) {
    const m = config.roles[role].model;
    if (m) models.add(m);
  }
  const out: DoctorCheck[] = [];
  for (const m of models) {
    const life = modelLifeStatus(m, now);
    if (life.state === 'current') continue;
    out.push({
      name: `model ${m}`,
      status: life.state === 'retired' ? 'fail' : 'warn',
      detail: life.state === 'retired' ? `past its end of life (${life.endOfLife}): calls to it fail` : `deprecated, end of life ${life.endOfLife}`,
      fix: 'pick a current model, e.g. `skillopt-sleep config set backends.anthropic.model claude-sonnet-4-6`',
    });
  }
  return out;
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

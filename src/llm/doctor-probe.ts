/**
 * `skillopt-sleep doctor` lines for backends: which are available (CLI on PATH, API key set)
 * and which one each role gets, and why. The doctor command calls `doctorChecks`.
 */
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import { Role } from '../core/protocol.js';
import { detectBackends } from './detect.js';

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
  return checks;
}

/** Every backend line of doctor, in order. */
export function doctorChecks(ctx: DoctorContext): DoctorCheck[] {
  return backendChecks(ctx);
}

/**
 * `skillopt-sleep doctor` lines for backends: which are available (CLI on PATH, API key set)
 * and which one each role gets, and why. Registered into DOCTOR_PROBES at module load.
 */
import { DOCTOR_PROBES, type DoctorCheck } from '../cli/doctor-probes.js';
import type { CliContext } from '../cli/context.js';
import { detectBackends } from './detect.js';

export function backendChecks(ctx: Pick<CliContext, 'config' | 'env'>): DoctorCheck[] {
  const d = detectBackends(ctx.config, ctx.env);
  const checks: DoctorCheck[] = [];
  for (const a of d.available) {
    if (a.name === 'sim') continue;
    checks.push({ name: `backend ${a.name}`, status: a.available ? 'ok' : 'warn', detail: a.detail });
  }
  for (const role of ['target', 'optimizer', 'judge', 'miner'] as const) {
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

DOCTOR_PROBES.push((ctx) => backendChecks(ctx));

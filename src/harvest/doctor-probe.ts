/** `doctor`: which agent transcript roots exist on this machine, and how many session files each holds. */
import { DOCTOR_PROBES, type DoctorCheck } from '../cli/doctor-probes.js';
import { discoverRoots, getAdapter } from '../../adapters/index.js';

DOCTOR_PROBES.push((ctx) => {
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
});

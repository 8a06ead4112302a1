/**
 * The shape of a `skillopt-sleep doctor` line, and the helpers that run a list of checks. Each module
 * (harvest, llm, daemon, …) exports its own `doctorChecks(ctx)`; the doctor command calls them in
 * one fixed order, so what doctor prints never depends on which modules happened to be imported.
 */
import type { Config } from './config-schema.js';
import type { SleepPaths } from './paths.js';
import { errorMessage } from './errors.js';

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

/** What every module's checks may read. A module that needs more (the store) says so in its own type. */
export interface DoctorContext {
  config: Config;
  env: NodeJS.ProcessEnv;
  paths: SleepPaths;
}

export type DoctorSection<C> = { name: string; checks: (ctx: C) => Promise<DoctorCheck[]> | DoctorCheck[] };

/**
 * Runs the sections in the order given. A section that throws becomes one warning line naming it:
 * a broken probe never hides the lines after it, and never crashes doctor.
 */
export async function runDoctorSections<C>(sections: ReadonlyArray<DoctorSection<C>>, ctx: C): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  for (const s of sections) {
    try {
      out.push(...(await s.checks(ctx)));
    } catch (err) {
      out.push({ name: s.name, status: 'warn', detail: `this check failed: ${errorMessage(err)}` });
    }
  }
  return out;
}

/** One line per check (`ok`/`warn`/`FAIL`, the name in one column, the fix indented below). */
export function formatDoctorChecks(checks: readonly DoctorCheck[]): string[] {
  const width = Math.max(16, ...checks.map((c) => c.name.length));
  return checks.map((c) => {
    const mark = c.status === 'ok' ? 'ok  ' : c.status === 'warn' ? 'warn' : 'FAIL';
    return `${mark}  ${c.name.padEnd(width)} ${c.detail}${c.fix ? `\n      ${''.padEnd(width)} → ${c.fix}` : ''}`;
  });
}

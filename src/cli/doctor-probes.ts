/**
 * Checks contributed by modules to `skillopt-sleep doctor` (agent folders, backends...). Each probe
 * returns lines; a probe that throws is reported as a warning, never crashes doctor.
 */
import type { CliContext } from './context.js';

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

export type DoctorProbe = (ctx: CliContext) => Promise<DoctorCheck[]> | DoctorCheck[];

export const DOCTOR_PROBES: DoctorProbe[] = [];

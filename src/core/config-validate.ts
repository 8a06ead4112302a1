/**
 * Values the config schema types as plain strings but that must parse to be usable: the cron
 * expression (checked with node-cron, the library the daemon schedules with, so "valid" means
 * "the daemon can start"), the IANA time zone and the HH:MM deadline. Checked when a value is set
 * (`config set` refuses it with a hint) and by `doctor` on the whole loaded config.
 */
import cron from 'node-cron';
import { SleepError } from './errors.js';
import type { Config } from './config.js';

export interface ConfigProblem {
  key: string;
  message: string;
  hint: string;
}

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The problem with one key's value, or null when it is fine (or not a key checked here). */
export function checkConfigValue(key: string, value: unknown): ConfigProblem | null {
  if (typeof value !== 'string') return null;
  if (key === 'schedule.cron' && !cron.validate(value)) {
    return { key, message: `"${value}" is not a cron expression`, hint: 'five fields: minute hour day-of-month month day-of-week, e.g. "0 3 * * *" (03:00 every day)' };
  }
  if (key === 'schedule.timezone' && value !== '' && !validTimeZone(value)) {
    return { key, message: `"${value}" is not an IANA time zone`, hint: 'e.g. "Europe/Paris" or "America/New_York"; unset it for local time' };
  }
  if (key === 'budget.deadline' && value !== '' && !/^(?:[01]\d|2[0-3]):[0-5]\d$/.test(value)) {
    return { key, message: `"${value}" is not a time of day`, hint: 'HH:MM in 24-hour time, e.g. "07:00"' };
  }
  return null;
}

/** Every problem of a loaded config (for doctor). */
export function configProblems(config: Config): ConfigProblem[] {
  const checks: Array<[string, unknown]> = [
    ['schedule.cron', config.schedule.cron],
    ['schedule.timezone', config.schedule.timezone],
    ['budget.deadline', config.budget.deadline],
  ];
  return checks.map(([k, v]) => checkConfigValue(k, v)).filter((p): p is ConfigProblem => p !== null);
}

/** Throws CONFIG_INVALID (exit 1, with the hint) when `value` is not usable for `key`. */
export function assertConfigValue(key: string, value: unknown): void {
  const p = checkConfigValue(key, value);
  if (p) throw new SleepError('CONFIG_INVALID', `${p.key}: ${p.message}`, { hint: p.hint });
}

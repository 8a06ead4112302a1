/**
 * Pure timing decisions of the scheduler: the next night, whether a missed night must be caught
 * up, and whether the machine just woke from sleep. The clock is always a parameter.
 */
import { createRequire } from 'node:module';
import { SleepError } from '../core/errors.js';

// node-cron (and the Intl set-up its matcher does) costs more than the rest of `status`: it loads
// only when an expression is not a plain daily time (issue 40). Its CommonJS build, loaded on demand.
const require = createRequire(import.meta.url);
const cron = () => require('node-cron') as typeof import('node-cron');

export const DAY_MS = 86_400_000;

interface TimeMatcherLike {
  getNextMatch(date: Date): Date;
}

/** Throws a clear CONFIG_INVALID for a bad cron expression or timezone. */
export function validateSchedule(expr: string, timezone?: string): void {
  if (!timezone && dailyTime(expr)) return;
  const v = cron().validateDetailed(expr);
  if (!v.valid) {
    const why = v.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    throw new SleepError('CONFIG_INVALID', `schedule.cron "${expr}" is not a valid cron expression (${why})`, {
      hint: 'use five fields, e.g. "0 3 * * *" for 03:00 every night; `skillopt-sleep config set schedule.cron "0 3 * * *"`',
    });
  }
  if (timezone) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    } catch {
      throw new SleepError('CONFIG_INVALID', `schedule.timezone "${timezone}" is not an IANA timezone`, {
        hint: 'use a name like Europe/Paris or America/New_York, or unset it for local time',
      });
    }
  }
}

/**
 * The first scheduled time strictly after `from`. node-cron 4's public API only answers "after
 * now", so we use the task's time matcher (the same code node-cron schedules with); the package
 * is pinned exactly, and a unit test guards this seam.
 */
export function nextRunAfter(expr: string, timezone: string | undefined, from: Date): Date {
  const daily = timezone ? null : nextDailyAfter(expr, from);
  if (daily) return daily;
  validateSchedule(expr, timezone);
  const task = cron().createTask(expr, () => undefined, { timezone });
  try {
    const matcher = (task as unknown as { timeMatcher?: TimeMatcherLike }).timeMatcher;
    if (matcher && typeof matcher.getNextMatch === 'function') return matcher.getNextMatch(from);
    // fallback: only exact for from ≈ now
    return task.getNextRuns(1)[0];
  } finally {
    void task.destroy();
  }
}

/** `M H * * *` with plain numbers in range (the default schedule and most hand-written ones), or null. */
function dailyTime(expr: string): { hour: number; minute: number } | null {
  const m = /^\s*(\d{1,2})\s+(\d{1,2})\s+\*\s+\*\s+\*\s*$/.exec(expr);
  if (!m) return null;
  const minute = Number(m[1]);
  const hour = Number(m[2]);
  return minute < 60 && hour < 24 ? { hour, minute } : null;
}

/**
 * The next local H:M strictly after `from` for a plain daily expression, or null (then node-cron
 * decides): also null when that day's H:M does not exist or is ambiguous in local time (a DST change).
 */
function nextDailyAfter(expr: string, from: Date): Date | null {
  const t = dailyTime(expr);
  if (!t) return null;
  const at = new Date(from.getTime());
  at.setSeconds(0, 0);
  at.setHours(t.hour, t.minute);
  if (at.getTime() <= from.getTime()) {
    at.setDate(at.getDate() + 1);
    at.setHours(t.hour, t.minute);
  }
  if (at.getHours() !== t.hour || at.getMinutes() !== t.minute) return null;
  const hourBefore = new Date(at.getTime() - 3_600_000);
  const hourAfter = new Date(at.getTime() + 3_600_000);
  if (hourBefore.getHours() === t.hour || hourAfter.getHours() === t.hour) return null; // the hour repeats (DST ends)
  return at;
}

export interface CatchUpInput {
  now: number;
  enabled: boolean;
  /** end of the last night that ran (any outcome but "skipped"), if any */
  lastNightAt?: number;
  /** when the daemon first ran on this machine: the anchor when no night ever ran */
  firstStartAt: number;
  /** newest ingested material (session update time), if any */
  lastMaterialAt?: number;
  /** scheduled time following the anchor (from nextRunAfter) */
  nextSlotAfterAnchor: number;
}

export interface CatchUpDecision {
  run: boolean;
  reason: string;
}

/**
 * A missed night is caught up when: catch-up is on, a scheduled slot passed since the last night
 * (or since the first start), that night is more than 24 h old, and new material arrived since.
 */
export function decideCatchUp(i: CatchUpInput): CatchUpDecision {
  if (!i.enabled) return { run: false, reason: 'schedule.catchUp is off' };
  const anchor = i.lastNightAt ?? i.firstStartAt;
  if (i.nextSlotAfterAnchor > i.now) return { run: false, reason: 'no scheduled night was missed' };
  if (i.now - anchor < DAY_MS) return { run: false, reason: 'the last night is less than 24 h old' };
  if (i.lastMaterialAt === undefined || i.lastMaterialAt <= anchor) return { run: false, reason: 'no new sessions since the last night' };
  return {
    run: true,
    reason: `missed the night of ${new Date(i.nextSlotAfterAnchor).toISOString()} (last night ${i.lastNightAt ? new Date(i.lastNightAt).toISOString() : 'never'})`,
  };
}

/**
 * A periodic timer measures monotonic time; the wall clock jumps forward during suspend. If the
 * wall clock moved far more than the timer interval, the machine slept (or the clock was set).
 */
export function detectWake(prevWall: number, nowWall: number, intervalMs: number, toleranceMs = 60_000): { woke: boolean; sleptMs: number } {
  const sleptMs = nowWall - prevWall - intervalMs;
  return { woke: sleptMs > toleranceMs, sleptMs: Math.max(0, sleptMs) };
}

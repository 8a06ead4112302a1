import { afterEach, describe, expect, it } from 'vitest';
import cron from 'node-cron';
import { DAY_MS, decideCatchUp, detectWake, nextRunAfter, validateSchedule } from '../../src/daemon/timing.js';

const H = 3_600_000;
const at = (iso: string) => new Date(iso).getTime();

describe('nextRunAfter (node-cron time matcher)', () => {
  it('finds the next 03:00 in a given timezone', () => {
    expect(nextRunAfter('0 3 * * *', 'UTC', new Date('2026-01-01T12:00:00Z')).toISOString()).toBe('2026-01-02T03:00:00.000Z');
    expect(nextRunAfter('0 3 * * *', 'UTC', new Date('2026-01-01T02:59:00Z')).toISOString()).toBe('2026-01-01T03:00:00.000Z');
    // Paris is UTC+1 in winter, UTC+2 in summer
    expect(nextRunAfter('0 3 * * *', 'Europe/Paris', new Date('2026-01-01T12:00:00Z')).toISOString()).toBe('2026-01-02T02:00:00.000Z');
    expect(nextRunAfter('0 3 * * *', 'Europe/Paris', new Date('2026-07-01T12:00:00Z')).toISOString()).toBe('2026-07-02T01:00:00.000Z');
  });

  it('is strictly after the given time and follows weekly expressions', () => {
    const sunday = nextRunAfter('30 4 * * 0', 'UTC', new Date('2026-11-29T04:30:00Z')); // a Sunday, at the slot
    expect(sunday.toISOString()).toBe('2026-12-06T04:30:00.000Z');
  });

  it('rejects a bad expression or timezone with a hint', () => {
    expect(() => validateSchedule('0 25 * * *')).toThrow(/not a valid cron expression.*hour/);
    expect(() => validateSchedule('0 3 * * *', 'Mars/Olympus')).toThrow(/IANA timezone/);
    expect(() => validateSchedule('0 3 * * *', 'America/New_York')).not.toThrow();
  });
});

describe('nextRunAfter for a plain daily time (computed without node-cron, for a fast `status`)', () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });
  /** node-cron's own answer with no timezone (local time): what nextRunAfter returned before the fast path */
  const viaNodeCron = (expr: string, from: Date) => {
    const task = cron.createTask(expr, () => undefined, {});
    try {
      return (task as unknown as { timeMatcher: { getNextMatch(d: Date): Date } }).timeMatcher.getNextMatch(from).toISOString();
    } finally {
      void task.destroy();
    }
  };

  it('agrees with node-cron in this process\'s local time, through a year', () => {
    for (const expr of ['0 3 * * *', '30 2 * * *', '59 23 * * *', '0 0 * * *']) {
      for (let t = at('2026-01-01T00:00:00Z'); t < at('2027-01-01T00:00:00Z'); t += 7 * H + 13 * 60_000) {
        expect(nextRunAfter(expr, undefined, new Date(t)).toISOString(), `${expr} from ${new Date(t).toISOString()}`).toBe(viaNodeCron(expr, new Date(t)));
      }
    }
  });

  it('keeps the local wall time across both DST changes (Europe/Paris, America/New_York)', () => {
    process.env.TZ = 'Europe/Paris'; // Node applies a new TZ at once
    expect(nextRunAfter('0 3 * * *', undefined, new Date('2026-03-28T12:00:00Z')).toISOString()).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST
    expect(nextRunAfter('0 3 * * *', undefined, new Date('2026-10-24T12:00:00Z')).toISOString()).toBe('2026-10-25T02:00:00.000Z'); // 03:00 CET
    expect(nextRunAfter('0 3 * * *', undefined, new Date('2026-03-29T01:00:00Z')).toISOString()).toBe('2026-03-30T01:00:00.000Z'); // strictly after
    process.env.TZ = 'America/New_York';
    expect(nextRunAfter('15 4 * * *', undefined, new Date('2026-03-07T20:00:00Z')).toISOString()).toBe('2026-03-08T08:15:00.000Z'); // 04:15 EDT
    expect(nextRunAfter('15 4 * * *', undefined, new Date('2026-10-31T20:00:00Z')).toISOString()).toBe('2026-11-01T09:15:00.000Z'); // 04:15 EST
  });
});

describe('decideCatchUp (fake clock)', () => {
  const daily = (from: number) => nextRunAfter('0 3 * * *', 'UTC', new Date(from)).getTime();
  const input = (now: number, lastNightAt: number | undefined, lastMaterialAt: number | undefined, firstStartAt = at('2026-11-01T10:00:00Z')) => ({
    now,
    enabled: true,
    lastNightAt,
    firstStartAt,
    lastMaterialAt,
    nextSlotAfterAnchor: daily(lastNightAt ?? firstStartAt),
  });

  it('runs a missed night when the laptop was asleep at 03:00 and there is new material', () => {
    const lastNight = at('2026-11-27T03:40:00Z');
    const now = at('2026-11-28T09:00:00Z'); // slept through 2026-11-28T03:00
    const d = decideCatchUp(input(now, lastNight, at('2026-11-27T17:00:00Z')));
    expect(d.run).toBe(true);
    expect(d.reason).toMatch(/missed the night of 2026-11-28T03:00/);
  });

  it('does not run without new material, when the last night is < 24 h old, or when disabled', () => {
    const lastNight = at('2026-11-27T03:40:00Z');
    const now = at('2026-11-28T09:00:00Z');
    expect(decideCatchUp(input(now, lastNight, at('2026-11-27T01:00:00Z'))).reason).toMatch(/no new sessions/);
    expect(decideCatchUp(input(now, lastNight, undefined)).run).toBe(false);
    // the 03:00 slot passed but the night ran late yesterday (< 24 h ago)
    const lateNight = at('2026-11-27T22:00:00Z');
    expect(decideCatchUp(input(at('2026-11-28T09:00:00Z'), lateNight, at('2026-11-28T08:00:00Z'))).reason).toMatch(/less than 24 h/);
    expect(decideCatchUp({ ...input(now, lastNight, at('2026-11-27T17:00:00Z')), enabled: false }).run).toBe(false);
  });

  it('does not treat the afternoon of a fresh install as a missed night', () => {
    const installed = at('2026-11-28T14:00:00Z');
    const d = decideCatchUp(input(installed + 2 * H, undefined, installed + H, installed));
    expect(d).toEqual({ run: false, reason: 'no scheduled night was missed' });
    // but three days later with the machine off every night, it catches up once
    const later = decideCatchUp(input(installed + 3 * DAY_MS, undefined, installed + DAY_MS, installed));
    expect(later.run).toBe(true);
    expect(later.reason).toMatch(/last night never/);
  });

  it('respects a weekly schedule: no daily catch-ups', () => {
    const weekly = (from: number) => nextRunAfter('0 3 * * 0', 'UTC', new Date(from)).getTime();
    const lastNight = at('2026-11-22T03:30:00Z'); // Sunday
    const now = at('2026-11-26T09:00:00Z'); // Thursday: 4 days later, no slot missed
    const d = decideCatchUp({ now, enabled: true, lastNightAt: lastNight, firstStartAt: 0, lastMaterialAt: now - H, nextSlotAfterAnchor: weekly(lastNight) });
    expect(d.run).toBe(false);
  });
});

describe('detectWake', () => {
  it('flags a wall-clock jump far beyond the timer interval as a wake', () => {
    expect(detectWake(0, 30_000, 30_000).woke).toBe(false);
    expect(detectWake(0, 35_000, 30_000).woke).toBe(false); // a busy event loop, not sleep
    const w = detectWake(0, 2 * H, 30_000);
    expect(w.woke).toBe(true);
    expect(w.sleptMs).toBe(2 * H - 30_000);
  });
});

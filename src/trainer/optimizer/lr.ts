/**
 * The textual learning rate: how many edits one step may apply. Formulas and rounding follow the
 * upstream scheduler exactly (including Python's round-half-to-even), so a schedule printed here
 * equals the one the Python trainer prints for the same settings.
 *
 * Unlike upstream, the schedule position is explicit state advanced once per global step, skipped
 * steps included, so a resumed run and an uninterrupted run see the same budgets.
 */
export type LrSchedule = 'constant' | 'linear' | 'cosine' | 'autonomous';

/** Python 3 `round(x)`: nearest integer, exact halves to the even neighbour. */
export function pyRound(x: number): number {
  if (!Number.isFinite(x)) return x;
  const floor = Math.floor(x);
  const diff = x - floor; // exact for |x| < 2^52
  if (diff < 0.5) return floor;
  if (diff > 0.5) return floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Value the upstream scheduler gives for autonomous mode: "no limit" (the optimizer decides). */
export const AUTONOMOUS_UNBOUNDED = 999;

/**
 * Edit budget at 1-indexed global `step` of `totalSteps`:
 * constant → max; linear → max(min, round(max + (min-max)·t));
 * cosine → max(min, round(min + ½(max-min)(1+cos πt))), t = min(step,T)/T; T ≤ 1 → max.
 */
export function scheduledLr(mode: LrSchedule, step: number, totalSteps: number, maxLr: number, minLr: number): number {
  if (mode === 'constant') return maxLr;
  if (mode === 'autonomous') return AUTONOMOUS_UNBOUNDED;
  if (totalSteps <= 1) return maxLr;
  const t = Math.min(step, totalSteps) / totalSteps;
  if (mode === 'linear') return Math.max(minLr, pyRound(maxLr + (minLr - maxLr) * t));
  return Math.max(minLr, pyRound(minLr + 0.5 * (maxLr - minLr) * (1 + Math.cos(Math.PI * t))));
}

/** The whole schedule, for plans and tests. */
export function lrSeries(mode: LrSchedule, totalSteps: number, maxLr: number, minLr: number): number[] {
  return Array.from({ length: totalSteps }, (_, i) => scheduledLr(mode, i + 1, totalSteps, maxLr, minLr));
}

/** Explicit scheduler state: `position` = number of global steps already consumed. */
export interface LrState {
  position: number;
}

export function nextLr(state: LrState, mode: LrSchedule, totalSteps: number, maxLr: number, minLr: number): { lr: number; state: LrState } {
  const position = state.position + 1;
  return { lr: scheduledLr(mode, position, totalSteps, maxLr, minLr), state: { position } };
}

/**
 * Clamp an autonomous decision to [min, max] and to what is available. Upstream let a decision of 0
 * still select one edit (off by one); here 0 means 0 only when `min` is 0.
 */
export function clampAutonomous(decision: number, min: number, max: number, available: number): number {
  const d = Number.isFinite(decision) ? Math.trunc(decision) : min;
  return Math.max(0, Math.min(available, Math.max(min, Math.min(max, d))));
}

/**
 * The one gate between a transcript and the store: every parser's output (every adapter's, each
 * file's) passes through `validateOutput` before it is written, so what reaches a STRICT column is
 * always of that column's type and range. A transcript is untrusted input: any field may hold a
 * number where a string belongs, an object where a number belongs, an instant past year 9999, or
 * text with lone surrogates (`"\ud800"` is valid JSON).
 *
 * The rules, per value:
 * - a timestamp outside [1970, end of year 9999] (or not a finite number) is stored as null (unknown),
 *   never guessed into another unit (`core/timestamps.ts`);
 * - a count that is not a non-negative whole number is clamped into one (0 for garbage);
 * - a text field holding a number or boolean keeps it as text; any other non-string becomes null
 *   (an event's text, which may not be null, becomes empty);
 * - lone surrogates in any stored string become U+FFFD (the string is kept);
 * - an event with no usable sequence number, role or kind cannot be stored: it is dropped and
 *   counted (`skipped['invalid-event']`), the file's other events are kept;
 * - a session whose id is unusable cannot be stored: its events are dropped and counted
 *   (`skipped['invalid-session']`).
 * Every value changed is counted by field (`repaired`), so a harvest says what it fixed.
 *
 * Valid output passes through untouched (same objects, same values): the checks only read.
 */
import type { SessionEvent } from '../core/records.js';
import { storableEpochMs } from '../core/timestamps.js';
import type { FinalUpdate, ParseOutput, SessionSnapshot, TextAppend } from '../../adapters/types.js';

/**
 * Skip reasons that mean a line was damaged (not JSON, not an object, a record that could not be
 * stored), as opposed to records skipped on purpose (side channels, duplicates): the ones a file's
 * row keeps and `status` and `doctor` report.
 */
export const DAMAGED_LINE_REASONS = ['malformed', 'not-object', 'parser-error', 'oversize', 'invalid-event', 'invalid-session', 'invalid-update'] as const;

/*
 * The storable roles and kinds as literal records, not the zod enums of core/records.ts: this module
 * runs in every harvest worker, and importing zod there cost each worker ~70 ms of CPU at start
 * (a third of a worker's boot). A `Record` over the type names every value exactly once: tsc fails
 * when the enums gain or lose one.
 */
const ROLE_NAMES: Record<SessionEvent['role'], true> = { user: true, assistant: true, tool: true };
const KIND_NAMES: Record<SessionEvent['kind'], true> = { prompt: true, text: true, tool_call: true, tool_result: true };
const ROLES: ReadonlySet<unknown> = new Set(Object.keys(ROLE_NAMES));
const KINDS: ReadonlySet<unknown> = new Set(Object.keys(KIND_NAMES));
const SESSION_KINDS: ReadonlySet<unknown> = new Set<SessionSnapshot['kind']>(['interactive', 'headless', 'subagent']);

/** What validation changed or dropped in one output (merged into the file's result). */
export interface ValidationTally {
  /** records that could not be stored, by reason */
  skipped: Record<string, number>;
  /** values that were replaced to be storable, by field */
  repaired: Record<string, number>;
}

function bump(rec: Record<string, number>, key: string, n = 1): void {
  rec[key] = (rec[key] ?? 0) + n;
}

// (String.prototype.isWellFormed is in Node 20, not yet in the ES2023 lib typings)
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };

/** `s` with every lone surrogate replaced by U+FFFD (the same string when there is none). */
export function wellFormed(s: string): string {
  const w = s as WellFormedString;
  return w.isWellFormed() ? s : w.toWellFormed();
}

/**
 * A text value as it may be stored: strings made well-formed; numbers and booleans as their text;
 * anything else `fallback`. Counts a change under `field`.
 */
function text<F extends string | null | undefined>(v: unknown, fallback: F, field: string, t: ValidationTally): string | F {
  if (typeof v === 'string') {
    const w = wellFormed(v);
    if (w !== v) bump(t.repaired, field);
    return w;
  }
  if (v === fallback) return fallback;
  bump(t.repaired, field);
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : fallback;
}

function instant(v: unknown, field: string, t: ValidationTally): number | null {
  if (v === null) return null;
  const ms = storableEpochMs(v);
  if (ms !== v) bump(t.repaired, field);
  return ms;
}

function count(v: unknown, field: string, t: ValidationTally): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  bump(t.repaired, field);
  if (typeof v !== 'number' || Number.isNaN(v) || v <= 0) return 0;
  return Math.min(Math.floor(v), Number.MAX_SAFE_INTEGER);
}

function isSeq(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The snapshot made storable, or null when its identity is unusable. */
function validSession(s: SessionSnapshot, t: ValidationTally): SessionSnapshot | null {
  const vendorId = text(s.vendorId, null, 'session.vendorId', t);
  const id = text(s.id, null, 'session.id', t);
  if (!vendorId || !id) return null;
  const kind = SESSION_KINDS.has(s.kind) ? s.kind : 'interactive';
  if (kind !== s.kind) bump(t.repaired, 'session.kind');
  return {
    id,
    vendorId,
    cwd: text(s.cwd, null, 'session.cwd', t),
    gitRoot: text(s.gitRoot, null, 'session.gitRoot', t),
    gitBranch: text(s.gitBranch, null, 'session.gitBranch', t),
    startedAt: instant(s.startedAt, 'session.startedAt', t),
    endedAt: instant(s.endedAt, 'session.endedAt', t),
    title: text(s.title, null, 'session.title', t),
    promptCount: count(s.promptCount, 'session.promptCount', t),
    toolErrorCount: count(s.toolErrorCount, 'session.toolErrorCount', t),
    kind,
    parentId: text(s.parentId, null, 'session.parentId', t),
  };
}

/**
 * Makes one parser output storable, in place where it already is (events are checked and fixed
 * field by field; unusable ones removed), and says what it changed in `t`.
 */
export function validateOutput(out: ParseOutput, t: ValidationTally): ParseOutput {
  let session = out.session;
  if (session) {
    const valid = validSession(session, t);
    if (!valid) {
      bump(t.skipped, 'invalid-session');
      if (out.events.length) bump(t.skipped, 'invalid-event', out.events.length);
      return { ...out, session: null, events: [], finalUpdates: [], textAppends: undefined };
    }
    session = valid;
  }
  const events = out.events;
  let kept = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!isPlainObject(e) || !isSeq(e.seq) || !ROLES.has(e.role) || !KINDS.has(e.kind)) {
      bump(t.skipped, 'invalid-event');
      continue;
    }
    if (e.ts !== null) e.ts = instant(e.ts, 'event.ts', t);
    if (typeof e.text !== 'string' || !(e.text as WellFormedString).isWellFormed()) e.text = text(e.text, '', 'event.text', t);
    if (e.toolName !== undefined) {
      const name = text(e.toolName, undefined, 'event.toolName', t);
      if (name === undefined) delete e.toolName;
      else e.toolName = name;
    }
    if (e.cwd !== undefined) {
      const cwd = text(e.cwd, undefined, 'event.cwd', t);
      if (cwd === undefined) delete e.cwd;
      else e.cwd = cwd;
    }
    if (e.isError !== undefined && typeof e.isError !== 'boolean') {
      e.isError = !!e.isError;
      bump(t.repaired, 'event.isError');
    }
    if (!isPlainObject(e.meta)) {
      e.meta = {};
      bump(t.repaired, 'event.meta');
    }
    events[kept++] = e;
  }
  events.length = kept;
  const finalUpdates = out.finalUpdates.filter((u: FinalUpdate) => {
    const ok = isPlainObject(u) && typeof u.sessionId === 'string' && isSeq(u.seq) && typeof u.final === 'boolean';
    if (!ok) bump(t.skipped, 'invalid-update');
    return ok;
  });
  let textAppends = out.textAppends;
  if (textAppends) {
    textAppends = textAppends.filter((a: TextAppend) => {
      const ok = isPlainObject(a) && typeof a.sessionId === 'string' && isSeq(a.seq) && typeof a.text === 'string' && isSeq(a.max) && a.max > 0;
      if (!ok) bump(t.skipped, 'invalid-update');
      else a.text = text(a.text, '', 'event.text', t);
      return ok;
    });
  }
  const valid: ParseOutput = { ...out, session, finalUpdates };
  if (textAppends) valid.textAppends = textAppends;
  return valid;
}

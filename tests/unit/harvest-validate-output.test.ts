/**
 * The one gate between a parser and the store (src/harvest/validate-output.ts): whatever type or
 * range a parser's output holds, what comes out fits the columns; valid output passes unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateOutput, wellFormed, type ValidationTally } from '../../src/harvest/validate-output.js';
import { MAX_EPOCH_MS, storableEpochMs } from '../../src/core/timestamps.js';
import { toMs } from '../../adapters/kit/json.js';
import type { ParseOutput, SessionSnapshot } from '../../adapters/types.js';
import type { SessionEvent } from '../../src/core/records.js';

const tally = (): ValidationTally => ({ skipped: {}, repaired: {} });

function session(over: Partial<Record<keyof SessionSnapshot, unknown>> = {}): SessionSnapshot {
  return { id: 'codex:s1', vendorId: 's1', cwd: '/w', gitRoot: null, gitBranch: 'main', startedAt: 1_760_000_000_000, endedAt: 1_760_000_100_000, title: 't', promptCount: 2, toolErrorCount: 0, kind: 'interactive', parentId: null, ...over } as SessionSnapshot;
}

function event(over: Partial<Record<keyof SessionEvent, unknown>> = {}): SessionEvent {
  return { agent: 'codex', sessionId: 'codex:s1', seq: 0, ts: 1_760_000_000_000, role: 'user', kind: 'prompt', text: 'hello', meta: {}, ...over } as SessionEvent;
}

function output(events: SessionEvent[], s: SessionSnapshot | null = session()): ParseOutput {
  return { session: s, events, finalUpdates: [], skipped: {} };
}

describe('storable timestamps', () => {
  it('keeps 1970..9999 (rounded to a ms) and makes everything else null, never guessing a unit', () => {
    expect(storableEpochMs(0)).toBe(0);
    expect(storableEpochMs(MAX_EPOCH_MS)).toBe(MAX_EPOCH_MS);
    expect(storableEpochMs(1_760_000_000_000.4)).toBe(1_760_000_000_000);
    for (const bad of [1e20, MAX_EPOCH_MS + 1, -1, Number.NaN, Number.POSITIVE_INFINITY, '1760000000000', null, {}]) expect(storableEpochMs(bad)).toBeNull();
    // the readers' units are theirs (seconds below 1e11), and out of range stays out of range
    expect(toMs(1e20)).toBeNull();
    expect(toMs(-5)).toBeNull();
    expect(toMs('+275760-09-13T00:00:00.000Z')).toBeNull();
    expect(toMs('2026-11-20T10:00:00.000Z')).toBe(Date.parse('2026-11-20T10:00:00.000Z'));
    expect(toMs(1_760_000_000)).toBe(1_760_000_000_000);
  });
});

describe('validateOutput', () => {
  it('passes valid output through unchanged, counting nothing', () => {
    const events = [event(), event({ seq: 1, role: 'assistant', kind: 'text', text: 'done', meta: { final: true } }), event({ seq: 2, role: 'assistant', kind: 'tool_call', toolName: 'Bash', text: 'ls', ts: null })];
    const copy = structuredClone(events);
    const t = tally();
    const out = validateOutput(output(events), t);
    expect(out.events).toEqual(copy);
    expect(out.session).toEqual(session());
    expect(t).toEqual({ skipped: {}, repaired: {} });
  });

  it('clamps or converts every field of the wrong type or range, and says which', () => {
    const t = tally();
    const out = validateOutput(
      output(
        [
          event({ ts: 1e20, text: 42, toolName: 7, cwd: { a: 1 }, isError: 'yes', meta: [1] }),
          event({ seq: 1, text: 'half \ud800 pair' }),
          event({ seq: -1 }),
          event({ seq: 2.5 }),
          event({ seq: 3, role: 'system' }),
          event({ seq: 4, kind: 42 }),
        ],
        session({ vendorId: 12345, id: 'codex:12345', startedAt: -5, endedAt: 1e20, cwd: 7, title: ['x'], promptCount: 1e20, toolErrorCount: Number.NaN, kind: 'weird', gitBranch: true }),
      ),
      t,
    );
    expect(out.events).toHaveLength(2);
    expect(out.events[0]).toMatchObject({ ts: null, text: '42', toolName: '7', isError: true, meta: {} });
    expect(out.events[0].cwd).toBeUndefined();
    expect(out.events[1].text).toBe('half \uFFFD pair');
    expect(t.skipped).toEqual({ 'invalid-event': 4 });
    expect(out.session).toMatchObject({ vendorId: '12345', startedAt: null, endedAt: null, cwd: '7', title: null, promptCount: Number.MAX_SAFE_INTEGER, toolErrorCount: 0, kind: 'interactive', gitBranch: 'true' });
    expect(t.repaired).toMatchObject({ 'event.ts': 1, 'event.text': 2, 'event.toolName': 1, 'event.cwd': 1, 'event.isError': 1, 'event.meta': 1, 'session.vendorId': 1, 'session.startedAt': 1, 'session.endedAt': 1, 'session.kind': 1 });
  });

  it('a session whose id is unusable is not stored: its events are counted, not written', () => {
    const t = tally();
    const out = validateOutput(output([event(), event({ seq: 1 })], session({ vendorId: { x: 1 } })), t);
    expect(out.session).toBeNull();
    expect(out.events).toEqual([]);
    expect(t.skipped).toEqual({ 'invalid-session': 1, 'invalid-event': 2 });
  });

  it('any value in any event field yields only storable events (property)', () => {
    const anything = fc.oneof(fc.anything(), fc.double(), fc.constantFrom(1e20, -1, Number.NaN, '\udc00', ''));
    const keys = ['seq', 'ts', 'role', 'kind', 'text', 'toolName', 'cwd', 'isError', 'meta'] as const;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...keys), anything), { maxLength: 5 }), (edits) => {
        const e = event();
        for (const [k, v] of edits) (e as unknown as Record<string, unknown>)[k] = v;
        const out = validateOutput(output([e]), tally());
        for (const x of out.events) {
          expect(Number.isSafeInteger(x.seq) && x.seq >= 0).toBe(true);
          expect(x.ts === null || (Number.isInteger(x.ts) && x.ts >= 0 && x.ts <= MAX_EPOCH_MS)).toBe(true);
          expect(['user', 'assistant', 'tool']).toContain(x.role);
          expect(['prompt', 'text', 'tool_call', 'tool_result']).toContain(x.kind);
          expect(typeof x.text === 'string' && wellFormed(x.text) === x.text).toBe(true);
          expect(x.toolName === undefined || typeof x.toolName === 'string').toBe(true);
          expect(x.cwd === undefined || typeof x.cwd === 'string').toBe(true);
          expect(typeof x.meta === 'object' && x.meta !== null && !Array.isArray(x.meta)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

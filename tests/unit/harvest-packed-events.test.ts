/** The columnar form harvest workers post their event rows in must give back exactly the flat row values. */
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/core/records.js';
import { eventRowValues } from '../../src/store/repos/events.js';
import { packBatch, unpackBatch, type FileResult } from '../../src/harvest/process-file.js';

function result(path: string, events: SessionEvent[] | null): FileResult {
  return {
    path,
    agent: 'codex',
    stamp: { dev: 1, ino: 2, size: 3, mtimeMs: 4 },
    offset: 3,
    pending: 0,
    headHash: 'h',
    headLen: 3,
    reset: true,
    rewritten: false,
    state: null,
    output: events ? { session: null, events, finalUpdates: [], skipped: {} } : null,
    lines: 1,
    bytesRead: 3,
    skipped: {},
    redactions: 0,
    redactionKinds: {},
  };
}

const ev = (seq: number, over: Partial<SessionEvent> = {}): SessionEvent => ({
  agent: 'codex',
  sessionId: 's',
  seq,
  ts: 1_760_000_000_000 + seq,
  role: 'assistant',
  kind: 'text',
  text: `text ${seq}`,
  meta: {},
  ...over,
});

describe('packed event rows (worker → writer)', () => {
  it('unpack to the flat row values of every event, through a structured clone', () => {
    const batches: SessionEvent[][] = [
      [
        // empty strings first in their columns (the packer's "last value" starts out empty)
        ev(9, { toolName: '', cwd: '', text: '' }),
        ev(0, { role: 'user', kind: 'prompt', text: 'fix the → arrow ü', cwd: '/w' }),
        ev(1, { kind: 'tool_call', toolName: 'Bash', text: 'ls', cwd: '/w', meta: { callId: 'c1' } }),
        ev(2, { role: 'tool', kind: 'tool_result', toolName: 'Bash', isError: true, text: '', cwd: '/w', meta: { callId: 'c1', n: [1, { x: null }] } }),
        ev(3, { ts: null, text: 'no time', meta: { final: true } }),
        ev(4, { toolName: undefined, cwd: undefined, text: '\u0000nul and \ud800 lone surrogate' }),
      ],
      [],
      [ev(0, { ts: 0, seq: 2 ** 40, text: 'x'.repeat(100_000), cwd: '/other' }), ev(1, { cwd: null as unknown as string })],
      // a value of an unexpected type: that result's rows travel flat, as they are
      [ev(0, { ts: '2026-01-01' as unknown as number }), ev(1)],
      [ev(7, { isError: false, toolName: 'Read', cwd: '/w' })],
    ];
    const results = batches.map((events, i) => result(`/f${i}`, events.map((e) => ({ ...e }))));
    results.splice(2, 0, result('/gone', null));
    const expected = results.map((r) => {
      const rows: unknown[] = [];
      for (const e of r.output?.events ?? []) eventRowValues(rows, e);
      return rows;
    });
    const posted = v8.deserialize(v8.serialize(packBatch(results))) as ReturnType<typeof packBatch>;
    const back = unpackBatch(posted);
    expect(back.map((r) => r.packed?.rows ?? [])).toEqual(expected);
    for (const r of back) expect(r.output?.events ?? []).toEqual([]);
    expect(back[0].packed).toMatchObject({ events: 6, prompts: 1, toolErrors: 1 });
    expect(back[2].packed).toBeUndefined();
  });
});

/**
 * Fuzz of every field, per agent (issue 43, "ingest is total"): for each line format the harvest
 * reads (Claude Code, Codex, Copilot CLI, Gemini CLI, Pi, Cursor Agent, Antigravity CLI), transcripts of generated lines, at least 500
 * per agent over the runs, mixing
 * - valid prompts (a unique marker each; times as ISO strings and epoch numbers across 1970..9999),
 *   some behind a UTF-8 byte order mark, some with invalid UTF-8 bytes after the marker;
 * - the same prompts with one field (any, nested ones too) replaced by a value of another type or
 *   out of range: 1e20, -1, 2^63, NaN (null in JSON), lone surrogates, long strings, arrays, objects…;
 * - damaged lines: not JSON, cut JSON, JSON that is not an object.
 * Each file is harvested by the real CLI (`harvest --json`). Always: exit 0, no error; every valid
 * line's prompt is stored; every damaged line is counted (`skipped.malformed` + `skipped['not-object']`);
 * and what was stored fits its columns (times null or within range, texts well-formed).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { MAX_EPOCH_MS } from '../../src/core/timestamps.js';
import { listSessions } from '../../src/store/repos/sessions.js';
import { listEvents } from '../../src/store/repos/events.js';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

type Json = Record<string, unknown>;

/** One agent's line format: where a new transcript goes, its first line, and a prompt line. */
interface Format {
  agent: string;
  file(sb: Sandbox, id: string): string;
  header(id: string): Json | null;
  prompt(id: string, n: number, text: string, ts: unknown): Json;
}

const CWD = '/w/fuzz';
const FORMATS: Format[] = [
  {
    agent: 'claude-code',
    file: (sb, id) => path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects/-w-fuzz', `${id}.jsonl`),
    header: () => null,
    prompt: (id, n, text, ts) => ({ type: 'user', uuid: `u-${n}`, parentUuid: null, sessionId: id, cwd: CWD, timestamp: ts, message: { role: 'user', content: text } }),
  },
  {
    agent: 'codex',
    file: (sb, id) => path.join(sb.env.CODEX_HOME!, 'sessions/2026/11/20', `rollout-2026-11-20T10-00-00-${id}.jsonl`),
    header: (id) => ({ timestamp: '2026-11-20T10:00:00.000Z', type: 'session_meta', payload: { id, session_id: id, timestamp: '2026-11-20T10:00:00.000Z', cwd: CWD, originator: 'codex-tui', source: 'cli' } }),
    prompt: (_id, _n, text, ts) => ({ timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } }),
  },
  {
    agent: 'copilot',
    file: (sb, id) => path.join(sb.env.COPILOT_HOME!, 'session-state', id, 'events.jsonl'),
    header: (id) => ({ type: 'session.start', data: { sessionId: id, version: 1, producer: 'copilot-agent', startTime: '2026-11-20T10:00:00.000Z', context: { cwd: CWD } }, id: 'start', timestamp: '2026-11-20T10:00:00.000Z' }),
    prompt: (_id, n, text, ts) => ({ type: 'user.message', data: { content: text, attachments: [] }, id: `m-${n}`, timestamp: ts }),
  },
  {
    agent: 'gemini',
    file: (sb, id) => path.join(sb.env.HOME!, '.gemini/tmp/fuzz/chats', `session-2026-11-20T10-00-${id.slice(0, 8)}.jsonl`),
    header: (id) => ({ sessionId: id, projectHash: 'fuzz', startTime: '2026-11-20T10:00:00.000Z', lastUpdated: '2026-11-20T10:00:00.000Z', kind: 'main' }),
    prompt: (_id, n, text, ts) => ({ id: `m-${n}`, timestamp: ts, type: 'user', content: [{ text }] }),
  },
  {
    // the linear v1 era: a poisoned id in a v2/v3 tree would (rightly) drop the whole tree
    agent: 'pi',
    file: (sb, id) => path.join(sb.env.HOME!, '.pi/agent/sessions/--w-fuzz--', `2026-11-20T10-00-00-000Z_${id}.jsonl`),
    header: (id) => ({ type: 'session', id, timestamp: '2026-11-20T10:00:00.000Z', cwd: CWD }),
    prompt: (_id, _n, text, ts) => ({ type: 'message', timestamp: ts, message: { role: 'user', content: text } }),
  },
  {
    // Cursor Agent's records carry no time (`ts` is a stray field it ignores): the file's mtime is used
    agent: 'cursor',
    file: (sb, id) => path.join(sb.env.HOME!, '.cursor/projects/w-fuzz/agent-transcripts', id, `${id}.jsonl`),
    header: () => null,
    prompt: (_id, _n, text, ts) => ({ role: 'user', ts, message: { content: [{ type: 'text', text: `<user_query>\n${text}\n</user_query>` }] } }),
  },
  {
    // Antigravity CLI: one step record per line; the workspace is not in the transcript (no cwd)
    agent: 'antigravity',
    file: (sb, id) => path.join(sb.env.HOME!, '.gemini/antigravity-cli/brain', id, '.system_generated/logs/transcript.jsonl'),
    header: () => null,
    prompt: (_id, n, text, ts) => ({ step_index: n, source: 'USER_EXPLICIT', type: 'USER_INPUT', status: 'DONE', created_at: ts, content: `<USER_REQUEST>\n${text}\n</USER_REQUEST>` }),
  },
];

/** A storable instant, as a transcript may write it: ISO text, epoch ms or epoch seconds. */
const validTs = fc.oneof(
  fc.integer({ min: Date.parse('2000-01-01'), max: MAX_EPOCH_MS }).map((ms) => new Date(ms).toISOString()),
  fc.integer({ min: 1e11, max: MAX_EPOCH_MS }), // epoch ms (the readers take numbers below 1e11 as seconds)
  fc.integer({ min: 946_684_800, max: 99_999_999_999 }), // epoch seconds
);

/** Values of every JSON type and range, the odd ones weighted in. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(1e20, -1, -1e20, 0, 2 ** 63, 1.5, 1e308, -0.5, 253_402_300_800_000, Number.NaN, null, true, false, '', '\ud800', 'x\udc00y', 'z'.repeat(5000), '2026-13-45T99:99:99Z', '+275760-09-13T00:00:00.000Z', '-000001-01-01T00:00:00Z'),
  fc.integer(),
  fc.double(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
);

type LineSpec =
  | { kind: 'valid'; ts: unknown; bom: boolean; badBytes: boolean }
  | { kind: 'poisoned'; ts: unknown; field: number; value: unknown }
  | { kind: 'damaged'; text: string };

const DAMAGED = ['not json at all', '{"type":"user", "message": ', '[]', '[1,{"a":2}]', '"a string"', '42', 'null', 'true', '{"a":1}}', '\uFEFF}{'];

const lineSpec: fc.Arbitrary<LineSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('valid' as const), ts: validTs, bom: fc.boolean(), badBytes: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('poisoned' as const), ts: fc.oneof(validTs, anyValue), field: fc.nat(), value: anyValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('damaged' as const), text: fc.constantFrom(...DAMAGED) }) },
);

/** Every path to a value inside `o` (objects and arrays), the object's own keys first. */
function fieldPaths(o: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof o !== 'object' || o === null) return [];
  const out: Array<Array<string | number>> = [];
  for (const [k, v] of Object.entries(o)) {
    const p = [...prefix, Array.isArray(o) ? Number(k) : k];
    out.push(p, ...fieldPaths(v, p));
  }
  return out;
}

function setPath(o: Json, p: Array<string | number>, value: unknown): void {
  let cur: Record<string | number, unknown> = o;
  for (const k of p.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[p[p.length - 1]] = value;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const BAD_UTF8 = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]);

/** The file's bytes, and the markers that must be stored and the count of damaged lines. */
function buildFile(f: Format, id: string, specs: LineSpec[]): { bytes: Buffer; markers: string[]; damaged: number; lines: number } {
  const parts: Buffer[] = [];
  const markers: string[] = [];
  let damaged = 0;
  const header = f.header(id);
  if (header) parts.push(Buffer.from(JSON.stringify(header) + '\n'));
  specs.forEach((s, n) => {
    const marker = `fuzz ask ${id.slice(0, 8)} number ${n}`;
    if (s.kind === 'damaged') {
      damaged++;
      parts.push(Buffer.from(s.text + '\n'));
    } else if (s.kind === 'valid') {
      markers.push(marker);
      const line = JSON.stringify(f.prompt(id, n, s.badBytes ? `${marker} ~BAD~` : marker, s.ts));
      const [head, tail] = line.split('~BAD~');
      parts.push(...(s.bom ? [BOM] : []), Buffer.from(head), ...(tail !== undefined ? [BAD_UTF8, Buffer.from(tail)] : []), Buffer.from('\n'));
    } else {
      const o = f.prompt(id, n, marker, s.ts);
      const paths = fieldPaths(o);
      setPath(o, paths[s.field % paths.length], s.value);
      parts.push(Buffer.from(JSON.stringify(o) + '\n'));
    }
  });
  return { bytes: Buffer.concat(parts), markers, damaged, lines: specs.length + (header ? 1 : 0) };
}

let sb: Sandbox;
beforeAll(() => {
  sb = makeSandbox();
});
afterAll(() => sb.cleanup());

const RUNS = 4;
const LINES = 140; // 4 × 140 = 560 generated lines per agent

describe.each(FORMATS)('every field of a $agent transcript, fuzzed', (f) => {
  it(`${RUNS * LINES} generated lines: the harvest exits 0, stores every valid line and counts the damaged ones`, () => {
    let generated = 0;
    fc.assert(
      fc.property(fc.array(lineSpec, { minLength: LINES, maxLength: LINES }), (specs) => {
        const id = crypto.randomUUID();
        const { bytes, markers, damaged, lines } = buildFile(f, id, specs);
        const file = f.file(sb, id);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, bytes);
        generated += specs.length;
        const r = runCli(['harvest', '--json', '--agent', f.agent], sb.env);
        expect(r.status, r.stderr).toBe(0);
        const s = JSON.parse(r.stdout) as { filesChanged: number; lines: number; errors: unknown[]; skipped: Record<string, number> };
        expect(s.errors).toEqual([]);
        expect(s.filesChanged).toBe(1);
        expect(s.lines).toBe(lines);
        expect((s.skipped.malformed ?? 0) + (s.skipped['not-object'] ?? 0)).toBe(damaged);
        const db = openDb(resolvePaths({ env: sb.env }).database, { readonly: true });
        try {
          const sessions = listSessions(db, { agent: f.agent as never, limit: 100_000 }).filter((x) => x.file === file);
          expect(sessions.length).toBeGreaterThan(0);
          const texts = new Set<string>();
          for (const x of sessions) {
            for (const t of [x.startedAt, x.endedAt]) if (t !== null) expect(Number.isInteger(t) && t >= 0 && t <= MAX_EPOCH_MS).toBe(true);
            for (const e of listEvents(db, x.id)) {
              if (e.ts !== null) expect(Number.isInteger(e.ts) && e.ts >= 0 && e.ts <= MAX_EPOCH_MS, `${e.ts}`).toBe(true);
              expect((e.text as string & { isWellFormed(): boolean }).isWellFormed()).toBe(true);
              texts.add(e.text.replace(/ \uFFFD+.*$/s, ''));
            }
          }
          const lost = markers.filter((m) => !texts.has(m));
          expect(lost).toEqual([]);
        } finally {
          db.close();
        }
      }),
      { numRuns: RUNS, endOnFailure: true }, // (a shrink re-runs the CLI hundreds of times: the first counterexample is reported as it is)
    );
    expect(generated).toBeGreaterThanOrEqual(500);
  }, 300_000);
});

/**
 * Property tests over the transcript fixtures: random truncations and byte flips never crash ingest,
 * never drop an intact line, and a truncated append-only file yields a prefix of the full file's events.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { agentOfFile } from '../../adapters/index.js';
import { processFile } from '../../src/harvest/process-file.js';
import { tailLines } from '../../src/harvest/tailer.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { CLAUDE_PROJECT_DIR, fixtureFile, VSCODE_WORKSPACE, type FixtureAgent } from '../helpers/fixtures.js';

/** `<agent>/<path inside its fixture home>`: the same relative path is kept under each temp root. */
const FIXTURES = [
  `claude-code/${CLAUDE_PROJECT_DIR}/5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860.jsonl`,
  `claude-code/${CLAUDE_PROJECT_DIR}/2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23.jsonl`,
  'codex/sessions/2026/10/13/rollout-2026-10-13T10-02-11-01a13448-894e-75f1-ae9c-511bd56efd1b.jsonl',
  'codex/archived_sessions/rollout-2025-09-03T14-22-09-33015626-48e4-4ce0-9948-2e2b765efdc4.jsonl',
  'copilot-cli/session-state/7d2f1c9e-4b3a-4e5d-9f60-8a1b2c3d4e5f/events.jsonl',
  `copilot-vscode/User/workspaceStorage/${VSCODE_WORKSPACE}/chatSessions/9e5d3c1b-7a2f-4d6e-b8c0-1f2e3d4c5b6a.jsonl`,
  `copilot-vscode/User/workspaceStorage/${VSCODE_WORKSPACE}/chatSessions/4c2a9e71-0d3b-4f5a-8e6c-7b1d2e3f4a5b.json`,
];

/** The fixture file behind a FIXTURES entry. */
function source(rel: string): string {
  const [agent, ...rest] = rel.split('/');
  return fixtureFile(agent as FixtureAgent, rest.join('/'));
}

const tmp = makeTempDir('sos-fuzz-');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Writes `content` where the adapter recognises it (same relative path under a temp root). */
function place(rel: string, content: Buffer, tag: string): string {
  const file = path.join(tmp, tag, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  const ws = fixtureFile('copilot-vscode', `User/workspaceStorage/${VSCODE_WORKSPACE}/workspace.json`);
  if (rel.includes('workspaceStorage')) fs.copyFileSync(ws, path.join(path.dirname(path.dirname(file)), 'workspace.json'));
  return file;
}

function run(file: string) {
  const agent = agentOfFile(file)!;
  return processFile({ path: file, agent, offset: 0, state: null, headHash: null, headLen: 0, maxLineBytes: 1 << 20 });
}

const sig = (e: { kind: string; toolName?: string; text: string }) => `${e.kind}|${e.toolName ?? ''}|${e.text}`;
let n = 0;

describe('ingest under damaged input', () => {
  it('byte flips never throw and cost at most the lines they touch', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIXTURES), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (rel, flips) => {
        const original = fs.readFileSync(source(rel));
        const buf = Buffer.from(original);
        for (const [pos, byte] of flips) buf[pos % buf.length] = byte;
        const file = place(rel, buf, `flip${n++}`);
        const r = run(file);
        expect(r.gone).toBeFalsy();
        if (rel.endsWith('.json')) return; // a damaged whole document is retried, never half-applied
        expect(r.output).not.toBeNull();
        const malformed = (r.skipped.malformed ?? 0) + (r.skipped['not-object'] ?? 0);
        expect(malformed).toBeLessThanOrEqual(2 * flips.length);
        // every line the flips did not touch reaches the parser
        const lines: string[] = [];
        const fd = fs.openSync(file, 'r');
        tailLines(fd, 0, { maxLineBytes: 1 << 20, onLine: (l) => lines.push(l), onOversize: () => {} });
        fs.closeSync(fd);
        const originalLines = original.toString('utf8').split('\n').filter((l) => l.trim());
        const touched = new Set(flips.map(([pos]) => original.subarray(0, pos % buf.length).toString('latin1').split('\n').length - 1));
        originalLines.forEach((l, i) => {
          const complete = i < originalLines.length - 1 || original[original.length - 1] === 0x0a;
          if (!touched.has(i) && !touched.has(i - 1) && !touched.has(i + 1) && complete) expect(lines).toContain(l);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('random bad lines inserted in each line format cost only themselves', () => {
    // the JSONL fixtures, and Gemini CLI's chat recording placed where Gemini keeps one
    const GEMINI = 'gemini/tmp/app/chats/session-2026-10-01T10-00-5d3c2b1a.jsonl';
    const geminiSource = path.join(path.dirname(fixtureFile('codex', '.')), '..', 'gemini', 'session-jsonl.jsonl');
    const src = (rel: string) => (rel === GEMINI ? geminiSource : source(rel));
    const jsonl = [...FIXTURES.filter((f) => f.endsWith('.jsonl')), GEMINI];
    const full = new Map(jsonl.map((rel) => [rel, run(place(rel, fs.readFileSync(src(rel)), 'bad-full')).output!.events.map(sig)]));
    for (const [rel, events] of full) expect(events.length, rel).toBeGreaterThan(0);
    // not JSON, cut JSON, a JSON array, an empty object, and objects of the formats' shapes with wrong types
    const BAD = ['not json at all', '{"type":"user"', '[]', '{}', '{"type":"user","message":{"role":"user","content":7}}', '{"type":"response_item","payload":7}', '{"type":"assistant.message","data":null}', '{"kind":"oops","k":["requests"],"v":[]}', '"a string"', '{"type":"event_msg","payload":{"type":"user_message","message":["x"]}}'];
    fc.assert(
      fc.property(fc.constantFrom(...jsonl), fc.uniqueArray(fc.nat(), { minLength: 1, maxLength: 4 }), fc.array(fc.constantFrom(...BAD), { minLength: 4, maxLength: 4 }), (rel, where, bad) => {
        const lines = fs.readFileSync(src(rel), 'utf8').split('\n').filter((l) => l.trim());
        // (never before the first line: a file's head identifies its session for some formats)
        where.forEach((w, k) => lines.splice(1 + (w % lines.length), 0, bad[k]));
        const r = run(place(rel, Buffer.from(lines.join('\n') + '\n'), `bad${n++}`));
        expect(r.output).not.toBeNull();
        expect(r.output!.events.map(sig)).toEqual(full.get(rel));
      }),
      { numRuns: 150 },
    );
  });

  it('a truncated append-only file yields a prefix of the full file’s events', () => {
    const appendOnly = FIXTURES.filter((f) => !f.includes('copilot-vscode'));
    const full = new Map(appendOnly.map((rel) => [rel, run(source(rel)).output!.events.map(sig)]));
    fc.assert(
      fc.property(fc.constantFrom(...appendOnly), fc.double({ min: 0, max: 1, noNaN: true }), (rel, frac) => {
        const original = fs.readFileSync(source(rel));
        const cut = original.subarray(0, Math.floor(original.length * frac));
        const r = run(place(rel, cut, `cut${n++}`));
        expect(r.output).not.toBeNull();
        expect(r.skipped.malformed ?? 0).toBe(0); // a cut line is pending, not garbage
        const got = r.output!.events.map(sig);
        const want = full.get(rel)!;
        expect(got.length).toBeLessThanOrEqual(want.length);
        got.forEach((s, i) => {
          // the last event may be a message whose later blocks are not written yet
          if (i < got.length - 1) expect(s).toBe(want[i]);
          else expect(want[i].startsWith(s.slice(0, Math.min(s.length, 40)))).toBe(true);
        });
      }),
      { numRuns: 150 },
    );
  });
});

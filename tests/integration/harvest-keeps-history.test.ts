/**
 * Stored history is never deleted by a change of the file: random shrinks (truncation, zero-fill
 * after a crash, emptying, a shorter rewrite) of a harvested transcript never lower the stored
 * prompt count, and a bad line in a transcript costs that line only.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox } from '../helpers/sandbox.js';
import { defaultConfig } from '../../src/core/config.js';
import { openDb } from '../../src/store/db.js';
import { runHarvest } from '../../src/harvest/ingest.js';

const sb = makeSandbox();
afterAll(() => sb.cleanup());

const SID = '0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8';
function transcript(prompts: number): string {
  const base = { sessionId: SID, cwd: '/w/app', gitBranch: 'main', entrypoint: 'cli', isSidechain: false };
  const lines: string[] = [];
  for (let i = 0; i < prompts; i++) {
    const ts = `2026-10-01T00:${String(i).padStart(2, '0')}:00.000Z`;
    lines.push(JSON.stringify({ ...base, type: 'user', uuid: `u${i}`, timestamp: ts, message: { role: 'user', content: `please fix bug number ${i} in the parser` } }));
    lines.push(JSON.stringify({ ...base, type: 'assistant', uuid: `a${i}`, timestamp: ts, message: { id: `msg_${i}`, role: 'assistant', content: [{ type: 'text', text: `fixed bug ${i}` }], stop_reason: 'end_turn' } }));
  }
  return lines.join('\n') + '\n';
}

let round = 0;
async function storedPrompts(file: string, content: Buffer | string): Promise<{ before: number; after: number }> {
  const home = path.join(sb.root, `r${round++}`);
  const env = { ...sb.env, SKILLOPT_SLEEP_HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'claude') };
  const target = path.join(env.CLAUDE_CONFIG_DIR, 'projects/-w-app', file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, transcript(12));
  const db = openDb(path.join(home, 'store.db'));
  const count = () => (db.prepare("SELECT count(*) AS n FROM events WHERE kind = 'prompt'").get() as { n: number }).n;
  try {
    const config = defaultConfig();
    await runHarvest(db, config, { env, stateDir: path.join(home, 'state') });
    const before = count();
    fs.writeFileSync(target, content);
    await runHarvest(db, config, { env, stateDir: path.join(home, 'state') });
    return { before, after: count() };
  } finally {
    db.close();
  }
}

describe('harvest never loses stored history', () => {
  it('random shrink / zero-fill / empty / shorter rewrite never lowers the stored prompt count', async () => {
    const full = Buffer.from(transcript(12));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('truncate', 'zero-fill', 'empty', 'rewrite'), fc.double({ min: 0, max: 1, noNaN: true }), async (how, frac) => {
        const at = Math.floor(full.length * frac);
        const content =
          how === 'truncate' ? full.subarray(0, at) : how === 'zero-fill' ? Buffer.concat([Buffer.alloc(at), full.subarray(at)]) : how === 'empty' ? Buffer.alloc(0) : Buffer.from(transcript(Math.floor(frac * 11)));
        const { before, after } = await storedPrompts(`${SID}.jsonl`, content);
        expect(before).toBe(12);
        expect(after, how).toBeGreaterThanOrEqual(before);
      }),
      { numRuns: 24 },
    );
  }, 120_000);

  it('random bad lines cost only themselves', async () => {
    const good = transcript(12).trimEnd().split('\n');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: good.length }), { minLength: 1, maxLength: 4 }), fc.constantFrom('{"type":"user"', 'not json at all', '{"type":"user","message":{"role":"user","content":7}}', '[]'), async (where, bad) => {
        const lines = [...good];
        for (const w of [...where].sort((a, b) => b - a)) lines.splice(w, 0, bad);
        const { after } = await storedPrompts(`${SID}.jsonl`, lines.join('\n') + '\n');
        expect(after).toBe(12);
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});

describe('VS Code chat mutation log', () => {
  it('a line without a numeric kind costs that line, not the session', async () => {
    const { VscodeChatParser } = await import('../../adapters/copilot/vscode.js');
    const file = path.join(sb.root, 'ws/chatSessions/9e5d3c1b-7a2f-4d6e-b8c0-1f2e3d4c5b6a.jsonl');
    const request = (id: string, text: string) => ({ requestId: id, timestamp: 1791969300000, message: { text }, response: [{ value: `done: ${text}` }], modelState: { value: 1, completedAt: 1791969310000 } });
    const lines = [
      { kind: 0, v: { version: 3, sessionId: 'vs-1', creationDate: 1791969000000, requests: [request('r1', 'add the CSV export')] } },
      { kind: 'oops', k: ['requests'], v: [] },
      { requests: [] },
      { kind: 2, k: ['requests'], v: [request('r2', 'now run the tests')] },
    ];
    const p = new VscodeChatParser(file);
    for (const l of lines) p.line(l as Record<string, unknown>);
    const out = p.flush();
    expect(out.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['add the CSV export', 'now run the tests']);
    expect(out.skipped['replay-error']).toBe(2);
  });
});

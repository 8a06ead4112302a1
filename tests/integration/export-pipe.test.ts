/**
 * `export` into a pipe whose reader is slow to start and slow to read (`export | (sleep 1; cat)`):
 * every byte arrives, as valid JSONL, and the export exits 0. It used to write with `writeSync` to a
 * non-blocking stdout and fail with EAGAIN as soon as the pipe was full; it now writes through
 * src/cli/big-output.ts, which waits for the reader.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { upsertSession } from '../../src/store/repos/sessions.js';
import { insertEvents } from '../../src/store/repos/events.js';
import type { SessionEvent } from '../../src/core/records.js';
import { CLI_BIN, makeSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
/** The slow reader: starts after 1 s, then takes 16 KB at a time with a pause, checks every line. */
const READER = `
let buf = '', bytes = 0, lines = 0, bad = 0;
process.stdin.on('data', (chunk) => {
  process.stdin.pause();
  bytes += chunk.length;
  buf += chunk.toString('utf8');
  const parts = buf.split('\\n');
  buf = parts.pop();
  for (const l of parts) { lines++; try { JSON.parse(l); } catch { bad++; } }
  setTimeout(() => process.stdin.resume(), 1);
});
process.stdin.on('end', () => process.stdout.write(JSON.stringify({ bytes, lines, bad, rest: buf.length })));
`;
const EVENTS = 2_000;
const TEXT_CHARS = 25_000;

beforeAll(() => {
  sb = makeSandbox();
  fs.writeFileSync(path.join(sb.root, 'reader.cjs'), READER);
  // ~50 MB of event text: 2,000 events of 25,000 characters over 20 sessions
  const db = openDb(resolvePaths({ env: sb.env }).database);
  db.transaction(() => {
    for (let s = 0; s < 20; s++) {
      const id = `claude-code:pipe-${s}`;
      const sid = upsertSession(db, { id, agent: 'claude-code', vendorId: `pipe-${s}`, project: '/w/pipe', cwd: '/w/pipe', gitBranch: null, startedAt: 1_760_000_000_000, endedAt: 1_760_000_100_000, kind: 'interactive', parentId: null, file: `/w/pipe/${s}.jsonl`, promptCount: EVENTS / 20, toolErrorCount: 0, title: null });
      const events: SessionEvent[] = [];
      for (let i = 0; i < EVENTS / 20; i++) {
        events.push({ agent: 'claude-code', sessionId: id, seq: i, ts: 1_760_000_000_000 + i, role: 'user', kind: 'prompt', text: `${s}/${i} ` + 'lorem ipsum dolor sit amet '.repeat(TEXT_CHARS / 27), meta: {} });
      }
      insertEvents(db, sid, events);
    }
  })();
  db.close();
});
afterAll(() => sb.cleanup());

/** Runs `skillopt-sleep <args> | (sleep 1; slow reader)` in a shell; the CLI's exit code comes back through a file. */
function pipedToSlowReader(args: string[]): { cliCode: number; got: { bytes: number; lines: number; bad: number; rest: number }; stderr: string } {
  const rcFile = path.join(sb.root, 'rc');
  fs.rmSync(rcFile, { force: true });
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cli = [process.execPath, CLI_BIN, ...args].map(q).join(' ');
  const script = `{ ${cli}; echo $? > ${q(rcFile)}; } | (sleep 1; ${q(process.execPath)} ${q(path.join(sb.root, 'reader.cjs'))})`;
  const r = spawnSync('sh', ['-c', script], { env: sb.env, encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 20 });
  expect(r.status, r.stderr).toBe(0);
  return { cliCode: Number(fs.readFileSync(rcFile, 'utf8').trim()), got: JSON.parse(r.stdout) as { bytes: number; lines: number; bad: number; rest: number }, stderr: r.stderr };
}

describe('output to a slow pipe', () => {
  it('export of a 50 MB store into `(sleep 1; slow reader)` completes: every row arrives whole, exit 0', () => {
    const { cliCode, got, stderr } = pipedToSlowReader(['export']);
    expect(stderr).not.toMatch(/EAGAIN/);
    expect(cliCode, stderr).toBe(0);
    expect(got.bytes).toBeGreaterThan(50_000_000);
    expect(got.bad).toBe(0);
    expect(got.rest).toBe(0); // the last line ends with its newline
    // the header, 20 sessions and every event, nothing more
    expect(got.lines).toBe(1 + 20 + EVENTS);
    expect(stderr).toMatch(new RegExp(`exported ${20 + EVENTS} rows`));
    // and the same bytes as an export to a file
    const file = path.join(sb.root, 'out.jsonl');
    const direct = spawnSync(process.execPath, [CLI_BIN, 'export', '--out', file], { env: sb.env, encoding: 'utf8', timeout: 120_000 });
    expect(direct.status, direct.stderr).toBe(0);
    expect(fs.statSync(file).size).toBe(got.bytes);
  }, 180_000);

  it('export into a reader that closes early (`| head`) stops quietly with exit 0', () => {
    const q = (s: string) => `'${s}'`;
    const rcFile = path.join(sb.root, 'rc-head');
    const r = spawnSync('sh', ['-c', `{ ${q(process.execPath)} ${q(CLI_BIN)} export; echo $? > ${q(rcFile)}; } | head -c 1000 > /dev/null`], { env: sb.env, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(rcFile, 'utf8').trim()).toBe('0');
    expect(r.stderr).not.toMatch(/EAGAIN|error/i);
  }, 180_000);
});

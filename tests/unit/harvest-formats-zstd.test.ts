/**
 * Codex cold rollouts `rollout-*.jsonl.zst` (docs/transcript-formats.md §2.1): listed next to plain
 * rollouts, decompressed and read whole with the same per-line path, the plain `.jsonl` preferred
 * when both exist, and a corrupt or oversized file is a per-file error that never stops the pass.
 * The compressed files are committed (tests/fixtures/codex/compressed/, made with the real `zstd`
 * CLI; the README there says how), so this runs without the CLI and without a child process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentOfFile, codexAdapter } from '../../adapters/index.js';
import { codexIdFromPath, isCodexTranscript, listCodexFiles } from '../../adapters/codex/paths.js';
import { processFile, type FileResult } from '../../src/harvest/process-file.js';
import { CompressedFileError, tailCompressed } from '../../src/harvest/compressed.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { getSession } from '../../src/store/repos/sessions.js';
import { listEvents } from '../../src/store/repos/events.js';
import { unreadableFiles } from '../../src/store/repos/files.js';
import { makeSandbox, makeTempDir, type Sandbox } from '../helpers/sandbox.js';
import { CODEX_COMPRESSED_DIR, fixtureHome } from '../helpers/fixtures.js';

const DAY = 'sessions/2026/10/13';
const MAIN = 'rollout-2026-10-13T10-02-11-01a13448-894e-75f1-ae9c-511bd56efd1b.jsonl';
const TRUNCATED = 'sessions/2026/10/15/rollout-2026-10-15T16-20-05-01a13fef-3d0b-7735-afdb-86863e345c95.jsonl';
const MAX_LINE = 8 << 20;

const CODEX = fixtureHome('codex');

/** Puts the committed compressed form of `name` (a file name in CODEX_COMPRESSED_DIR, minus `.zst`) at `dest`. */
function placeZst(name: string, dest: string): void {
  fs.copyFileSync(path.join(CODEX_COMPRESSED_DIR, `${name}.zst`), dest);
}

/** The lines compressed into blocks-a/blocks-b.jsonl.zst: varied lengths, one over the cap used below. */
function blockLines(): string[] {
  const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(200 + ((i * 37) % 1500)) }));
  lines[1234] = JSON.stringify({ big: 'y'.repeat(70_000) });
  return lines;
}

function parse(file: string): FileResult {
  return processFile({ path: file, agent: 'codex', offset: 0, state: null, headHash: null, headLen: 0, maxLineBytes: MAX_LINE });
}

/** What must be identical between the plain and the compressed read of one rollout. */
const shape = (r: FileResult) => r.output!.events.map((e) => ({ seq: e.seq, kind: e.kind, role: e.role, text: e.text, tool: e.toolName, err: !!e.isError, final: !!e.meta.final, ts: e.ts }));

describe('Codex .jsonl.zst paths', () => {
  it('recognizes, lists and names compressed rollouts, read whole', () => {
    const f = `/h/.codex/${DAY}/${MAIN}.zst`;
    expect(isCodexTranscript(f)).toBe(true);
    expect(isCodexTranscript(`/h/.codex/${DAY}/notes.jsonl.zst`)).toBe(false);
    expect(agentOfFile(f)).toBe('codex');
    expect(codexIdFromPath(f)).toBe('01a13448-894e-75f1-ae9c-511bd56efd1b');
    expect(codexAdapter.readMode(f)).toBe('whole');
    expect(codexAdapter.readMode(f.slice(0, -4))).toBe('append');
    const home = makeTempDir();
    try {
      const dir = path.join(home, DAY);
      fs.mkdirSync(dir, { recursive: true });
      for (const n of [MAIN, `${MAIN}.zst`, 'other.zst']) fs.writeFileSync(path.join(dir, n), '');
      const listed = listCodexFiles({ agent: 'codex', path: path.join(home, 'sessions'), exists: true, kind: 'codex-sessions' }).map((p) => path.basename(p));
      expect(listed.sort()).toEqual([MAIN, `${MAIN}.zst`]);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('reading .jsonl.zst (committed zstd CLI output)', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = makeTempDir();
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('gives the same session and events as the plain rollout', () => {
    const plain = path.join(CODEX, DAY, MAIN);
    const dir = path.join(tmp, 'codex', DAY);
    fs.mkdirSync(dir, { recursive: true });
    const zst = path.join(dir, `${MAIN}.zst`);
    placeZst(MAIN, zst);
    const a = parse(plain);
    const b = parse(zst);
    expect(b.error).toBeUndefined();
    expect(b.output!.events.length).toBeGreaterThan(10);
    expect(shape(b)).toEqual(shape(a));
    expect(b.output!.session).toEqual(a.output!.session);
    expect(b.skipped).toEqual(a.skipped);
    expect(b.lines).toBe(a.lines);
    expect(b.reset).toBe(true);
    expect(b.offset).toBe(fs.statSync(zst).size); // the whole compressed file was consumed
    expect(b.pending).toBe(0);
    expect(b.state).not.toBeNull(); // (ignored in whole mode: every change re-reads from 0)
  });

  it('reads a finished file to its end: a last line without newline is a line (here: malformed)', () => {
    const plain = path.join(CODEX, TRUNCATED);
    const zst = path.join(tmp, 'codex', `${path.basename(TRUNCATED)}.zst`);
    fs.mkdirSync(path.dirname(zst), { recursive: true });
    placeZst(path.basename(TRUNCATED), zst);
    const a = parse(plain);
    const b = parse(zst);
    expect(a.pending).toBeGreaterThan(0); // the live file holds the partial line back
    expect(b.pending).toBe(0);
    expect(b.skipped.malformed).toBe(1);
    expect(shape(b)).toEqual(shape(a));
  });

  it('decodes multi-frame files and lines that cross decoder blocks; caps line and total size', () => {
    // ~2.5 MB of lines of varied length: block boundaries (128 KiB) fall inside lines. blocks-a holds
    // the first half (LF, final newline), blocks-b the second (CRLF, no final newline); line 1234 is
    // over the line cap below
    const lines = blockLines();
    const multi = path.join(tmp, 'multi.jsonl.zst');
    fs.writeFileSync(multi, Buffer.concat([fs.readFileSync(path.join(CODEX_COMPRESSED_DIR, 'blocks-a.jsonl.zst')), fs.readFileSync(path.join(CODEX_COMPRESSED_DIR, 'blocks-b.jsonl.zst'))]));

    const got: string[] = [];
    let oversize = 0;
    const fd = fs.openSync(multi, 'r');
    try {
      const r = tailCompressed(fd, 0, { maxLineBytes: 64_000, onLine: (l) => got.push(l), onOversize: () => oversize++ });
      expect(r).toEqual({ offset: fs.statSync(multi).size, pending: 0 });
      expect(oversize).toBe(1);
      expect(got).toEqual(lines.filter((_, i) => i !== 1234));
      // the same content over a 1 MB cap is refused, whole
      expect(() => tailCompressed(fd, 0, { maxLineBytes: 64_000, onLine: () => {}, onOversize: () => {} }, 1 << 20)).toThrow(CompressedFileError);
      expect(() => tailCompressed(fd, 0, { maxLineBytes: 64_000, onLine: () => {}, onOversize: () => {} }, 1 << 20)).toThrow(/over the 1 MiB cap/);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('turns corrupt, truncated and empty files into a per-file error (recorded, no retry loop)', () => {
    const good = path.join(tmp, 'good.jsonl.zst');
    placeZst(MAIN, good);
    const bytes = fs.readFileSync(good);
    const cases: Record<string, Buffer> = {
      'not zstd at all': Buffer.from('{"this":"is plain json, not zstd"}\n'),
      truncated: bytes.subarray(0, Math.floor(bytes.length / 2)),
      'flipped bytes': Buffer.from(bytes.map((b, i) => (i > 20 && i % 7 === 0 ? b ^ 0xff : b))),
      empty: Buffer.alloc(0),
    };
    for (const [name, data] of Object.entries(cases)) {
      const f = path.join(tmp, 'sessions', `rollout-2026-10-13T10-02-11-01a13448-894e-75f1-ae9c-51${name.length}bd56efd1b.jsonl.zst`);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, data);
      const r = parse(f);
      expect(r.error, name).toMatch(/zstd|compressed/);
      expect(r.retry, name).toBeUndefined(); // the stamp is recorded: re-read only when the file changes
      expect(r.output?.session ?? null, name).toBeNull();
      expect(r.output?.events ?? [], name).toEqual([]);
    }
  });
});

describe('runHarvest with compressed rollouts', () => {
  let sb: Sandbox;
  let db: Db;
  const config = defaultConfig();
  const harvest = () => runHarvest(db, config, { env: sb.env, stateDir: path.join(sb.home, 'state'), agents: ['codex'], workers: 0 });

  beforeEach(() => {
    sb = makeSandbox();
    db = openDb(path.join(sb.home, 'state', 'sleep.db'));
  });
  afterEach(() => {
    db.close();
    sb.cleanup();
  });

  it('harvests a .zst rollout, then lets the plain .jsonl of the same session win', async () => {
    const dir = path.join(sb.env.CODEX_HOME!, DAY);
    fs.mkdirSync(dir, { recursive: true });
    const zst = path.join(dir, `${MAIN}.zst`);
    placeZst(MAIN, zst);
    const id = 'codex:01a13448-894e-75f1-ae9c-511bd56efd1b';

    const first = await harvest();
    expect(first.errors).toEqual([]);
    expect(first.sessions).toBe(1);
    expect(getSession(db, id)?.file).toBe(zst);
    const fromZst = listEvents(db, id).map((e) => [e.seq, e.kind, e.text]);
    expect(fromZst.length).toBe(first.events);
    expect((await harvest()).filesChanged).toBe(0); // unchanged: one stat, nothing read

    const plain = path.join(dir, MAIN);
    fs.copyFileSync(path.join(CODEX, DAY, MAIN), plain);
    await harvest();
    expect(getSession(db, id)?.file).toBe(plain);
    expect(listEvents(db, id).map((e) => [e.seq, e.kind, e.text])).toEqual(fromZst); // replaced, not doubled

    fs.utimesSync(zst, new Date(), new Date()); // a changed .zst does not take the session back
    const again = await harvest();
    expect(again.skipped['duplicate-file']).toBe(1);
    expect(getSession(db, id)?.file).toBe(plain);
  });

  it('reports a corrupt .zst once and still harvests the other files of the pass', async () => {
    const dir = path.join(sb.env.CODEX_HOME!, DAY);
    fs.mkdirSync(dir, { recursive: true });
    const bad = path.join(dir, 'rollout-2026-10-13T11-00-00-01a13448-0000-7000-8000-000000000bad.jsonl.zst');
    fs.writeFileSync(bad, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]));
    placeZst(MAIN, path.join(dir, `${MAIN}.zst`));
    fs.copyFileSync(path.join(CODEX, TRUNCATED), path.join(dir, path.basename(TRUNCATED)));

    const s = await harvest();
    expect(s.errors).toHaveLength(1);
    expect(s.errors[0].file).toBe(bad);
    expect(s.errors[0].message).toMatch(/corrupt zstd data/);
    expect(s.sessions).toBe(2);
    expect(getSession(db, 'codex:01a13448-894e-75f1-ae9c-511bd56efd1b')?.agent).toBe('codex');
    expect(getSession(db, 'codex:01a13fef-3d0b-7735-afdb-86863e345c95')?.agent).toBe('codex');
    const next = await harvest();
    expect(next.errors).toEqual([]); // recorded with its stamp: not re-read until it changes
    expect(next.filesChanged).toBe(0);
    // ...and the error stays on the file row, where `doctor` finds it
    const unreadable = unreadableFiles(db);
    expect(unreadable.count).toBe(1);
    expect(unreadable.sample[0]).toEqual({ path: bad, error: expect.stringMatching(/corrupt zstd data/) });
  });
});

/** The line tailer: complete lines only, partial tails held back, CRLF, blank lines, oversize lines, head hashes. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headHash, tailLines } from '../../src/harvest/tailer.js';
import { makeTempDir } from '../helpers/sandbox.js';

let dir: string;
afterEach(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

function tail(file: string, offset: number, maxLineBytes = 1 << 20) {
  const lines: string[] = [];
  let oversize = 0;
  const fd = fs.openSync(file, 'r');
  try {
    const r = tailLines(fd, offset, { maxLineBytes, onLine: (l) => lines.push(l), onOversize: () => oversize++ });
    return { ...r, lines, oversize };
  } finally {
    fs.closeSync(fd);
  }
}

function write(content: string | Buffer): string {
  dir = makeTempDir('sos-tail-');
  const f = path.join(dir, 'f.jsonl');
  fs.writeFileSync(f, content);
  return f;
}

describe('tailLines', () => {
  it('reads complete lines, skips blank ones, strips \\r, and resumes from the offset', () => {
    const f = write('{"a":1}\r\n\n{"b":2}\n');
    const r = tail(f, 0);
    expect(r.lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(r.offset).toBe(fs.statSync(f).size);
    fs.appendFileSync(f, '{"c":3}\n');
    const r2 = tail(f, r.offset);
    expect(r2.lines).toEqual(['{"c":3}']);
  });

  it('holds back an unterminated line that is not yet valid JSON, then reads it once completed', () => {
    const f = write('{"a":1}\n{"b":');
    const r = tail(f, 0);
    expect(r.lines).toEqual(['{"a":1}']);
    expect(r.offset).toBe(8);
    expect(r.pending).toBe(5);
    fs.appendFileSync(f, '2}\n{"c":3}\n');
    const r2 = tail(f, r.offset);
    expect(r2.lines).toEqual(['{"b":2}', '{"c":3}']);
    expect(r2.pending).toBe(0);
  });

  it('consumes an unterminated last line that already parses (Claude often omits the final newline)', () => {
    const f = write('{"a":1}\n{"b":2}');
    const r = tail(f, 0);
    expect(r.lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(r.offset).toBe(fs.statSync(f).size);
    fs.appendFileSync(f, '\n{"c":3}\n');
    expect(tail(f, r.offset).lines).toEqual(['{"c":3}']);
  });

  it('skips lines over the cap without holding them, inside one chunk and across chunks', () => {
    const big = 'x'.repeat(3 << 20); // spans several 1 MiB reads
    const f = write(`{"a":1}\n{"big":"${'y'.repeat(5000)}"}\n{"b":2}\n{"huge":"${big}"}\n{"c":3}\n`);
    const r = tail(f, 0, 4096);
    expect(r.lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(r.oversize).toBe(2);
    expect(r.offset).toBe(fs.statSync(f).size);
  });

  it('keeps multi-byte UTF-8 intact across chunk boundaries', () => {
    const text = 'é€😀'.repeat(200_000); // > 1 MiB of multi-byte characters
    const f = write(`${JSON.stringify({ t: text })}\n`);
    const r = tail(f, 0, 16 << 20);
    expect((JSON.parse(r.lines[0]) as { t: string }).t).toBe(text);
  });

  it('head hashes identify a file by its first bytes', () => {
    const f = write('{"a":1}\n{"b":2}\n');
    const fd = fs.openSync(f, 'r');
    const h1 = headHash(fd, 8);
    fs.closeSync(fd);
    fs.appendFileSync(f, '{"c":3}\n');
    const fd2 = fs.openSync(f, 'r');
    expect(headHash(fd2, 8)).toBe(h1);
    fs.closeSync(fd2);
    fs.writeFileSync(f, '{"z":9}\n{"b":2}\n');
    const fd3 = fs.openSync(f, 'r');
    expect(headHash(fd3, 8)).not.toBe(h1);
    fs.closeSync(fd3);
  });

  it('byte mode hands over the same lines as byte ranges, and the head of a read from 0', () => {
    const content = '{"a":"é"}\r\n\n{"b":2}\n{"c":' + '"x"'.padEnd(3000, ' ') + '}\n{"partial":';
    const f = write(content);
    const fd = fs.openSync(f, 'r');
    try {
      const got: string[] = [];
      let head = '';
      const r = tailLines(fd, 0, {
        maxLineBytes: 1 << 20,
        onOversize: () => {},
        onBytes: (b, s, e) => got.push(b.toString('utf8', s, e)),
        onHead: (b, n) => (head = b.toString('utf8', 0, Math.min(n, 9))),
      });
      expect(got).toEqual(tail(f, 0).lines);
      expect(got[0]).toBe('{"a":"é"}');
      expect(head).toBe('{"a":"é"');
      expect(r.pending).toBe('{"partial":'.length);
    } finally {
      fs.closeSync(fd);
    }
  });
});

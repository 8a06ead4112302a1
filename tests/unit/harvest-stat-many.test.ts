/** statMany: per path, its numbers, "missing", or the error that stopped the stat. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { statMany } from '../../src/harvest/stat-many.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('statMany', () => {
  it('gives each path its stamp, missing, or its error, in order', () => {
    const root = makeTempDir('sos-statmany-');
    dirs.push(root);
    const paths: string[] = [];
    for (let i = 0; i < 300; i++) {
      const p = path.join(root, `f${i}.jsonl`);
      if (i % 7 !== 3) fs.writeFileSync(p, 'x'.repeat(i % 50));
      paths.push(p);
    }
    fs.writeFileSync(path.join(root, 'plain'), '');
    paths.splice(5, 0, path.join(root, 'plain', 'events.jsonl')); // ENOTDIR: missing, like a path that is not there
    paths.splice(200, 0, path.join(root, 'plain', 'x.jsonl'));
    const out = statMany(paths);
    expect(out.length).toBe(paths.length);
    paths.forEach((p, i) => {
      if (p.includes(`plain${path.sep}`)) {
        // ENOTDIR: the path does not exist, the same on Node 20 and 22
        expect(out.error(i)).toBeUndefined();
        expect(out.exists(i)).toBe(false);
      } else if (!fs.existsSync(p)) {
        expect(out.exists(i)).toBe(false);
        expect(out.error(i)).toBeUndefined();
      } else {
        const st = fs.statSync(p);
        expect(out.isFile(i)).toBe(true);
        expect(out.stamp(i)).toEqual({ dev: st.dev, ino: st.ino, size: st.size, mtimeMs: Math.trunc(st.mtimeMs) });
        expect(out.matches(i, [st.dev, st.ino, st.size, Math.trunc(st.mtimeMs)])).toBe(true);
        expect(out.matches(i, [st.dev, st.ino, st.size + 1, Math.trunc(st.mtimeMs)])).toBe(false);
        expect(out.sameFile(i, [st.dev, st.ino + 1, st.size, 0])).toBe(false);
      }
    });
    const dir = statMany([root]);
    expect(dir.exists(0) && !dir.isFile(0)).toBe(true);
  });
});

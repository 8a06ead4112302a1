/**
 * The listing cache behind a long-lived process's rescans: an unchanged root is served from memory
 * after one stat per directory, and any entry created, deleted or renamed anywhere in it (or a
 * directory that appears, vanishes or is replaced) makes the next pass walk it again. Directories
 * that changed within the racy window are never served from the cache.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirListingCache, RACY_MS } from '../../src/harvest/dir-cache.js';
import { walkFiles } from '../../adapters/kit/walk.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A tree whose directories look settled (last changed an hour ago). */
function settledTree(): string {
  const root = makeTempDir('sos-dircache-');
  dirs.push(root);
  for (const f of ['p1/a.jsonl', 'p1/b.jsonl', 'p1/s1/subagents/agent-x.jsonl', 'p2/c.jsonl', 'p2/notes.txt']) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), '{}\n');
  }
  ageDirs(root);
  return root;
}

function ageDirs(root: string): void {
  const old = new Date(Date.now() - 3600_000);
  const visit = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) visit(path.join(d, e.name));
    fs.utimesSync(d, old, old);
  };
  visit(root);
}

// ctime cannot be set back: a clock RACY_MS ahead makes freshly made directories count as settled
const later = () => Date.now() + RACY_MS + 1_000;
const list = (cache: DirListingCache, root: string) =>
  [...cache.listRoot(root, (read) => walkFiles(root, (_p, name) => name.endsWith('.jsonl'), 4, undefined, read))].map((p) => path.relative(root, p)).sort();

describe('DirListingCache', () => {
  it('serves an unchanged root from memory, without reading any directory again', () => {
    const root = settledTree();
    const cache = new DirListingCache(later);
    const first = list(cache, root);
    expect(first).toEqual(['p1/a.jsonl', 'p1/b.jsonl', 'p1/s1/subagents/agent-x.jsonl', 'p2/c.jsonl']);
    const reads = cache.reads;
    expect(list(cache, root)).toEqual(first);
    expect(cache.rootHits).toBe(1);
    expect(cache.reads).toBe(reads);
  });

  it('sees a file created, deleted or renamed in any directory of the root, and only re-reads that one', () => {
    const root = settledTree();
    const cache = new DirListingCache(later);
    list(cache, root);
    const reads = cache.reads;
    fs.writeFileSync(path.join(root, 'p1/s1/subagents/agent-y.jsonl'), '{}\n');
    expect(list(cache, root)).toContain('p1/s1/subagents/agent-y.jsonl');
    expect(cache.reads).toBe(reads + 1); // the other directories' listings were reused
    ageDirs(root);

    fs.rmSync(path.join(root, 'p1/a.jsonl'));
    expect(list(cache, root)).not.toContain('p1/a.jsonl');
    ageDirs(root);

    fs.renameSync(path.join(root, 'p2/c.jsonl'), path.join(root, 'p2/d.jsonl'));
    expect(list(cache, root)).toEqual(['p1/b.jsonl', 'p1/s1/subagents/agent-x.jsonl', 'p1/s1/subagents/agent-y.jsonl', 'p2/d.jsonl']);
  });

  it('sees directories that appear, vanish or are replaced, and a root that did not exist', () => {
    const root = settledTree();
    const cache = new DirListingCache(later);
    list(cache, root);
    fs.mkdirSync(path.join(root, 'p3'));
    fs.writeFileSync(path.join(root, 'p3/e.jsonl'), '{}\n');
    expect(list(cache, root)).toContain('p3/e.jsonl');
    ageDirs(root);

    // replaced: same name, new inode, times set back to the old ones
    const old = fs.statSync(path.join(root, 'p2'));
    fs.rmSync(path.join(root, 'p2'), { recursive: true });
    fs.mkdirSync(path.join(root, 'p2'));
    fs.writeFileSync(path.join(root, 'p2/f.jsonl'), '{}\n');
    fs.utimesSync(path.join(root, 'p2'), old.atime, old.mtime);
    expect(list(cache, root)).toEqual(['p1/a.jsonl', 'p1/b.jsonl', 'p1/s1/subagents/agent-x.jsonl', 'p2/f.jsonl', 'p3/e.jsonl']);

    const missing = path.join(root, 'not-yet');
    const listMissing = () => [...cache.listRoot(missing, (read) => walkFiles(missing, () => true, 1, undefined, read))];
    expect(listMissing()).toEqual([]);
    expect(listMissing()).toEqual([]);
    fs.mkdirSync(missing);
    fs.writeFileSync(path.join(missing, 'g.jsonl'), '{}\n');
    expect(listMissing()).toEqual([path.join(missing, 'g.jsonl')]);
  });

  it('does not keep the listing of a directory that changed within the racy window', () => {
    const root = settledTree();
    // the real clock: every directory here changed just now (setting the mtimes back moved their ctimes)
    const cache = new DirListingCache();
    list(cache, root);
    fs.writeFileSync(path.join(root, 'p1/new.jsonl'), '{}\n');
    const reads = cache.reads;
    expect(list(cache, root)).toContain('p1/new.jsonl');
    expect(cache.rootHits).toBe(0);
    expect(cache.reads).toBe(reads + 5); // every directory of the root was read again, none served from memory
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/sandbox.js';

// docs/ARCHITECTURE.md's folder map is how a newcomer finds their way: it must name every folder
// at the top of the repository, of src/ and of adapters/, and nothing that is not there. (Deeper
// levels are described in prose and change more often; they are not compared.)
const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
/** Folders a checkout has that are not part of the source: built output, installs (hidden folders are tooling, skipped too). */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'dist-bench', 'coverage']);

/** The map: each top-level entry ("src/") with the folders indented under it ("  core/"). */
function parseMap(): Map<string, Set<string>> {
  const block = /## Folder map\s+```\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/ARCHITECTURE.md has no "## Folder map" code block');
  const map = new Map<string, Set<string>>();
  let top: string | null = null;
  for (const line of block[1]!.split('\n')) {
    const entry = /^( {0,2})([\w.-]+)\/(?=\s|$)/.exec(line);
    if (!entry) continue;
    if (entry[1] === '') {
      top = entry[2]!;
      map.set(top, new Set());
    } else if (top) {
      map.get(top)!.add(entry[2]!);
    }
  }
  return map;
}

const foldersIn = (dir: string) =>
  fs
    .readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !NOT_SOURCE.has(e.name) && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();

describe('docs/ARCHITECTURE.md folder map', () => {
  const map = parseMap();

  it('names every top-level folder of the repository, and only those', () => {
    expect([...map.keys()].sort()).toEqual(foldersIn('.'));
  });

  it.each(['src', 'adapters'])('names every folder of %s/, and only those', (dir) => {
    expect(map.get(dir), `${dir}/ in the map`).toBeDefined();
    expect([...map.get(dir)!].sort()).toEqual(foldersIn(dir));
  });

  it('has no stale lines: no kit.ts (kit/ is a folder), nothing "being built now"', () => {
    expect(doc).not.toMatch(/\bkit\.ts\b/);
    expect(doc).not.toMatch(/being (built|reshaped)/);
  });
});

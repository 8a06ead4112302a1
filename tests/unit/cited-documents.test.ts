import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/sandbox.js';

// A comment that cites a document sends the reader to it: the document must be in the repository.
// `docs/….md` paths must exist; the planning documents that lived beside the checkout (DESIGN.md,
// USER-JOURNEY.md, reference/*.md) are not in a clone, so citing them leaves the reader nowhere.
const ROOTS = ['src', 'adapters', 'bench', 'tests', 'eslint'];
const CODE = /\.(ts|tsx|js)$/;

/** The comment lines of a file (block-comment bodies and line comments): where a citation lives. */
const commentLines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('*') || l.startsWith('//') || l.startsWith('/*'));

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : walk(p);
    return CODE.test(e.name) ? [p] : [];
  });
}

describe('documents cited in the code', () => {
  const files = ROOTS.flatMap((r) => walk(path.join(REPO_ROOT, r)));
  const self = path.join(REPO_ROOT, 'tests/unit/cited-documents.test.ts');

  it('every docs/….md a file names exists', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const file of files) {
      for (const m of commentLines(fs.readFileSync(file, 'utf8')).join('\n').matchAll(/\bdocs\/[\w./-]+?\.md\b/g)) {
        cited++;
        if (!fs.existsSync(path.join(REPO_ROOT, m[0]))) missing.push(`${path.relative(REPO_ROOT, file)}: ${m[0]}`);
      }
    }
    expect(cited).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it('no file cites a planning document that is not in the repository', () => {
    const outside = new RegExp(['DESIGN', 'USER-JOURNEY'].map((n) => `\\b${n}\\.md`).join('|') + '|(?<![\\w/])reference/[\\w-]+\\.md');
    const hits = files.filter((f) => f !== self && outside.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(REPO_ROOT, f));
    expect(hits).toEqual([]);
  });
});

/**
 * The repository stands alone: a clone with nothing beside it runs every test, bench and the demo.
 * So no test, helper, bench or source file may name a path outside the checkout: not the sibling
 * reference folder the project was planned in, not a relative path that climbs above the root,
 * not a fixture helper path or a symlink that leads out. A test file runs from its own folder;
 * compiled code runs from its folder under dist/ (bench: dist-bench/) or (under vitest) from source, and may hold one
 * path for each (e.g. src/llm/spawn.ts), so its path must land inside from at least one of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_BIN, REPO_ROOT } from '../helpers/sandbox.js';
import { CODEX_COMPRESSED_DIR, FIXTURE_AGENTS, FIXTURES_DIR, expectedFor, fixtureFile, fixtureHome, VSCODE_USER_FIXTURE } from '../helpers/fixtures.js';

/** Folders whose files are checked, and whether they are also compiled into dist/ (and run from there). */
const SCANNED: Array<{ dir: string; compiled: boolean }> = [
  { dir: 'tests', compiled: false },
  { dir: 'bench', compiled: true },
  { dir: 'src', compiled: true },
  { dir: 'adapters', compiled: true },
];
const CODE = /\.(ts|tsx|mts|js|mjs)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const inside = (p: string) => {
  const rel = path.relative(REPO_ROOT, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

interface Found {
  file: string;
  line: number;
  text: string;
  /** the folders the path is resolved against (the file's own, and its dist/ twin when compiled) */
  bases: string[];
  segments: string[];
}

/** Literal relative paths in code: relative imports, `new URL('…', import.meta.url)`, and path.join/resolve from this file's folder or the repo root. */
function relativePaths(file: string, compiled: boolean, text = fs.readFileSync(file, 'utf8')): Found[] {
  const own = path.dirname(file);
  // bench/ compiles into dist-bench/ (tsconfig.bench.json), the product into dist/
  const outDir = path.relative(REPO_ROOT, own).split(path.sep)[0] === 'bench' ? 'dist-bench' : 'dist';
  const bases = compiled ? [own, path.join(REPO_ROOT, outDir, path.relative(REPO_ROOT, own))] : [own];
  const found: Found[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const add = (index: number, snippet: string, b: string[], segments: string[]) => found.push({ file, line: lineOf(index), text: snippet, bases: b, segments });
  for (const m of text.matchAll(/(?:from|import\(|require\()\s*['"](\.{1,2}\/[^'"]*)['"]/g)) add(m.index, m[0], bases, [m[1]]);
  for (const m of text.matchAll(/new URL\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*,\s*import\.meta\.url\s*\)/g)) add(m.index, m[0], bases, [m[1]]);
  // path.join/resolve(<this folder | REPO_ROOT>, 'literal', …): the first argument names where it starts
  const HERE_EXPR = String.raw`(?:HERE|__dirname|here|path\.dirname\(fileURLToPath\(import\.meta\.url\)\))`;
  const call = new RegExp(String.raw`path\.(?:join|resolve)\(\s*(${HERE_EXPR}|REPO_ROOT)\s*,\s*((?:['"][^'"]*['"]\s*,?\s*)+)\)`, 'g');
  for (const m of text.matchAll(call)) {
    const segments = [...m[2].matchAll(/['"]([^'"]*)['"]/g)].map((s) => s[1]);
    add(m.index, m[0], m[1] === 'REPO_ROOT' ? [REPO_ROOT] : bases, segments);
  }
  return found;
}

describe('the repository stands alone', () => {
  const files = SCANNED.flatMap(({ dir, compiled }) => walk(path.join(REPO_ROOT, dir)).map((file) => ({ file, compiled })));
  const self = path.join(REPO_ROOT, 'tests/unit/repo-stands-alone.test.ts');

  const escapesOf = (found: Found[]) =>
    found
      .map((p) => ({ p, to: p.bases.map((base) => path.resolve(base, ...p.segments)) }))
      .filter(({ to }) => !to.some(inside))
      .map(({ p, to }) => `${path.relative(REPO_ROOT, p.file)}:${p.line}: ${p.text} → ${to.join(' | ')}`);

  it('scans a real tree, and its detector catches the ways a path climbs out', () => {
    expect(files.filter((f) => CODE.test(f.file)).length).toBeGreaterThan(200);
    expect(files.filter((f) => CODE.test(f.file)).flatMap((f) => relativePaths(f.file, f.compiled)).length).toBeGreaterThan(500);
    // as a bench file could write them: out of the repo from bench/ and from dist-bench/bench/ alike
    const bench = path.join(REPO_ROOT, 'bench/probe.ts');
    const climbing = [
      "const HERE = path.dirname(fileURLToPath(import.meta.url));",
      "const A = path.resolve(HERE, '../../../elsewhere/fixtures/transcripts');",
      "import { x } from '../../../outside/x.js';",
      "const U = new URL('../../../up.json', import.meta.url);",
      "const B = path.join(REPO_ROOT, '..', 'sibling');",
      "const ok = path.join(HERE, '../tests/fixtures');",
    ].join('\n');
    const found = relativePaths(bench, true, climbing);
    expect(found).toHaveLength(5);
    expect(escapesOf(found).map((e) => Number(e.split(':')[1])).sort()).toEqual([2, 3, 4, 5]);
  });

  it('no file names the reference folder beside the checkout', () => {
    // built from parts, so this file does not match itself
    const sibling = new RegExp(['\\.\\.', 'shared'].join('/') + '|' + ['shared', '(fixtures|reference)'].join('/'));
    const hits = files
      .filter((f) => f.file !== self && !/\.(zst|db|png|jpg)$/.test(f.file))
      .flatMap(({ file }) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .map((l, i) => ({ l, i }))
          .filter(({ l }) => sibling.test(l))
          .map(({ l, i }) => `${path.relative(REPO_ROOT, file)}:${i + 1}: ${l.trim()}`),
      );
    expect(hits).toEqual([]);
  });

  it('every literal relative path in tests, benches and sources resolves inside the repository', () => {
    const code = files.filter((f) => CODE.test(f.file) && f.file !== self); // (this file's probe above climbs out on purpose)
    expect(escapesOf(code.flatMap((f) => relativePaths(f.file, f.compiled)))).toEqual([]);
  });

  it('the fixture helpers point inside the repository, at folders that exist', () => {
    const real = (p: string) => fs.realpathSync(p);
    for (const p of [FIXTURES_DIR, VSCODE_USER_FIXTURE, CODEX_COMPRESSED_DIR, ...FIXTURE_AGENTS.map(fixtureHome)]) {
      expect(fs.existsSync(p), p).toBe(true);
      expect(inside(real(p)), p).toBe(true);
    }
    expect(inside(CLI_BIN)).toBe(true);
    // every file an oracle names is there
    for (const agent of FIXTURE_AGENTS) for (const rel of Object.keys(expectedFor(agent))) expect(fs.existsSync(fixtureFile(agent, rel)), `${agent}/${rel}`).toBe(true);
  });

  it('no fixture is a symlink that leads out of the repository', () => {
    const out: string[] = [];
    const visit = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isSymbolicLink() && !inside(fs.realpathSync(p))) out.push(p);
        else if (e.isDirectory()) visit(p);
      }
    };
    visit(FIXTURES_DIR);
    expect(out).toEqual([]);
  });
});

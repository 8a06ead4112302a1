/** Every `$schema` tag a command prints names a documented shape: a row in docs/json/README.md and its file. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/sandbox.js';
import { iso, schemaTag, tagged } from '../../src/cli/json-shape.js';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('--json shapes', () => {
  const index = fs.readFileSync(path.join(REPO_ROOT, 'docs/json/README.md'), 'utf8');
  const names = new Set<string>();
  for (const f of sources(path.join(REPO_ROOT, 'src'))) {
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/(?:tagged|schemaTag)\('([a-z-]+)'/g)) names.add(m[1]!);
  }

  it('finds the tagged commands', () => {
    expect([...names].sort()).toEqual(expect.arrayContaining(['export', 'history', 'hooks-install', 'hooks-remove', 'skills', 'uninstall', 'wipe']));
  });

  it('documents every tag in the index and in a file that names it', () => {
    const docs = fs.readdirSync(path.join(REPO_ROOT, 'docs/json')).map((f) => fs.readFileSync(path.join(REPO_ROOT, 'docs/json', f), 'utf8')).join('\n');
    const missing = [...names].filter((n) => !index.includes(n) || !docs.includes(schemaTag(n).replace(/^skillopt-sleep\//, '')));
    expect(missing).toEqual([]);
  });

  it('tags come first and timestamps are ISO 8601 UTC', () => {
    expect(Object.keys(tagged('skills', { a: 1 }))).toEqual(['$schema', 'a']);
    expect(schemaTag('skills')).toBe('skillopt-sleep/skills@1');
    expect(iso(Date.UTC(2026, 11, 1, 3))).toBe('2026-12-01T03:00:00.000Z');
    expect(iso(null)).toBeNull();
  });
});

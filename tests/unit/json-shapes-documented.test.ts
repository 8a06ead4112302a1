/** Every `$schema` tag a command prints names a documented shape: a row in docs/json/README.md and a heading in its file. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/sandbox.js';
import { iso, jsonOutput, schemaTag, tagged } from '../../src/cli/json-shape.js';
import { docFileFor, shapeProblems } from '../helpers/json-docs.js';
import { logLineJson } from '../../src/cli/commands/logs.js';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

describe('--json shapes', () => {
  const index = fs.readFileSync(path.join(REPO_ROOT, 'docs/json/README.md'), 'utf8');
  const names = new Set<string>();
  for (const f of sources(path.join(REPO_ROOT, 'src'))) {
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/(?:emit|tagged|schemaTag|jsonOutput)\(\s*'([a-z-]+)'/g)) names.add(m[1]!);
  }

  it('finds the tagged commands', () => {
    expect([...names].sort()).toEqual(
      expect.arrayContaining(['apply', 'config', 'export', 'harvest', 'history', 'hooks-install', 'ledger', 'log', 'mine', 'night', 'proposal', 'proposals', 'sessions', 'skills', 'task', 'tasks', 'train', 'uninstall', 'wipe']),
    );
  });

  it('no command prints untagged --json: every ctx.emit names its shape', () => {
    const untagged = sources(path.join(REPO_ROOT, 'src')).flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/ctx\.emit\((?!\s*')/g)].map(() => path.relative(REPO_ROOT, f)));
    expect(untagged).toEqual([]);
  });

  it('documents every tag in the index and in a file that names it', () => {
    const docs = fs.readdirSync(path.join(REPO_ROOT, 'docs/json')).map((f) => fs.readFileSync(path.join(REPO_ROOT, 'docs/json', f), 'utf8')).join('\n');
    const missing = [...names].filter((n) => !index.includes(n) || !docs.includes(schemaTag(n).replace(/^skillopt-sleep\//, '')) || !docFileFor(n));
    expect(missing).toEqual([]);
  });

  it('tags come first and timestamps are ISO 8601 UTC', () => {
    expect(Object.keys(tagged('skills', { a: 1 }))).toEqual(['$schema', 'a']);
    expect(schemaTag('skills')).toBe('skillopt-sleep/skills@1');
    expect(iso(Date.UTC(2026, 11, 1, 3))).toBe('2026-12-01T03:00:00.000Z');
    expect(iso(null)).toBeNull();
  });

  it('jsonOutput tags first, converts store times (ts, at, *At, *Seen) and leaves durations and counts', () => {
    const t = Date.UTC(2026, 11, 1, 3);
    const out = jsonOutput('tasks', { $schema: 'old', tasks: [{ firstSeen: t, lastSeen: t, occurrences: 3 }], review: { decisions: [{ at: t }] }, durationMs: 120, startedAt: null });
    expect(Object.keys(out)[0]).toBe('$schema');
    expect(out).toEqual({ $schema: 'skillopt-sleep/tasks@1', tasks: [{ firstSeen: '2026-12-01T03:00:00.000Z', lastSeen: '2026-12-01T03:00:00.000Z', occurrences: 3 }], review: { decisions: [{ at: '2026-12-01T03:00:00.000Z' }] }, durationMs: 120, startedAt: null });
  });

  it('logs --json: one tagged record a line, pino time as ISO; a line pino did not write is kept as msg', () => {
    const line = logLineJson(JSON.stringify({ level: 30, time: Date.UTC(2026, 11, 2, 3), pid: 7, msg: 'night starting', trigger: 'schedule' }));
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ $schema: 'skillopt-sleep/log@1', level: 30, time: '2026-12-02T03:00:00.000Z', pid: 7, msg: 'night starting', trigger: 'schedule' });
    expect(shapeProblems(JSON.parse(line), 'log')).toEqual([]);
    expect(JSON.parse(logLineJson('Segmentation fault'))).toEqual({ $schema: 'skillopt-sleep/log@1', msg: 'Segmentation fault' });
  });

  it('the shape check catches a missing tag, an undocumented field and a millisecond timestamp', () => {
    const ok = jsonOutput('reject', { ok: true, id: 'p_1', status: 'rejected', reason: null, rememberedEdits: 2 });
    expect(shapeProblems(ok, 'reject')).toEqual([]);
    expect(shapeProblems({ ok: true }, 'reject').join('\n')).toMatch(/\$schema/);
    expect(shapeProblems({ ...ok, surpriseField: 1 }, 'reject')).toEqual(['.surpriseField: not documented in docs/json/reject.md']);
    expect(shapeProblems({ ...ok, reason: { whenever: Date.UTC(2026, 0, 1) } }, 'reject').join('\n')).toMatch(/epoch milliseconds/);
    expect(shapeProblems(jsonOutput('nope', {}), 'nope').join('\n')).toMatch(/no docs\/json/);
  });
});

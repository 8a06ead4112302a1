import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nullLogger } from '../../src/core/logger.js';
import { TranscriptWatcher, isUnder, nearestExistingAncestor } from '../../src/daemon/watcher.js';
import type { WatchRoot } from '../../src/daemon/deps.js';
import { makeTempDir } from '../helpers/sandbox.js';

const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('TranscriptWatcher (real chokidar)', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function setup(roots: WatchRoot[], ignoreDirs: string[] = [], ignoreNamePrefixes: string[] = []) {
    const files: string[] = [];
    const appeared: string[] = [];
    const w = new TranscriptWatcher({
      roots,
      isTranscriptFile: (_agent, f) => f.endsWith('.jsonl'),
      ignoreDirs,
      ignoreNamePrefixes,
      onFile: (f) => files.push(f),
      onRootAppeared: (r) => appeared.push(r.path),
      logger: nullLogger,
    });
    cleanups.push(() => w.close());
    return { w, files, appeared };
  }

  it('reports appends and new transcripts (not other files) under an existing root, without per-file watchers', async () => {
    const dir = makeTempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'projects');
    fs.mkdirSync(path.join(root, 'p1'), { recursive: true });
    const t = path.join(root, 'p1', 'a.jsonl');
    fs.writeFileSync(t, '{}\n');
    const { w, files } = setup([{ agent: 'claude-code', path: root, exists: true, kind: 'projects' }]);
    await w.start();
    expect(w.status()[0]).toMatchObject({ exists: true, mode: 'root' });
    fs.appendFileSync(t, '{"more":1}\n');
    fs.writeFileSync(path.join(root, 'p1', 'notes.txt'), 'x');
    fs.mkdirSync(path.join(root, 'p2', 'sub', 'subagents'), { recursive: true });
    await new Promise((r) => setTimeout(r, 200));
    const nested = path.join(root, 'p2', 'sub', 'subagents', 'agent-1.jsonl');
    fs.writeFileSync(nested, '{}\n');
    await until(() => files.includes(t) && files.includes(nested));
    expect(files.some((f) => f.endsWith('notes.txt'))).toBe(false);
  });

  it('picks up a project folder moved into a watched root (a rename brings no per-file events)', async () => {
    const dir = makeTempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'projects');
    fs.mkdirSync(root, { recursive: true });
    const outside = path.join(dir, 'elsewhere', 'moved-project');
    fs.mkdirSync(path.join(outside, 'sess', 'subagents'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'a.jsonl'), '{}\n');
    fs.writeFileSync(path.join(outside, 'sess', 'subagents', 'agent-2.jsonl'), '{}\n');
    fs.writeFileSync(path.join(outside, 'notes.txt'), 'x');
    const { w, files } = setup([{ agent: 'claude-code', path: root, exists: true, kind: 'projects' }]);
    await w.start();
    fs.renameSync(outside, path.join(root, 'moved-project'));
    const a = path.join(root, 'moved-project', 'a.jsonl');
    const nested = path.join(root, 'moved-project', 'sess', 'subagents', 'agent-2.jsonl');
    await until(() => files.includes(a) && files.includes(nested));
    expect(files.some((f) => f.endsWith('notes.txt'))).toBe(false);
  });

  it('watches for a root that does not exist yet and attaches when it (and its parents) appear', async () => {
    const dir = makeTempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'agents', 'codex', 'sessions');
    const { w, files, appeared } = setup([{ agent: 'codex', path: root, exists: false, kind: 'sessions' }]);
    await w.start();
    expect(w.status()[0]).toMatchObject({ exists: false, mode: 'ancestor', via: dir });
    fs.mkdirSync(path.join(dir, 'agents'));
    await until(() => w.status()[0].via === path.join(dir, 'agents'));
    fs.mkdirSync(path.join(dir, 'agents', 'codex', 'sessions', '2026'), { recursive: true });
    await until(() => appeared.includes(root));
    expect(w.status()[0]).toMatchObject({ exists: true, mode: 'root' });
    await new Promise((r) => setTimeout(r, 200));
    const f = path.join(root, '2026', 'rollout-1.jsonl');
    fs.writeFileSync(f, '{}\n');
    await until(() => files.includes(f));
  });

  it('never reports files inside ignored directories (our state, replay workspaces)', async () => {
    const dir = makeTempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const root = path.join(dir, 'projects');
    const ws = path.join(root, 'workspaces');
    fs.mkdirSync(ws, { recursive: true });
    const replayProject = path.join(root, '-tmp-state-workspaces-ws-abc');
    fs.mkdirSync(replayProject);
    const { w, files } = setup([{ agent: 'claude-code', path: root, exists: true, kind: 'projects' }], [ws], ['-tmp-state-workspaces']);
    await w.start();
    fs.writeFileSync(path.join(ws, 'replay.jsonl'), '{}\n');
    fs.writeFileSync(path.join(replayProject, 'self.jsonl'), '{}\n');
    const ok = path.join(root, 'real.jsonl');
    fs.writeFileSync(ok, '{}\n');
    await until(() => files.includes(ok));
    await new Promise((r) => setTimeout(r, 200));
    expect(files.some((f) => f.includes('workspaces'))).toBe(false);
    expect(files.some((f) => f.endsWith('self.jsonl'))).toBe(false);
  });

  it('path helpers', () => {
    expect(isUnder('/a/b/c', '/a/b')).toBe(true);
    expect(isUnder('/a/bc', '/a/b')).toBe(false);
    expect(nearestExistingAncestor('/x/y/z', (p) => p === '/x' || p === '/')).toBe('/x');
  });
});

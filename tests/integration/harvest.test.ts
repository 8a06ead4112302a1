/**
 * The ingest pipeline over a copy of the repository's transcript fixtures laid out as real agent homes: every
 * session lands in SQLite, a second pass reads nothing, appends are parsed from the saved offset,
 * a completed partial line is picked up once, rewrites replace instead of duplicating, moved Codex
 * rollouts keep one copy, and our own replay workspaces are classified `self`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { HARVEST_FORMAT_VERSION, runHarvest } from '../../src/harvest/ingest.js';
import { kvGet } from '../../src/store/repos/kv.js';
import { getSession, listSessions } from '../../src/store/repos/sessions.js';
import { countEvents, listEvents } from '../../src/store/repos/events.js';
import { discoverRoots, isTranscriptFile } from '../../adapters/index.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { CLAUDE_PROJECT_DIR, FIXTURE_PROJECT, fixtureHome, VSCODE_USER_FIXTURE, VSCODE_WORKSPACE } from '../helpers/fixtures.js';

const CLAUDE_DIR = CLAUDE_PROJECT_DIR;
const TRUNC_CLAUDE = `${CLAUDE_DIR}/9c1e4a3d-6b27-4e0f-8d52-31f7a0c6b9e4.jsonl`;

function layout(sb: Sandbox): { claude: string; codex: string; copilot: string; vscodeUser: string } {
  const claude = sb.env.CLAUDE_CONFIG_DIR!;
  const codex = sb.env.CODEX_HOME!;
  const copilot = sb.env.COPILOT_HOME!;
  const vscodeUser = path.join(sb.env.XDG_CONFIG_HOME!, 'Code', 'User');
  fs.cpSync(fixtureHome('claude-code'), claude, { recursive: true });
  fs.cpSync(fixtureHome('codex'), codex, { recursive: true });
  fs.cpSync(fixtureHome('copilot-cli'), copilot, { recursive: true });
  fs.cpSync(VSCODE_USER_FIXTURE, vscodeUser, { recursive: true });
  return { claude, codex, copilot, vscodeUser };
}

describe('runHarvest over the transcript fixtures', () => {
  let sb: Sandbox;
  let db: Db;
  let dirs: ReturnType<typeof layout>;
  const config = defaultConfig();
  const harvest = (extra: Parameters<typeof runHarvest>[2] = {}) =>
    runHarvest(db, config, { env: sb.env, stateDir: path.join(sb.home, 'state'), ...extra });

  beforeEach(() => {
    sb = makeSandbox();
    dirs = layout(sb);
    db = openDb(path.join(sb.home, 'state', 'sleep.db'));
  });
  afterEach(() => {
    db.close();
    sb.cleanup();
  });

  it('ingests every session once, and a second pass reads nothing', async () => {
    const first = await harvest();
    expect(first.errors).toEqual([]);
    expect(first.files).toBe(14);
    expect(first.sessions).toBe(14);
    expect(first.sessionsByKind).toEqual({ interactive: 11, headless: 1, subagent: 2, self: 0 });
    expect(first.newSessionIds).toHaveLength(14);
    expect(first.skipped.malformed ?? 0).toBe(0);
    const events = first.events;
    expect(events).toBeGreaterThan(100);
    expect(countEvents(db)).toBe(events);

    const codexSub = getSession(db, 'codex:01a13449-7354-74ad-b3df-22c4bc9ea598');
    expect(codexSub?.kind).toBe('subagent');
    expect(codexSub?.parentId).toBe('codex:01a13448-894e-75f1-ae9c-511bd56efd1b');
    const exec = getSession(db, 'codex:01a13fef-3d0b-7735-afdb-86863e345c95');
    expect(exec?.kind).toBe('headless');
    expect(exec?.project).toBe(FIXTURE_PROJECT);
    const vs = getSession(db, 'copilot:4c2a9e71-0d3b-4f5a-8e6c-7b1d2e3f4a5b');
    expect(vs?.project).toBe(FIXTURE_PROJECT);
    expect(vs?.title).toBe('Changelog entry for #287');

    const second = await harvest();
    expect(second.filesChanged).toBe(0);
    expect(second.events).toBe(0);
    expect(countEvents(db)).toBe(events);

    // --reread: every file from its start again; the same sessions and events, none twice
    const before = listSessions(db).map((s) => [s.id, s.promptCount]);
    const reread = await harvest({ reread: true });
    expect(reread.filesChanged).toBe(14);
    expect(reread.newSessionIds).toEqual([]);
    expect(reread.events).toBe(events);
    expect(countEvents(db)).toBe(events);
    expect(listSessions(db).map((s) => [s.id, s.promptCount])).toEqual(before);
    expect((await harvest()).filesChanged).toBe(0);
  });

  it('re-reads every file once, by itself, on the first full pass over a store harvested by an older format', async () => {
    const first = await harvest();
    expect(first.reread).toBe(false); // a new store has nothing old to read again
    expect(kvGet(db, 'harvest.formatVersion')).toBe(HARVEST_FORMAT_VERSION);
    const events = countEvents(db);
    // the store as an older version left it: file rows, no format version
    db.prepare("DELETE FROM kv WHERE key = 'harvest.formatVersion'").run();
    // a pass limited to one agent or to given files does not upgrade (the rest would stay behind)
    expect((await harvest({ agents: ['codex'] })).filesChanged).toBe(0);
    const upgraded = await harvest();
    expect(upgraded.reread).toBe(true);
    expect(upgraded.filesChanged).toBe(first.filesChanged);
    expect(upgraded.newSessionIds).toEqual([]);
    expect(countEvents(db)).toBe(events);
    expect(kvGet(db, 'harvest.formatVersion')).toBe(HARVEST_FORMAT_VERSION);
    const after = await harvest();
    expect(after.reread).toBe(false);
    expect(after.filesChanged).toBe(0);
  });

  it('picks up a completed partial line once, from the saved offset, and moves the final mark', async () => {
    await harvest();
    const id = 'claude-code:9c1e4a3d-6b27-4e0f-8d52-31f7a0c6b9e4';
    const before = countEvents(db, id);
    expect(listEvents(db, id).some((e) => e.meta.final)).toBe(false);
    const file = path.join(dirs.claude, TRUNC_CLAUDE);
    const full = fs.readFileSync(file, 'utf8');
    const lastNl = full.lastIndexOf('\n');
    const partial = full.slice(lastNl + 1);
    // finish the half-written assistant line the way the writer would
    const done = JSON.parse(
      JSON.stringify({
        type: 'assistant',
        uuid: 'f00dbabe-0000-4000-8000-000000000001',
        timestamp: '2026-10-14T09:00:00.000Z',
        sessionId: '9c1e4a3d-6b27-4e0f-8d52-31f7a0c6b9e4',
        message: { id: 'msg_done', role: 'assistant', model: 'claude-opus-4-8', stop_reason: 'end_turn', content: [{ type: 'text', text: 'All 5 tests pass now.' }] },
      }),
    ) as object;
    expect(partial.length).toBeGreaterThan(0);
    fs.writeFileSync(file, full.slice(0, lastNl + 1) + JSON.stringify(done) + '\n');
    const s = await harvest();
    expect(s.filesChanged).toBe(1);
    expect(s.events).toBe(1);
    const events = listEvents(db, id);
    expect(events).toHaveLength(before + 1);
    expect(events.filter((e) => e.meta.final).map((e) => e.text)).toEqual(['All 5 tests pass now.']);
    // appending one more turn later: only the new bytes are read
    fs.appendFileSync(
      file,
      JSON.stringify({ type: 'user', uuid: 'u-2', timestamp: '2026-10-14T09:01:00.000Z', cwd: FIXTURE_PROJECT, message: { role: 'user', content: 'thanks, commit it' } }) + '\n',
    );
    const s2 = await harvest();
    expect(s2.filesChanged).toBe(1);
    expect(s2.prompts).toBe(1);
    expect(s2.bytesRead).toBeLessThan(400);
    expect(getSession(db, id)?.promptCount).toBe(3);
  });

  it('re-reads a truncated or replaced file from the start without duplicating events', async () => {
    await harvest();
    const id = 'claude-code:2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23';
    const stored = countEvents(db, id);
    const file = path.join(dirs.claude, CLAUDE_DIR, '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const half = lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n';
    fs.writeFileSync(file, half); // shrink: truncation
    const s = await harvest();
    expect(s.filesChanged).toBe(1);
    const afterTruncate = countEvents(db, id);
    expect(afterTruncate).toBe(stored); // a shrunk file never deletes stored history
    const prompts = listEvents(db, id, { kinds: ['prompt'] });
    expect(new Set(prompts.map((p) => p.seq)).size).toBe(prompts.length);
    // replace with the full file again (new inode via rename, as editors and VS Code do)
    const tmp = file + '.tmp';
    fs.writeFileSync(tmp, lines.join('\n'));
    fs.renameSync(tmp, file);
    await harvest();
    const total = countEvents(db, id);
    expect(total).toBe(stored);
    expect(listEvents(db, id, { kinds: ['prompt'] }).map((e) => e.text)).toEqual(['fix the eslint errors in src/duration.ts', 'also run prettier on it']);
  });

  it('rebuilds a VS Code session when its mutation log grows or is rewritten', async () => {
    await harvest();
    const id = 'copilot:1b7e2c4d-5a6f-4e8b-9c0d-2e3f4a5b6c7d';
    const before = countEvents(db, id);
    const file = path.join(dirs.vscodeUser, `workspaceStorage/${VSCODE_WORKSPACE}/chatSessions/1b7e2c4d-5a6f-4e8b-9c0d-2e3f4a5b6c7d.jsonl`);
    const text = fs.readFileSync(file, 'utf8');
    const head = text.slice(0, text.lastIndexOf('\n') + 1);
    const push = { kind: 2, k: ['requests'], v: [{ requestId: 'request_x', timestamp: 1791969300000, message: { text: 'now run the tests' }, response: [{ value: 'Tests pass.' }], modelState: { value: 1, completedAt: 1791969310000 } }] };
    fs.writeFileSync(file, head + JSON.stringify(push) + '\n');
    await harvest();
    const events = listEvents(db, id);
    expect(events.length).toBe(before + 2);
    expect(events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['fix the eslint errors in src/duration.ts', 'now run the tests']);
    expect(getSession(db, id)?.promptCount).toBe(2);
  });

  it('keeps one copy of a Codex rollout moved to archived_sessions', async () => {
    await harvest();
    const id = 'codex:01a13448-894e-75f1-ae9c-511bd56efd1b';
    const n = countEvents(db, id);
    const name = 'rollout-2026-10-13T10-02-11-01a13448-894e-75f1-ae9c-511bd56efd1b.jsonl';
    fs.renameSync(path.join(dirs.codex, 'sessions/2026/10/13', name), path.join(dirs.codex, 'archived_sessions', name));
    const s = await harvest();
    expect(s.errors).toEqual([]);
    expect(countEvents(db, id)).toBe(n);
    expect(getSession(db, id)?.file).toBe(path.join(dirs.codex, 'archived_sessions', name));
  });

  it('classifies sessions run in our replay workspaces as self', async () => {
    const ws = path.join(sb.root, 'ws-1');
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, '.skillopt-sleep-workspace'), 'replay\n');
    const under = path.join(sb.home, 'state', 'workspaces', 'run-2');
    const mk = (id: string, cwd: string) => {
      const dir = path.join(dirs.claude, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
      fs.mkdirSync(dir, { recursive: true });
      const row = { type: 'user', uuid: `${id}-u`, sessionId: id, cwd, entrypoint: 'sdk-cli', timestamp: '2026-11-01T00:00:00.000Z', message: { role: 'user', content: 'write a changelog entry' } };
      fs.writeFileSync(path.join(dir, `${id}.jsonl`), JSON.stringify(row) + '\n');
    };
    mk('aaaaaaaa-0000-4000-8000-000000000001', ws);
    mk('aaaaaaaa-0000-4000-8000-000000000002', under);
    const s = await harvest({ agents: ['claude-code'] });
    expect(s.sessionsByKind.self).toBe(2);
    expect(listSessions(db, { kind: 'self' }).map((r) => r.vendorId).sort()).toEqual(['aaaaaaaa-0000-4000-8000-000000000001', 'aaaaaaaa-0000-4000-8000-000000000002']);
    // prompts count what humans typed: the three fixture sessions (2 each), not self or sub-agent sessions
    expect(s.prompts).toBe(6);
  });

  it('harvests only the given files (daemon mode) and ignores non-transcripts', async () => {
    const file = path.join(dirs.codex, 'sessions/2026/10/15/rollout-2026-10-15T16-20-05-01a13fef-3d0b-7735-afdb-86863e345c95.jsonl');
    const s = await harvest({ files: [file, path.join(dirs.codex, 'history.jsonl')] });
    expect(s.files).toBe(1);
    expect(s.sessions).toBe(1);
    expect(listSessions(db)).toHaveLength(1);
  });

  it('filters by project and agent', async () => {
    const s = await harvest({ agents: ['copilot'], project: '/elsewhere' });
    expect(s.sessions).toBe(0);
    expect(listSessions(db)).toHaveLength(0);
    const s2 = await harvest({ agents: ['copilot'], project: FIXTURE_PROJECT });
    expect(s2.sessions).toBe(5); // 3 VS Code + 2 CLI with a cwd (the legacy flat file has none)
  });

  it('discovers roots for the daemon, including missing ones', () => {
    const roots = discoverRoots(config, sb.env);
    expect(roots.find((r) => r.path === path.join(dirs.claude, 'projects'))?.exists).toBe(true);
    expect(roots.find((r) => r.path === path.join(dirs.codex, 'sessions'))?.exists).toBe(true);
    expect(roots.find((r) => r.path === path.join(dirs.copilot, 'session-state'))?.exists).toBe(true);
    expect(roots.find((r) => r.path === path.join(dirs.vscodeUser, 'workspaceStorage'))?.exists).toBe(true);
    expect(roots.some((r) => !r.exists)).toBe(true);
    expect(isTranscriptFile('codex', path.join(dirs.codex, 'sessions/2026/10/13/rollout-2026-10-13T10-02-11-01a13448-894e-75f1-ae9c-511bd56efd1b.jsonl'))).toBe(true);
    expect(isTranscriptFile('claude-code', path.join(dirs.claude, 'history.jsonl'))).toBe(false);
  });
});

describe('runHarvest on bad input', () => {
  it('counts malformed, non-object, oversize and unknown lines, keeps every intact one, and never throws', async () => {
    const sb = makeSandbox();
    const db = openDb(path.join(sb.home, 'state', 'sleep.db'));
    try {
      const dir = path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects', '-w');
      fs.mkdirSync(dir, { recursive: true });
      const id = 'bbbbbbbb-0000-4000-8000-000000000001';
      const row = (i: number) => JSON.stringify({ type: 'user', uuid: `u${i}`, sessionId: id, cwd: '/w', timestamp: '2026-11-01T00:00:00Z', message: { role: 'user', content: `prompt ${i}` } });
      const lines = [
        row(1),
        '{"type":"user", broken',
        '[1,2,3]',
        'null',
        JSON.stringify({ type: 'brand-new-record-type', uuid: 'n1', sessionId: id }),
        JSON.stringify({ type: 'user', uuid: 'big', sessionId: id, message: { role: 'user', content: 'x'.repeat(20_000) } }),
        row(2),
        '\u0000\u0001garbage',
        row(3),
      ];
      fs.writeFileSync(path.join(dir, `${id}.jsonl`), lines.join('\n') + '\n');
      // a directory where a transcript file would be, and an empty transcript
      fs.mkdirSync(path.join(dir, 'cccccccc-0000-4000-8000-000000000001.jsonl'));
      fs.writeFileSync(path.join(dir, 'dddddddd-0000-4000-8000-000000000001.jsonl'), '');
      const config = { ...defaultConfig(), harvest: { maxLineBytes: 4096 } };
      const s = await runHarvest(db, config, { env: sb.env, stateDir: path.join(sb.home, 'state') });
      expect(s.errors).toEqual([]);
      expect(s.skipped).toMatchObject({ malformed: 2, 'not-object': 2, oversize: 1, 'unknown-type': 1 });
      expect(listEvents(db, `claude-code:${id}`, { kinds: ['prompt'] }).map((e) => e.text)).toEqual(['prompt 1', 'prompt 2', 'prompt 3']);
    } finally {
      db.close();
      sb.cleanup();
    }
  });

  it('survives a root that vanishes between listing and reading', async () => {
    const sb = makeSandbox();
    const db = openDb(path.join(sb.home, 'state', 'sleep.db'));
    try {
      fs.cpSync(fixtureHome('claude-code'), sb.env.CLAUDE_CONFIG_DIR!, { recursive: true });
      const first = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state') });
      expect(first.sessions).toBe(4);
      fs.rmSync(path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects'), { recursive: true, force: true });
      const file = path.join(sb.env.CLAUDE_CONFIG_DIR!, CLAUDE_PROJECT_DIR, '5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860.jsonl');
      const s = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state'), files: [file] });
      expect(s.errors).toEqual([]);
      const again = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state') });
      expect(again.errors).toEqual([]);
      expect(listSessions(db)).toHaveLength(4); // sessions outlive their files
    } finally {
      db.close();
      sb.cleanup();
    }
  });
});

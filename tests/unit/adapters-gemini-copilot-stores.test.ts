import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { listEvents } from '../../src/store/repos/events.js';
import { getSession } from '../../src/store/repos/sessions.js';
import { agentOfFile, rootEnvFrom } from '../../adapters/index.js';
import { copilotStoreNotes } from '../../adapters/copilot/store-notes.js';
import { commonFolder } from '../../adapters/copilot/vscode-transcripts.js';
import { discoverSkills } from '../../adapters/skills-registry.js';
import { makeSandbox, REPO_ROOT, type Sandbox } from '../helpers/sandbox.js';

const FIX = path.join(REPO_ROOT, 'tests/fixtures');
const config = () => ConfigSchema.parse({});

let sb: Sandbox | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  sb?.cleanup();
  db = null;
  sb = null;
});

function copy(from: string, to: string): string {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  return to;
}

describe('Gemini CLI chats (both eras)', () => {
  it('harvests JSONL with $set, $rewindTo and re-appended messages, the older JSON, and sub-agents', async () => {
    sb = makeSandbox();
    const project = path.join(sb.root, 'shop');
    fs.mkdirSync(project, { recursive: true });
    const slug = path.join(sb.env.HOME!, '.gemini', 'tmp', 'shop');
    fs.mkdirSync(slug, { recursive: true });
    fs.writeFileSync(path.join(slug, '.project_root'), `${project}\n`);
    const chats = path.join(slug, 'chats');
    const main = copy(path.join(FIX, 'gemini/session-jsonl.jsonl'), path.join(chats, 'session-2026-11-21T10-00-9d1e2f30.jsonl'));
    copy(path.join(FIX, 'gemini/session-legacy.json'), path.join(chats, 'session-2025-09-02T08-00-5a6b7c8d.json'));
    copy(path.join(FIX, 'gemini/subagent.jsonl'), path.join(chats, '9d1e2f30-aaaa-4bbb-8ccc-0123456789ab', 'sub-77.jsonl'));
    fs.writeFileSync(path.join(chats, 'session-2026-11-21T10-00-9d1e2f30.jsonl.tmp-4242'), '{"half":'); // an atomic rewrite in flight
    expect(agentOfFile(main)).toBe('gemini');
    db = openDb(resolvePaths({ env: sb.env }).database);
    const summary = await runHarvest(db, config(), { env: sb.env, agents: ['gemini'] });
    expect(summary.errors).toEqual([]);

    const s = getSession(db, 'gemini:9d1e2f30-aaaa-4bbb-8ccc-0123456789ab')!;
    expect(s.project).toBe(project);
    expect(s.title).toBe('Currency formatter with Intl.NumberFormat');
    const ev = listEvents(db, s.id);
    // the injected <session_context> is no prompt, and the rewound "no, use Intl…" is gone
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['add a currency formatter', 'use Intl.NumberFormat and run the tests']);
    const call = ev.filter((e) => e.kind === 'tool_call');
    expect(call.map((e) => e.toolName)).toEqual(['run_shell_command']); // the re-appended m6 once
    const result = ev.find((e) => e.kind === 'tool_result')!;
    expect(result.isError).toBe(true);
    expect(result.text).toContain('2 failing');
    const last = ev.filter((e) => e.kind === 'text').at(-1)!;
    expect(last.text).toContain('Intl.NumberFormat');
    expect(last.meta?.final).toBe(true);
    expect(ev.some((e) => e.text.includes('Checkpoint saved'))).toBe(false);

    const legacy = getSession(db, 'gemini:5a6b7c8d-1111-4222-8333-444455556666')!;
    expect(listEvents(db, legacy.id).map((e) => e.kind)).toEqual(['prompt', 'text']);

    const sub = getSession(db, 'gemini:sub-77')!;
    expect(sub.kind).toBe('subagent');
    expect(sub.parentId).toBe('gemini:9d1e2f30-aaaa-4bbb-8ccc-0123456789ab');
  });

  it('GEMINI.md and ~/.gemini/skills are training targets', () => {
    sb = makeSandbox();
    const project = path.join(sb.root, 'p');
    fs.mkdirSync(path.join(project, '.gemini', 'skills', 'deploy'), { recursive: true });
    fs.writeFileSync(path.join(project, '.gemini', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: d\n---\n');
    fs.writeFileSync(path.join(project, 'GEMINI.md'), '# Rules\n');
    fs.mkdirSync(path.join(sb.env.HOME!, '.gemini', 'skills', 'mine'), { recursive: true });
    fs.writeFileSync(path.join(sb.env.HOME!, '.gemini', 'skills', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: m\n---\n');
    const found = discoverSkills({ project, env: sb.env });
    const byName = new Map(found.map((t) => [t.name, t]));
    expect(byName.get('deploy')?.readBy).toEqual(['gemini']);
    expect(byName.get('GEMINI.md')?.kind).toBe('gemini-md');
    expect(byName.get('mine')?.project).toBeNull();
  });
});

describe('VS Code Copilot Chat transcripts store', () => {
  it('is harvested, wins over the chatSessions snapshot of the same session, and takes its project from touched paths', async () => {
    sb = makeSandbox();
    const id = '3f2c9a10-7b1e-4d55-9a0c-1e2f3a4b5c6d';
    const user = path.join(sb.env.XDG_CONFIG_HOME!, 'Code', 'User');
    const ws = path.join(user, 'workspaceStorage', 'a1b2c3d4e5');
    const transcript = copy(path.join(FIX, 'copilot-transcripts', `${id}.jsonl`), path.join(ws, 'GitHub.copilot-chat', 'transcripts', `${id}.jsonl`));
    // the sparse UI snapshot VS Code core keeps of the same session
    fs.mkdirSync(path.join(ws, 'chatSessions'), { recursive: true });
    fs.writeFileSync(
      path.join(ws, 'chatSessions', `${id}.jsonl`),
      `${JSON.stringify({ kind: 0, v: { version: 3, sessionId: id, creationDate: 1763629200000, requests: [{ requestId: 'r1', timestamp: 1763629201000, message: { text: 'fix the failing date parser test' }, response: [{ value: 'sparse' }] }] } })}\n`,
    );
    expect(agentOfFile(transcript)).toBe('copilot');
    db = openDb(resolvePaths({ env: sb.env }).database);
    const summary = await runHarvest(db, config(), { env: sb.env, agents: ['copilot'] });
    expect(summary.errors).toEqual([]);
    const s = getSession(db, `copilot:${id}`)!;
    expect(s.file).toBe(transcript);
    expect(s.cwd).toBe('/home/dev/projects/datekit');
    const ev = listEvents(db, s.id);
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['fix the failing date parser test']);
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => e.toolName)).toEqual(['read_file', 'run_in_terminal']);
    expect(ev.find((e) => e.toolName === 'run_in_terminal' && e.kind === 'tool_result')?.isError).toBe(true);
    expect(ev.filter((e) => e.kind === 'text').at(-1)?.meta?.final).toBe(true);
    // doctor says this install has the new store
    const notes = copilotStoreNotes(config(), rootEnvFrom(sb.env, 'linux'));
    expect(notes.some((n) => n.detail.includes("transcripts store (1 session)"))).toBe(true);
  });

  it('takes the project from workspace.json when present; stable, Insiders, VSCodium and remote server are all roots', async () => {
    sb = makeSandbox();
    const id = '3f2c9a10-7b1e-4d55-9a0c-1e2f3a4b5c6d';
    const ws = path.join(sb.env.HOME!, '.vscode-server', 'data', 'User', 'workspaceStorage', 'ffee01');
    copy(path.join(FIX, 'copilot-transcripts', `${id}.jsonl`), path.join(ws, 'GitHub.copilot-chat', 'transcripts', `${id}.jsonl`));
    fs.writeFileSync(path.join(ws, 'workspace.json'), JSON.stringify({ folder: 'file:///srv/work/datekit' }));
    db = openDb(resolvePaths({ env: sb.env }).database);
    await runHarvest(db, config(), { env: sb.env, agents: ['copilot'] });
    expect(getSession(db, `copilot:${id}`)?.cwd).toBe('/srv/work/datekit');
    const notes = copilotStoreNotes(config(), rootEnvFrom(sb.env, 'linux'));
    expect(notes.length).toBe(1);
  });

  it('the common folder of touched paths is no guess when it is the root', () => {
    expect(commonFolder(['/a/b/c', '/a/b'])).toBe('/a/b');
    expect(commonFolder(['/a/x', '/b/y'])).toBeNull();
    expect(commonFolder([])).toBeNull();
  });
});

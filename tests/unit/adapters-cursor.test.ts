/** Cursor Agent transcripts: both record shapes, the workspace file, the time from mtime, and incremental reads. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { listEvents } from '../../src/store/repos/events.js';
import { getSession } from '../../src/store/repos/sessions.js';
import { agentOfFile, discoverRoots, getAgent } from '../../adapters/index.js';
import { cursorUserText } from '../../adapters/cursor/parse.js';
import { correctionsOf, extractIntents } from '../../src/mine/outcome.js';
import { makeSandbox, REPO_ROOT, type Sandbox } from '../helpers/sandbox.js';

const FIX_HOME = path.join(REPO_ROOT, 'tests/fixtures/cursor/home');
const MAIN = '5f1c2a9e-0b7d-4c3e-9a11-2e6b8d0c4f71';
const PLAIN = '9a0e7c33-1d2b-4f5a-8c6e-7b3a2d1e0f99';
const NO_WS = 'c0ffee00-0000-4000-8000-000000000001';
const config = () => ConfigSchema.parse({});

let sb: Sandbox | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  sb?.cleanup();
  db = null;
  sb = null;
});

/** The fixture home copied to ~/.cursor of a sandbox, its workspace pointed at a real folder there. */
function setup(): { cursorDir: string; project: string; file: (id: string, slug?: string) => string } {
  sb = makeSandbox();
  const cursorDir = path.join(sb.env.HOME!, '.cursor');
  fs.cpSync(FIX_HOME, cursorDir, { recursive: true });
  const project = path.join(sb.root, 'shop');
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(cursorDir, 'projects/home-dev-shop/.workspace-trusted'), JSON.stringify({ workspacePath: project }));
  const file = (id: string, slug = 'home-dev-shop') => path.join(cursorDir, 'projects', slug, 'agent-transcripts', id, `${id}.jsonl`);
  db = openDb(resolvePaths({ env: sb.env }).database);
  return { cursorDir, project, file };
}

describe('Cursor Agent transcripts', () => {
  it('keeps only the inside of a trailing <user_query>, else drops leading attached files', () => {
    expect(cursorUserText('<attached_files>\n<file>x</file>\n</attached_files>\n<user_query>\nDeploy it\n</user_query>\n')).toBe('Deploy it');
    expect(cursorUserText('<attached_files>a</attached_files>\nfix the bug')).toBe('fix the bug');
    expect(cursorUserText('plain\0 words')).toBe('plain words');
  });

  it('is a registry agent whose root is ~/.cursor/projects, or CURSOR_CONFIG_DIR/projects', () => {
    expect(getAgent('cursor').displayName).toBe('Cursor Agent');
    const roots = (env: NodeJS.ProcessEnv) => discoverRoots(config(), env).filter((r) => r.agent === 'cursor').map((r) => r.path);
    expect(roots({ HOME: '/h' })).toEqual([path.resolve('/h/.cursor/projects')]);
    expect(roots({ HOME: '/h', CURSOR_CONFIG_DIR: '/c' })).toEqual([path.resolve('/c/projects')]);
    expect(agentOfFile('/h/.cursor/projects/s/agent-transcripts/a/a.jsonl')).toBe('cursor');
    expect(agentOfFile('/h/.cursor/projects/s/agent-transcripts/a.txt')).toBeNull();
    // the skill locations of Cursor's docs (tests/unit/skills-cursor-opencode.test.ts has the rest)
    expect(getAgent('cursor').skills.roots({ project: '/p', env: { HOME: '/h' } }).map((r) => r.dir)).toEqual(expect.arrayContaining([path.resolve('/p/.cursor/skills'), path.resolve('/h/.cursor/skills')]));
    expect(getAgent('cursor').skills.instructionFiles({ project: '/p', env: { HOME: '/h' } }).map((f) => f.path)).toEqual([path.resolve('/p/AGENTS.md')]);
  });

  it('content-block era: prompts from <user_query>, tool names, turn_ended answers and errors, project from .workspace-trusted', async () => {
    const { project, file } = setup();
    const mtime = new Date('2026-11-20T09:30:00Z');
    fs.utimesSync(file(MAIN), mtime, mtime);
    const summary = await runHarvest(db!, config(), { env: sb!.env, agents: ['cursor'] });
    expect(summary.errors).toEqual([]);
    const s = getSession(db!, `cursor:${MAIN}`)!;
    expect(s.project).toBe(project);
    expect(s.toolErrorCount).toBe(1); // the turn that ended in error
    // no record carries a time: the file's mtime is the session's
    expect(s.endedAt).toBe(mtime.getTime());
    const ev = listEvents(db!, s.id);
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['Deploy the API to staging', "No, that's wrong: deploy to production, not staging."]);
    expect(ev.some((e) => e.text.includes('attached_files') || e.text.includes('export const api'))).toBe(false);
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => [e.toolName, e.text])).toEqual([
      ['shell.execute', 'npm run deploy:staging'],
      ['shell.execute', 'npm run deploy:prod'],
    ]);
    const finals = ev.filter((e) => e.meta?.final === true).map((e) => e.text);
    expect(finals).toEqual(['Deployment finished.']);
    expect(ev.every((e) => e.ts === mtime.getTime())).toBe(true);
    // mining reads the second prompt as the user's correction of the first ask's answer
    const intents = extractIntents(ev.map((e) => ({ ...e, ts: e.ts ?? null, toolName: e.toolName ?? null, isError: e.isError === true, meta: e.meta ?? {} })), project);
    expect(intents.map((i) => i.text)).toEqual(['Deploy the API to staging']);
    expect(correctionsOf(intents[0].outcome)).toEqual(["No, that's wrong: deploy to production, not staging."]);
  });

  it('role-in-message era with string content and no turn_ended; a folder without a readable .workspace-trusted has no project', async () => {
    const { cursorDir } = setup();
    // a damaged workspace file and a relative path are no project either (the slug is never decoded)
    const damaged = path.join(cursorDir, 'projects/damaged/agent-transcripts/d1/d1.jsonl');
    const relative = path.join(cursorDir, 'projects/relative/agent-transcripts/r1/r1.jsonl');
    for (const f of [damaged, relative]) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, JSON.stringify({ role: 'user', message: { content: 'hello there, check the build' } }) + '\n');
    }
    fs.writeFileSync(path.join(cursorDir, 'projects/damaged/.workspace-trusted'), '{"workspacePath": ');
    fs.writeFileSync(path.join(cursorDir, 'projects/relative/.workspace-trusted'), JSON.stringify({ workspacePath: 'shop' }));
    await runHarvest(db!, config(), { env: sb!.env, agents: ['cursor'] });
    const plain = getSession(db!, `cursor:${PLAIN}`)!;
    const ev = listEvents(db!, plain.id);
    expect(ev.map((e) => [e.kind, e.text])).toEqual([
      ['prompt', 'Add a changelog entry for the 2.1 release'],
      ['text', 'Added the 2.1 entry to CHANGELOG.md.'],
    ]);
    // with no end-of-turn record, the last answer so far is the final one
    expect(ev[1].meta?.final).toBe(true);
    const noWs = getSession(db!, `cursor:${NO_WS}`)!;
    expect(noWs.cwd).toBeNull();
    expect(listEvents(db!, noWs.id).filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['Explain the failing test']);
    for (const id of ['d1', 'r1']) {
      const s = getSession(db!, `cursor:${id}`)!;
      expect([s.cwd, s.project, s.promptCount]).toEqual([null, null, 1]);
    }
  });

  it('reads appended lines from the saved offset; the session ends at the later mtime', async () => {
    const { file } = setup();
    const f = file(PLAIN);
    const t1 = new Date('2026-11-20T09:00:00Z');
    fs.utimesSync(f, t1, t1);
    await runHarvest(db!, config(), { env: sb!.env, agents: ['cursor'] });
    fs.appendFileSync(f, JSON.stringify({ role: 'user', message: { content: [{ type: 'text', text: '<user_query>\nalso bump the version\n</user_query>' }] } }) + '\n');
    const t2 = new Date('2026-11-20T11:00:00Z');
    fs.utimesSync(f, t2, t2);
    const size = fs.statSync(f).size;
    const second = await runHarvest(db!, config(), { env: sb!.env, agents: ['cursor'] });
    expect(second.bytesRead).toBeGreaterThan(0);
    expect(second.bytesRead).toBeLessThan(size / 2);
    const s = getSession(db!, `cursor:${PLAIN}`)!;
    expect(s.startedAt).toBe(t1.getTime());
    expect(s.endedAt).toBe(t2.getTime());
    const ev = listEvents(db!, s.id);
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => [e.text, e.ts])).toEqual([
      ['Add a changelog entry for the 2.1 release', t1.getTime()],
      ['also bump the version', t2.getTime()],
    ]);
  });
});

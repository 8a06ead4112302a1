/**
 * Antigravity CLI transcripts: the step records, the prompt inside <USER_REQUEST>, the full copy
 * over the display copy, the project from last_conversations.json / history.jsonl (else none), the
 * skill folders from the migration guide, and `doctor`'s notes on what cannot be read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { listEvents } from '../../src/store/repos/events.js';
import { getSession } from '../../src/store/repos/sessions.js';
import { agentOfFile, discoverRoots, getAgent, resolveAgentName } from '../../adapters/index.js';
import { antigravityCallSummary, antigravityUserText } from '../../adapters/antigravity/parse.js';
import { antigravityStoreNotes, antigravityUnreadableStores } from '../../adapters/antigravity/store-notes.js';
import { rootEnvFrom } from '../../adapters/root-env.js';
import { discoverSkills } from '../../adapters/skills-registry.js';
import { makeSandbox, REPO_ROOT, type Sandbox } from '../helpers/sandbox.js';

const FIX_HOME = path.join(REPO_ROOT, 'tests/fixtures/antigravity/home');
const A = '3b4a1d20-3968-4ed2-80b3-00eea3060b02';
const B = 'd1d8a55b-cc27-4dd4-bc62-2f73015960d2';
const C = '6e0f9a41-2b7c-4d15-9a3e-5c8b1f2d7e60';
const config = () => ConfigSchema.parse({});

let sb: Sandbox | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  sb?.cleanup();
  db = null;
  sb = null;
});

/** The fixture home copied to ~/.gemini/antigravity-cli of a sandbox, its workspaces pointed at a real folder there. */
function setup(): { agyDir: string; project: string } {
  sb = makeSandbox();
  const agyDir = path.join(sb.env.HOME!, '.gemini', 'antigravity-cli');
  fs.cpSync(FIX_HOME, agyDir, { recursive: true });
  const project = path.join(sb.root, 'tidemark');
  fs.mkdirSync(project, { recursive: true });
  const fixProject = '/home/mika/src/tidemark';
  for (const f of ['cache/last_conversations.json', 'history.jsonl']) {
    const p = path.join(agyDir, f);
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').split(fixProject).join(project));
  }
  db = openDb(resolvePaths({ env: sb.env }).database);
  return { agyDir, project };
}

describe('Antigravity CLI transcripts', () => {
  it('takes the prompt from inside <USER_REQUEST>, never the CLI blocks; summarises calls by their own argument names', () => {
    expect(antigravityUserText('<USER_REQUEST>\nfix it\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nThe current local time is: x.\n</ADDITIONAL_METADATA>')).toBe('fix it');
    expect(antigravityUserText('Comments on artifact URI: file:///p\n<USER_REQUEST>\n\n</USER_REQUEST>')).toBe('');
    // no wrapper (a shape no source shows): only the known CLI blocks are dropped
    expect(antigravityUserText('plain ask\n<USER_SETTINGS_CHANGE>\nmodel\n</USER_SETTINGS_CHANGE>')).toBe('plain ask');
    expect(antigravityCallSummary({ CommandLine: 'npm test', Cwd: '/r', toolSummary: 'Run' })).toBe('npm test');
    expect(antigravityCallSummary({ AbsolutePath: '/r/a.ts' })).toBe('/r/a.ts');
  });

  it('is one registry agent whose root is ~/.gemini/antigravity-cli/brain (or a configured folder)', () => {
    const a = getAgent('antigravity');
    expect([a.displayName, a.exec, a.succeeds?.agent]).toEqual(['Antigravity CLI', null, 'gemini']);
    expect(resolveAgentName('agy')).toBe('antigravity');
    const roots = (cfg = config()) => discoverRoots(cfg, { HOME: '/h' }).filter((r) => r.agent === 'antigravity').map((r) => r.path);
    expect(roots()).toEqual([path.resolve('/h/.gemini/antigravity-cli/brain')]);
    expect(roots(ConfigSchema.parse({ agents: { antigravity: { roots: ['/x/agy'] } } }))).toEqual([path.resolve('/x/agy/brain'), path.resolve('/h/.gemini/antigravity-cli/brain')]);
    const logs = '/h/.gemini/antigravity-cli/brain/id/.system_generated/logs';
    expect(agentOfFile(`${logs}/transcript.jsonl`)).toBe('antigravity');
    expect(agentOfFile(`${logs}/transcript_full.jsonl`)).toBe('antigravity');
    expect(agentOfFile('/h/.gemini/antigravity-cli/brain/id/transcript.jsonl')).toBeNull();
    // Gemini CLI's chats are not claimed
    expect(agentOfFile('/h/.gemini/tmp/slug/chats/session-1.jsonl')).toBe('gemini');
  });

  it('reads the full copy: prompts, calls, the error, answers, times; the project from last_conversations.json', async () => {
    const { project } = setup();
    const summary = await runHarvest(db!, config(), { env: sb!.env, agents: ['antigravity'] });
    expect(summary.errors).toEqual([]);
    const s = getSession(db!, `antigravity:${A}`)!;
    expect(s.file.endsWith('transcript_full.jsonl')).toBe(true);
    expect([s.cwd, s.project, s.promptCount, s.toolErrorCount]).toEqual([project, project, 2, 1]);
    expect([s.startedAt, s.endedAt]).toEqual([Date.parse('2026-07-02T08:10:00Z'), Date.parse('2026-07-02T08:12:16Z')]);
    const ev = listEvents(db!, s.id);
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual([
      'add a unit test for parseDuration (negative values, unit suffixes, empty string)',
      'use it.each for the suffix cases',
    ]);
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => [e.toolName, e.text])).toEqual([
      ['view_file', '/home/mika/src/tidemark/src/duration.ts'],
      ['write_to_file', '/home/mika/src/tidemark/test/parse-duration.test.ts'],
      ['run_command', 'npx vitest run test/parse-duration.test.ts'],
      ['replace_file_content', '/home/mika/src/tidemark/test/parse-duration.test.ts'],
    ]);
    expect(ev.filter((e) => e.kind === 'tool_result').map((e) => [e.isError, e.text])).toEqual([[true, 'invalid tool call: missing Overwrite']]);
    // the untruncated answer (transcript_full.jsonl), final for its turn; the second turn's answer too
    expect(ev.filter((e) => e.meta?.final === true).map((e) => e.text)).toEqual([
      'Added test/parse-duration.test.ts covering negative values, unit suffixes (ms, s, m, h) and the empty string; all 14 tests pass.',
      'The suffix cases now use it.each.',
    ]);
    // neither the CLI's blocks, the model's thinking nor tool output is stored
    const all = ev.map((e) => e.text).join('\n');
    for (const gone of ['ADDITIONAL_METADATA', 'Model Selection', 'Planning the test', 'Test Files', 'export function parseDuration']) expect(all).not.toContain(gone);
  });

  it('a history.jsonl row naming the conversation gives its project; none named: no project, never a guess', async () => {
    const { project } = setup();
    await runHarvest(db!, config(), { env: sb!.env, agents: ['antigravity'] });
    const b = getSession(db!, `antigravity:${B}`)!;
    expect([b.project, b.promptCount]).toEqual([project, 1]);
    // the plan approval with an empty request is no prompt; its answer closes the first turn
    expect(listEvents(db!, b.id).filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['write a changelog entry for the overflow fix (#287)']);
    const c = getSession(db!, `antigravity:${C}`)!;
    // its run_command-free transcript and the id-less history row name no workspace
    expect([c.cwd, c.project, c.promptCount]).toEqual([null, null, 1]);
  });

  it('re-reads a changed transcript whole (a late step is placed by the file, not appended after)', async () => {
    const { agyDir } = setup();
    await runHarvest(db!, config(), { env: sb!.env, agents: ['antigravity'] });
    const f = path.join(agyDir, 'brain', C, '.system_generated/logs/transcript.jsonl');
    fs.appendFileSync(f, JSON.stringify({ step_index: 2, source: 'USER_EXPLICIT', type: 'USER_INPUT', status: 'DONE', created_at: '2026-07-04T07:40:00Z', content: '<USER_REQUEST>\nalso run prettier\n</USER_REQUEST>' }) + '\n');
    await runHarvest(db!, config(), { env: sb!.env, agents: ['antigravity'] });
    const c = getSession(db!, `antigravity:${C}`)!;
    expect(c.promptCount).toBe(2);
    expect(listEvents(db!, c.id).map((e) => [e.kind, e.text])).toEqual([
      ['prompt', 'fix the eslint errors in src/duration.ts'],
      ['text', 'Removed the unused factor and typed toSeconds.'],
      ['prompt', 'also run prettier'],
    ]);
  });

  it('doctor: the conversation kept only as a binary store is named unreadable, and why; no replay backend', () => {
    setup();
    const notes = antigravityStoreNotes(config(), rootEnvFrom(sb!.env));
    const unreadable = antigravityUnreadableStores(config(), rootEnvFrom(sb!.env));
    expect(notes.slice(0, unreadable.length)).toEqual(unreadable);
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0].status).toBe('warn');
    expect(unreadable[0].detail).toMatch(/^1 Antigravity CLI conversation in .*conversations has no readable transcript: its content is protobuf without a published schema/);
    expect(notes.some((n) => /not a replay backend/.test(n.detail))).toBe(true);
    // the editor's store beside it is named, not harvested
    const editor = path.join(sb!.env.HOME!, '.gemini', 'antigravity', 'conversations');
    fs.mkdirSync(editor, { recursive: true });
    fs.writeFileSync(path.join(editor, 'e1.pb'), Buffer.from([1, 2, 3]));
    expect(antigravityUnreadableStores(config(), rootEnvFrom(sb!.env)).map((n) => n.detail)).toContainEqual(expect.stringMatching(/^1 Antigravity editor conversation in .*: not harvested/));
  });
});

describe('Antigravity CLI skill folders (migration guide)', () => {
  it('reads <project>/.agents/skills, ~/.gemini/antigravity-cli/skills and ~/.gemini/skills; GEMINI.md and AGENTS.md', () => {
    const a = getAgent('antigravity');
    const ctx = { project: '/p', env: { HOME: '/h' } };
    expect(a.skills.roots(ctx).map((r) => [r.dir, r.scope])).toEqual([
      [path.resolve('/p/.agents/skills'), 'project'],
      [path.resolve('/h/.gemini/antigravity-cli/skills'), 'personal'],
      [path.join('/h', '.gemini', 'skills'), 'personal'],
    ]);
    expect(a.skills.instructionFiles(ctx).map((f) => f.path)).toEqual(['/p/GEMINI.md', '/p/AGENTS.md', '/h/.gemini/GEMINI.md'].map((p) => path.normalize(p)));
    expect(a.skills.projectManagedRoot('/p')).toBe(path.normalize('/p/.agents/skills'));
    expect(a.skills.personalManagedRoot(ctx)).toBe(path.resolve('/h/.gemini/antigravity-cli/skills'));
  });

  it('skills lists the Antigravity global skills with their readers: its own folder, and ~/.gemini/skills shared with Gemini CLI', () => {
    sb = makeSandbox();
    const home = sb.env.HOME!;
    const own = path.join(home, '.gemini/antigravity-cli/skills/release-notes/SKILL.md');
    const shared = path.join(home, '.gemini/skills/lint-fix/SKILL.md');
    const project = path.join(sb.root, 'p');
    const inProject = path.join(project, '.agents/skills/changelog/SKILL.md');
    for (const f of [own, shared, inProject]) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, `---\nname: ${path.basename(path.dirname(f))}\ndescription: x\n---\n`);
    }
    const found = discoverSkills({ project, env: sb.env });
    const readers = (f: string) => found.find((t) => t.path === f)?.readBy;
    expect(readers(own)).toEqual(['antigravity']);
    expect(readers(shared)).toEqual(['gemini', 'antigravity']);
    expect(readers(inProject)).toEqual(['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity']);
    // one row per file: a skill two agents read is one target
    expect(found.filter((t) => t.path === inProject)).toHaveLength(1);
  });
});

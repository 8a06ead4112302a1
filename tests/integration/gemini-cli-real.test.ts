/**
 * The REAL `gemini` binary (devDependency @google/gemini-cli) in print mode, pointed at a local
 * scripted Gemini API server (GOOGLE_GEMINI_BASE_URL; the CLI then authenticates as a gateway with
 * GEMINI_API_KEY). Two runs:
 * 1. as a user would (`gemini -p` in a project folder, HOME in the sandbox): the chat it records
 *    under ~/.gemini/tmp/<slug>/chats/ is harvested and classified (project from .project_root,
 *    prompt and final answer, no injected <session_context>);
 * 2. through our `gemini` backend (target role): the skill is installed in the workspace, the run
 *    is isolated (no chat recorded in the user's ~/.gemini), the answer parsed from stream-json.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { listEvents } from '../../src/store/repos/events.js';
import { getSession } from '../../src/store/repos/sessions.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { listGeminiFiles } from '../../adapters/gemini/paths.js';
import { startFakeGemini, type FakeGeminiReply, type FakeServer } from '../helpers/fake-gemini.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, performRequest } from '../helpers/llm-cli.js';

const GEMINI_BIN = path.join(NODE_BIN, 'gemini');
const missing = fs.existsSync(GEMINI_BIN) ? null : `${GEMINI_BIN} not installed (npm ci installs @google/gemini-cli)`;
if (missing) console.warn(`SKIP gemini-cli-real: ${missing}`);

describe.skipIf(!!missing)('gemini CLI (real binary, fake Gemini API)', () => {
  let sb: Sandbox;
  let server: FakeServer<FakeGeminiReply>;
  let db: Db;
  let project: string;

  beforeAll(async () => {
    server = await startFakeGemini(() => ({ text: 'Use `git tag -a v1.2.0` then push the tag. ANSWER_7731' }));
    sb = makeSandbox({ GEMINI_API_KEY: 'dummy-key', GOOGLE_GEMINI_BASE_URL: server.url, NO_COLOR: '1' });
    sb.env.PATH = `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`;
    sb.env.SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS = '1';
    project = path.join(sb.root, 'release-tool');
    fs.mkdirSync(project, { recursive: true });
    fs.mkdirSync(path.join(project, '.git'));
    // a user with an API key and a custom endpoint selects API-key auth in their settings
    fs.mkdirSync(path.join(sb.env.HOME!, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(sb.env.HOME!, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }));
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  it('a print-mode run is recorded by the CLI, harvested and classified', async () => {
    // async: the fake server runs in this process and must keep serving while the CLI waits
    const run = await promisify(execFile)(GEMINI_BIN, ['-p', 'how do I tag the release?', '--skip-trust'], { cwd: project, env: sb.env, encoding: 'utf8', timeout: 120_000 });
    expect(run.stdout).toContain('ANSWER_7731');
    // the CLI's model router got a JSON answer it could parse (a prose answer costs ~100 s of retries)
    expect(run.stderr).not.toContain('Retry attempts exhausted');
    expect(server.messageRequests().length).toBeGreaterThan(0);

    const tmp = path.join(sb.env.HOME!, '.gemini', 'tmp');
    const files = listGeminiFiles({ agent: 'gemini', path: tmp, exists: true, kind: 'gemini-tmp' });
    expect(files.length).toBe(1);
    expect(files[0]).toMatch(/[\\/]chats[\\/]session-[^\\/]+\.jsonl$/);

    const summary = await runHarvest(db, ConfigSchema.parse({}), { env: sb.env, agents: ['gemini'] });
    expect(summary.errors).toEqual([]);
    const sid = summary.newSessionIds.find((s) => s.startsWith('gemini:'));
    expect(sid).toBeDefined();
    const session = getSession(db, sid!)!;
    expect(session.project).toBe(fs.realpathSync(project));
    const events = listEvents(db, sid!);
    const prompts = events.filter((e) => e.kind === 'prompt').map((e) => e.text);
    expect(prompts).toEqual(['how do I tag the release?']); // the injected <session_context> is not a prompt
    const answers = events.filter((e) => e.kind === 'text');
    expect(answers.at(-1)?.text).toContain('ANSWER_7731');
    expect(answers.at(-1)?.meta?.final).toBe(true);
  }, 180_000);

  it('our gemini backend runs isolated: skill installed in the workspace, nothing recorded in ~/.gemini', async () => {
    const before = listGeminiFiles({ agent: 'gemini', path: path.join(sb.env.HOME!, '.gemini', 'tmp'), exists: true, kind: 'gemini-tmp' });
    const config = ConfigSchema.parse({ roles: { target: { backend: 'gemini' } } });
    const backends = createRoleBackends(config, { db, runId: 'run_gemini', env: sb.env });
    server.setResponder(() => ({ text: 'Grouped under Added and Fixed. SKILLED_ANSWER_1200' }));
    const skill = { name: 'release-notes', content: '---\nname: release-notes\ndescription: Write release notes\n---\n# Release notes\nGroup changes under Added / Fixed. SKILLMARKER_99\n' };
    const reply = await backends.target.complete(performRequest('write the release notes', skill));
    expect(reply.text).toContain('SKILLED_ANSWER_1200');
    const last = server.messageRequests().at(-1)!;
    expect(last.raw).toContain('write the release notes');
    const after = listGeminiFiles({ agent: 'gemini', path: path.join(sb.env.HOME!, '.gemini', 'tmp'), exists: true, kind: 'gemini-tmp' });
    expect(after).toEqual(before);
  }, 180_000);
});

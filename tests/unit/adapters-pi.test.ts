/** Pi sessions: every era (v1 linear, v2 and v3 trees), the active branch of a tree, and a broken tree. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { listEvents } from '../../src/store/repos/events.js';
import { getSession } from '../../src/store/repos/sessions.js';
import { agentOfFile, getAgent } from '../../adapters/index.js';
import { activeBranch, PiParser } from '../../adapters/pi/parse.js';
import { isPiTranscript } from '../../adapters/pi/paths.js';
import { discoverSkills, managedSkillTarget } from '../../adapters/skills-registry.js';
import { makeSandbox, REPO_ROOT, type Sandbox } from '../helpers/sandbox.js';

const FIX = path.join(REPO_ROOT, 'tests/fixtures/pi');
const config = () => ConfigSchema.parse({});
const SESSIONS = (home: string) => path.join(home, '.pi', 'agent', 'sessions', '--home-u-ledger--');

let sb: Sandbox | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  sb?.cleanup();
  db = null;
  sb = null;
});

function parseFixture(name: string) {
  const p = new PiParser();
  for (const line of fs.readFileSync(path.join(FIX, name), 'utf8').split('\n')) if (line.trim()) p.line(JSON.parse(line) as Record<string, unknown>);
  return p.flush();
}

async function harvestFixtures(files: string[]) {
  sb = makeSandbox();
  const dir = SESSIONS(sb.env.HOME!);
  fs.mkdirSync(dir, { recursive: true });
  for (const f of files) fs.copyFileSync(path.join(FIX, f), path.join(dir, `2026-11-02T09-00-00-000Z_${f}`));
  db = openDb(resolvePaths({ env: sb.env }).database);
  return runHarvest(db, config(), { env: sb.env, agents: ['pi'] });
}

describe('Pi session files', () => {
  it('v3: the active branch from the last entry back to the root, the branched-away turn left out', async () => {
    const summary = await harvestFixtures(['session-v3-tree.jsonl']);
    expect(summary.errors).toEqual([]);
    const s = getSession(db!, 'pi:7f3c1a2b-0d4e-4f5a-9b6c-1d2e3f4a5b6c')!;
    expect(s.cwd).toBe('/home/u/ledger');
    expect(s.title).toBe('Ledger CSV export');
    expect(s.startedAt).toBe(Date.parse('2026-11-02T09:00:00.000Z'));
    expect(s.endedAt).toBe(Date.parse('2026-11-02T09:00:14.000Z'));
    const ev = listEvents(db!, s.id);
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual([
      'add a CSV export to the ledger report',
      "no, don't add a dependency: write the CSV by hand and run the tests",
    ]);
    expect(ev.some((e) => e.text.includes('PDF'))).toBe(false);
    expect(ev.some((e) => e.text.includes('Look at the report module'))).toBe(false); // thinking
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => e.toolName)).toEqual(['bash', 'edit', 'bash']);
    const results = ev.filter((e) => e.kind === 'tool_result');
    expect(results.map((e) => [e.toolName, !!e.isError])).toEqual([
      ['bash', true],
      ['edit', false],
      ['bash', false],
    ]);
    const finals = ev.filter((e) => e.meta?.final).map((e) => e.text);
    expect(finals).toEqual(['I added the export with the csv-stringify package.', 'The CSV is written by hand now; all 12 tests pass.']);
  });

  it('v2 (hookMessage role) and v1 (linear, no ids) keep their prompts and answers', async () => {
    const summary = await harvestFixtures(['session-v2.jsonl', 'session-v1.jsonl']);
    expect(summary.errors).toEqual([]);
    const v2 = listEvents(db!, 'pi:5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
    expect(v2.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['rename the Ledger class to Journal everywhere', 'keep the old name as a deprecated alias']);
    expect(v2.some((e) => e.text.includes('lint before commit'))).toBe(false);
    const v1 = listEvents(db!, 'pi:1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f');
    expect(v1.map((e) => e.kind)).toEqual(['prompt', 'text', 'prompt', 'text']);
    expect(v1[2].text).toBe('no, round half up like the bank does');
    expect(getSession(db!, 'pi:1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f')!.startedAt).toBe(Date.parse('2025-11-28T08:10:00.000Z'));
  });

  it("a fork keeps only its own turns (the parent's copied entries predate its header) and names its parent", () => {
    const out = parseFixture('session-fork.jsonl');
    expect(out.session?.parentId).toBe('pi:7f3c1a2b-0d4e-4f5a-9b6c-1d2e3f4a5b6c');
    expect(out.session?.startedAt).toBe(Date.parse('2026-11-05T14:00:00.000Z'));
    expect(out.events.map((e) => e.text)).toEqual(['now add a JSON export next to it', 'Added `--format json`.']);
    expect(out.skipped['fork-replay']).toBe(5);
  });

  it('a tree with a forward reference keeps no events and says why', () => {
    const out = parseFixture('session-forward-ref.jsonl');
    expect(out.session?.id).toBe('pi:9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b');
    expect(out.events).toEqual([]);
    expect(out.skipped['broken-tree']).toBe(3);
  });

  it('rejects duplicate ids, cycles and missing ids; an unknown version and a missing header keep nothing', () => {
    const e = (id: string | undefined, parentId: string | null) => ({ type: 'message', id, parentId });
    expect(activeBranch([e('a', null), e('a', 'a')])).toBeNull();
    expect(activeBranch([e('a', 'a')])).toBeNull(); // a cycle is a reference to a not-yet-written entry
    expect(activeBranch([e(undefined, null)])).toBeNull();
    expect(activeBranch([e('a', null), e('b', 'a'), e('c', 'a')])!.map((x) => x.id)).toEqual(['a', 'c']);

    const v9 = new PiParser();
    v9.line({ type: 'session', version: 9, id: 's9', cwd: '/w' });
    v9.line({ type: 'message', id: 'x', parentId: null, message: { role: 'user', content: 'hi there' } });
    expect(v9.flush().skipped['unknown-version']).toBe(1);

    const twice = new PiParser();
    twice.line({ type: 'session', id: 's1', cwd: '/w' });
    twice.line({ type: 'message', message: { role: 'user', content: 'first ask' } });
    twice.line({ type: 'session', id: 's2', cwd: '/elsewhere' });
    const kept = twice.flush();
    expect(kept.session?.id).toBe('pi:s1');
    expect(kept.events.map((x) => x.text)).toEqual(['first ask']);
    expect(kept.skipped['duplicate-header']).toBe(1);

    const headless = new PiParser();
    headless.line({ type: 'message', message: { role: 'user', content: 'orphan' } });
    const out = headless.flush();
    expect(out.session).toBeNull();
    expect(out.skipped['no-header']).toBe(1);
  });

  it('recognizes only `sessions/--<cwd>--/*.jsonl` and honours PI_CODING_AGENT_DIR', () => {
    const file = '/h/.pi/agent/sessions/--home-u-ledger--/2026-11-02T09-00-00-000Z_7f3c1a2b.jsonl';
    expect(isPiTranscript(file)).toBe(true);
    expect(agentOfFile(file)).toBe('pi');
    expect(isPiTranscript('/h/.pi/agent/sessions/2026.jsonl')).toBe(false);
    expect(isPiTranscript('/h/.codex/sessions/2026/11/02/rollout-x.jsonl')).toBe(false);
    const roots = getAgent('pi').harvest.roots(config(), { env: { PI_CODING_AGENT_DIR: '/opt/pi-agent' }, platform: 'linux', homedir: '/h' });
    expect(roots.map((r) => r.path)).toEqual(['/opt/pi-agent/sessions']);
  });

  it('.pi/skills, ~/.pi/agent/skills and AGENTS.md are where Pi reads skills', () => {
    sb = makeSandbox();
    const project = path.join(sb.root, 'p');
    fs.mkdirSync(path.join(project, '.pi', 'skills', 'deploy'), { recursive: true });
    fs.writeFileSync(path.join(project, '.pi', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: d\n---\n');
    const personal = path.join(sb.env.HOME!, '.pi', 'agent', 'skills', 'mine');
    fs.mkdirSync(personal, { recursive: true });
    fs.writeFileSync(path.join(personal, 'SKILL.md'), '---\nname: mine\ndescription: m\n---\n');
    const byName = new Map(discoverSkills({ project, env: sb.env }).map((t) => [t.name, t]));
    expect(byName.get('deploy')?.readBy).toEqual(['pi']);
    expect(byName.get('mine')?.readBy).toContain('pi');
    expect(byName.get('mine')?.project).toBeNull();
    // the learned skill of a Pi-only project goes to the cross-agent folder Pi reads
    expect(managedSkillTarget({ project, env: sb.env }, { agentsUsed: ['pi'] }).path).toBe(path.join(project, '.agents', 'skills', 'skillopt-sleep-learned', 'SKILL.md'));
  });
});

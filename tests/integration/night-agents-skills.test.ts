/**
 * The shared `.agents/skills/` folder through the real CLI with the `sim` backend: a project worked
 * on with Codex and Antigravity CLI gets its learned skill in `<project>/.agents/skills/` (read by
 * both, so trained once: one target, no copy), `skills --json` lists it with its readers, and
 * `apply` / `revert` round-trip it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, REPO_ROOT, type Sandbox } from '../helpers/sandbox.js';
import { FIXTURE_PROJECT, fixtureHome } from '../helpers/fixtures.js';
import { resolvePaths } from '../../src/core/paths.js';

let sb: Sandbox;
let project: string;
let env: NodeJS.ProcessEnv;

/** A fixture home copied to `to`, the fixture project path rewritten to the sandbox's. */
function copyHome(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.json') || p.endsWith('.jsonl')) {
        const text = fs.readFileSync(p, 'utf8');
        if (text.includes(FIXTURE_PROJECT)) fs.writeFileSync(p, text.split(FIXTURE_PROJECT).join(project));
      }
    }
  };
  walk(to);
}

const cli = (args: string[]) => runCli(args, env, { timeout: 90_000 });
const json = (args: string[]) => {
  const r = cli([...args, '--json']);
  try {
    return { r, data: JSON.parse(r.stdout) };
  } catch {
    throw new Error(`not JSON (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  }
};

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  env = { ...sb.env, PATH: path.dirname(process.execPath) };
  project = path.join(sb.root, 'tidemark');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  copyHome(fixtureHome('codex'), env.CODEX_HOME!);
  copyHome(path.join(REPO_ROOT, 'tests/fixtures/antigravity/home'), path.join(env.HOME!, '.gemini', 'antigravity-cli'));
  for (const [k, v] of [['training.minValTasks', '1'], ['training.batchSize', '2']]) expect(cli(['config', 'set', k, v]).status).toBe(0);
});
afterAll(() => sb?.cleanup());

describe('a night into the shared .agents/skills folder', () => {
  it('stages one proposal there, read by both agents; skills lists it with its readers; apply and revert round-trip', () => {
    const h = json(['harvest']);
    expect(h.r.status, h.r.stderr).toBe(0);
    const agents = (json(['sessions', 'list']).data as { sessions: Array<{ agent: string; project: string | null }> }).sessions.filter((s) => s.project === project).map((s) => s.agent);
    expect(new Set(agents)).toEqual(new Set(['codex', 'antigravity']));

    const { r, data } = json(['night', '--backend', 'sim']);
    expect(r.status, r.stderr).toBe(0);
    expect(data.proposals).toHaveLength(1);
    const live = path.join(project, '.agents/skills/skillopt-sleep-learned/SKILL.md');
    const item = data.items.find((i: { target: { path: string } }) => i.target.path === live);
    expect(item.target.readBy).toEqual(['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity']);
    const id = data.proposals[0];
    const candidate = fs.readFileSync(path.join(resolvePaths({ env }).proposalsDir, id, 'SKILL.md'), 'utf8');

    const a = json(['apply', id]);
    expect(a.r.status, a.r.stderr).toBe(0);
    expect(fs.readFileSync(live, 'utf8')).toBe(candidate);
    // one file serves both agents: no copy anywhere else
    expect(a.data.copies ?? []).toEqual([]);
    expect(a.data.readBy).toEqual(['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity']);

    const listed = json(['skills', '--project', project]);
    expect(listed.r.status, listed.r.stderr).toBe(0);
    const row = (listed.data.skills as Array<{ path: string; readBy: string[] }>).find((s) => s.path === live);
    expect(row?.readBy).toContain('antigravity');

    expect(cli(['revert', id]).status).toBe(0);
    expect(fs.existsSync(live)).toBe(false);
  });
});

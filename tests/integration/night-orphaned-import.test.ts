/**
 * An imported task whose project was never harvested (or is not on disk) is reported and set
 * aside before any model call: the night exits 0, the user's real project still gets its
 * proposal, and the next night does too (issue 43: such a task used to fail every later night
 * after about 200 calls). Through the real CLI, the `sim` backend, the repository's transcript
 * fixtures in a sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { FIXTURE_PROJECT, fixtureHome, type FixtureAgent } from '../helpers/fixtures.js';

let sb: Sandbox;
let project: string;
let env: NodeJS.ProcessEnv;

function copyFixtures(from: FixtureAgent, to: string, projectDir: string): void {
  fs.cpSync(fixtureHome(from), to, { recursive: true });
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const text = fs.readFileSync(p, 'utf8');
        if (text.includes(FIXTURE_PROJECT)) fs.writeFileSync(p, text.split(FIXTURE_PROJECT).join(projectDir));
      }
    }
  };
  walk(to);
}

const cli = (args: string[]) => runCli(args, env, { timeout: 120_000 });

interface Report {
  status: string;
  summary: string;
  notes: string[];
  proposals: string[];
  orphaned?: Array<{ project: string; tasks: string[]; reason: string }>;
  items: Array<{ project: string | null; status: string; reason?: string; target: { path: string } }>;
}

let neverHarvested: string;
const gone = '/nonexistent/skillopt-orphan-project';

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  env = { ...sb.env, PATH: path.dirname(process.execPath) };
  project = path.join(sb.root, 'tidemark');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  copyFixtures('claude-code', env.CLAUDE_CONFIG_DIR!, project);
  copyFixtures('codex', env.CODEX_HOME!, project);
  copyFixtures('copilot-cli', env.COPILOT_HOME!, project);
  copyFixtures('copilot-vscode', path.join(sb.root, 'vscode'), project);
  expect(cli(['config', 'set', 'agents.copilot.vscodeUserDirs', path.join(sb.root, 'vscode/User')]).status).toBe(0);
  for (const [k, v] of [['training.minValTasks', '1'], ['training.batchSize', '2']]) expect(cli(['config', 'set', k, v]).status).toBe(0);
  // a real git folder no agent ever worked in, and one that is not on disk at all
  neverHarvested = path.join(sb.root, 'imported-elsewhere');
  fs.mkdirSync(path.join(neverHarvested, '.git'), { recursive: true });
  const asks = ['Write the release notes for the new importer', 'Summarise the open issues about the importer', 'Add a test for the importer edge cases', 'Document the importer flags'];
  const tasks = [neverHarvested, gone].flatMap((p) =>
    asks.map((intent, i) => ({ intent, project: p, judge: { checks: [{ id: 'mentions', op: 'contains', value: 'importer' }] }, split: i % 2 ? 'val' : 'train' })),
  );
  const file = path.join(sb.root, 'tasks.json');
  fs.writeFileSync(file, JSON.stringify({ format: 'skillopt-sleep.tasks.v1', reviewed: true, tasks }));
  const imp = cli(['tasks', 'import', file]);
  expect(imp.status, imp.stderr + imp.stdout).toBe(0);
});
afterAll(() => sb?.cleanup());

describe('an orphaned imported task', () => {
  it('is reported and skipped before any call; the night exits 0 and stages the real project, night after night', () => {
    for (let n = 0; n < 2; n++) {
      const r = cli(['night', '--backend', 'sim', '--json']);
      expect(r.status, r.stderr + r.stdout.slice(0, 3000)).toBe(0);
      const report = JSON.parse(r.stdout) as Report;
      const orphans = new Map((report.orphaned ?? []).map((o) => [o.project, o]));
      expect(orphans.get(neverHarvested)?.reason).toMatch(/no agent session was ever harvested/);
      expect(orphans.get(neverHarvested)?.tasks).toHaveLength(4);
      expect(orphans.get(gone)?.reason).toMatch(/not on disk/);
      expect(report.notes.some((x) => x.includes(neverHarvested) && /before any model call/.test(x))).toBe(true);
      // nothing was planned (or called) for them
      expect(report.items.filter((i) => i.project === neverHarvested || i.project === gone)).toEqual([]);
      if (n === 0) {
        expect(report.status, JSON.stringify(report.items.map((i) => [i.status, i.reason]))).toBe('done');
        expect(report.proposals.length).toBeGreaterThan(0);
        const staged = report.items.filter((i) => i.status === 'staged');
        expect(staged.some((i) => i.target.path.startsWith(project + path.sep))).toBe(true);
      } else {
        expect(['done', 'nothing_staged']).toContain(report.status);
      }
    }
  }, 240_000);

  it('a night of only that project stages nothing, exits 0, and says the project can take no proposal', () => {
    const r = cli(['night', '--backend', 'sim', '--project', neverHarvested, '--json']);
    expect(r.status, r.stderr + r.stdout.slice(0, 2000)).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.status).toBe('nothing_staged');
    expect(report.items).toEqual([]);
    expect(report.summary).toMatch(/^nothing staged: every task belongs to a project that can take no proposal \(.*no agent session was ever harvested in it\)/);
  }, 120_000);
});

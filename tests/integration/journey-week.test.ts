/**
 * A week with the product (README.md, "A week with it"), as Dana lives it: the `skillopt-sleep` command on PATH the way `npm link`
 * puts it there (a symlink to the package's bin), run from her own project folder — never the
 * tool's clone — with a temporary HOME and agent homes. Monday: harvest and `tasks list`; run from
 * the clone, a project command refuses with a hint. Night: a night on the simulated model stages
 * proposals. Tuesday: the nudge says they wait, `skills` says which agents read the learned file
 * and which tasks route to it, `proposals show` and `apply` write it, `status` says so. Later that
 * week the same job is asked again, and `history` follows it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, REPO_ROOT, makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { writeDemoCorpus } from '../../src/demo/corpus.js';

let sb: Sandbox;
let ledgerline: string;
let bin: string;

/** `skillopt-sleep …` exactly as typed in a shell (found on PATH), from `cwd`. */
function typed(args: string[], cwd: string, input?: string) {
  return spawnSync('skillopt-sleep', args, { cwd, env: sb.env, encoding: 'utf8', input, timeout: 180_000 });
}

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  // what `npm link` does: a symlink named after the package's bin, in a folder on PATH, to an executable main.js
  bin = path.join(sb.root, 'npm-prefix', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const target = path.join(REPO_ROOT, pkg.bin['skillopt-sleep']!);
  fs.chmodSync(target, fs.statSync(target).mode | 0o111);
  fs.symlinkSync(target, path.join(bin, 'skillopt-sleep'));
  sb.env.PATH = `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;
  // two weeks of sessions in Dana's projects, in all three agents' formats
  const { projects } = writeDemoCorpus(
    { claudeConfigDir: sb.env.CLAUDE_CONFIG_DIR!, codexHome: sb.env.CODEX_HOME!, copilotHome: sb.env.COPILOT_HOME!, projectsRoot: path.join(sb.env.HOME!, 'src') },
    Date.now() - 3 * 86_400_000,
  );
  ledgerline = projects.find((p) => p.endsWith('ledgerline'))!;
  for (const role of ['target', 'optimizer', 'judge', 'miner']) expect(typed(['config', 'set', `roles.${role}.backend`, 'sim'], ledgerline).status).toBe(0);
  expect(typed(['config', 'set', 'training.epochs', '1'], ledgerline).status).toBe(0);
});
afterAll(() => sb?.cleanup());

describe('a week with skillopt-sleep, from a project folder', () => {
  it('the binary on PATH answers from any folder', () => {
    const r = typed(['--version'], ledgerline);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('Monday: harvest, then tasks list finds the recurring jobs', () => {
    const h = typed(['harvest', '--json'], ledgerline);
    expect(h.status, h.stderr).toBe(0);
    expect((JSON.parse(h.stdout) as { sessions: number }).sessions).toBeGreaterThan(10);
    expect(typed(['mine'], ledgerline).status).toBe(0);
    const t = typed(['tasks', 'list', '--json'], ledgerline);
    expect(t.status, t.stderr).toBe(0);
    const tasks = (JSON.parse(t.stdout) as { tasks: Array<{ project: string | null }> }).tasks;
    expect(tasks.length).toBeGreaterThan(5);
  });

  it('run from the tool\'s own clone, a project command refuses with a hint instead of training the clone', () => {
    const r = typed(['train', '--dry-run'], REPO_ROOT);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/skillopt-sleep's own folder, not one of your projects/);
    expect(r.stderr).toContain(ledgerline);
    expect(r.stderr).toMatch(/hint: .*--project/);
  });

  it('the night stages proposals, and the morning nudge says so', () => {
    const before = typed(['hooks', 'nudge'], ledgerline);
    expect(before.stdout).toBe('');
    const n = typed(['night', '--json'], ledgerline);
    expect(n.status, n.stderr).toBe(0);
    const report = JSON.parse(n.stdout) as { status: string; proposals: string[] };
    expect(report.status).toBe('done');
    expect(report.proposals.length).toBeGreaterThan(0);
    const nudge = typed(['hooks', 'nudge'], ledgerline);
    expect(nudge.stdout).toMatch(new RegExp(`^${report.proposals.length} skill proposals? waiting: skillopt-sleep review\\n$`));
  });

  it('Tuesday: skills names the learned file (personal: the jobs recur in both projects), its readers and its tasks; show, apply, status', () => {
    const list = typed(['proposals', 'list', '--json'], ledgerline);
    expect(list.status, list.stderr).toBe(0);
    const staged = (JSON.parse(list.stdout) as { proposals: Array<{ id: string; status: string; skillTarget: { path: string; project: string | null } }> }).proposals.filter((p) => p.status === 'staged');
    expect(staged.length).toBeGreaterThan(0);
    const p = staged[0]!;
    // a job Dana repeats in both projects is her habit: it is learned in her personal skill (inside the sandbox's agent homes)
    expect(p.skillTarget.path.startsWith(sb.root + path.sep)).toBe(true);

    const sk = typed(['skills', '--json'], ledgerline);
    expect(sk.status, sk.stderr).toBe(0);
    const skills = JSON.parse(sk.stdout) as { $schema: string; skills: Array<{ path: string; readBy: string[]; exists: boolean; tasks: { val: number; ids: string[] }; lastProposal: { id: string } | null; lastTrainedAt: string | null }> };
    expect(skills.$schema).toBe('skillopt-sleep/skills@1');
    const learned = skills.skills.find((s) => s.path === p.skillTarget.path)!;
    expect(learned).toBeDefined();
    expect(learned.exists).toBe(false);
    expect(learned.readBy.length).toBeGreaterThan(0);
    expect(learned.tasks.ids.length).toBeGreaterThan(0);
    expect(learned.lastProposal?.id).toBe(p.id);
    expect(learned.lastTrainedAt).toMatch(/Z$/);

    const show = typed(['proposals', 'show', p.id], ledgerline);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toContain('read by:');
    const apply = typed(['apply', p.id], ledgerline);
    expect(apply.status, apply.stderr).toBe(0);
    expect(fs.existsSync(p.skillTarget.path)).toBe(true);
    const st = typed(['status'], ledgerline);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stdout).toMatch(/proposals?/i);
  });

  it('later that week the same job comes back, and history follows it', () => {
    const h0 = typed(['history', '--json'], ledgerline);
    expect(h0.status, h0.stderr).toBe(0);
    const first = (JSON.parse(h0.stdout) as { entries: Array<{ proposalId: string; appliedAt: string; promised: { val: { before: number; after: number } }; jobs: Array<{ example: string; before: { asks: number }; after: { asks: number } }> }> }).entries;
    expect(first).toHaveLength(1);
    const e = first[0]!;
    expect(e.appliedAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(e.promised.val.after).toBeGreaterThan(e.promised.val.before);
    expect(e.jobs.length).toBeGreaterThan(0);
    expect(e.jobs.every((j) => j.before.asks > 0 && j.after.asks === 0)).toBe(true);

    // Thursday: Dana asks for the first job again, in a new Claude Code session, and corrects nothing
    const ask = e.jobs[0]!.example;
    const sid = '0f0f0f0f-1111-4222-8333-444444444444';
    const slug = ledgerline.replace(/[^a-zA-Z0-9]/g, '-');
    const file = path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects', slug, `${sid}.jsonl`);
    const at = (s: number) => new Date(Date.now() + s * 1000).toISOString();
    const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd: ledgerline, sessionId: sid, version: '2.1.276', gitBranch: 'main' };
    const recs = [
      { ...base, parentUuid: null, type: 'user', message: { role: 'user', content: ask }, uuid: 'u1', timestamp: at(1), promptSource: 'user' },
      { ...base, parentUuid: 'u1', type: 'assistant', message: { role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn' }, uuid: 'a1', timestamp: at(2) },
      { ...base, parentUuid: 'a1', type: 'user', message: { role: 'user', content: 'thanks, perfect' }, uuid: 'u2', timestamp: at(3), promptSource: 'user' },
    ];
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect(typed(['harvest'], ledgerline).status).toBe(0);
    expect(typed(['mine'], ledgerline).status).toBe(0);

    const h1 = typed(['history'], ledgerline);
    expect(h1.status, h1.stderr).toBe(0);
    expect(h1.stdout).toContain(e.proposalId);
    expect(h1.stdout).toMatch(/promised {2}validation/);
    expect(h1.stdout).toMatch(/since {5}1 ask since: /);
  });
});

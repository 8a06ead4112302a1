/**
 * What lands in a live skill file, and what the record says of it (issue 38), through the real CLI
 * on a `sim` night over the repository's transcript fixtures: a proposal is applied in part, reverted,
 * then applied whole. Each time the live file holds only front matter, headings with rules under
 * them and rules (the managed skill's title and its one-line intro), no line of a run report and no
 * cut text; and `history --json` names exactly the edits written, and `proposals list` says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { FIXTURE_PROJECT, fixtureHome, type FixtureAgent } from '../helpers/fixtures.js';
import { splitFrontMatter, isFrontMatterValid } from '../../src/skilldoc/document.js';

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
let project: string;

function copyFixtures(from: FixtureAgent, to: string): void {
  fs.cpSync(fixtureHome(from), to, { recursive: true });
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const text = fs.readFileSync(p, 'utf8');
        if (text.includes(FIXTURE_PROJECT)) fs.writeFileSync(p, text.split(FIXTURE_PROJECT).join(project));
      }
    }
  };
  walk(to);
}

const cli = (args: string[]) => runCli(args, env, { timeout: 120_000 });
function json<T = Record<string, unknown>>(args: string[]): T {
  const r = cli([...args, '--json']);
  expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

/**
 * The live file's shape: valid front matter; then the title, its intro, section headings each with
 * at least one rule under it, and rules. Returns what is wrong, line by line ([] = only rules).
 */
function notRules(text: string): string[] {
  const { front, body } = splitFrontMatter(text);
  const problems: string[] = [];
  if (!front || !isFrontMatterValid(front)) problems.push('front matter missing or broken');
  const lines = body.split('\n');
  let section: string | null = null;
  let rules = 0;
  const closeSection = () => {
    if (section !== null && rules === 0) problems.push(`empty section: ${section}`);
  };
  for (const line of lines) {
    if (!line.trim()) continue;
    if (/Epoch review|Still failing|Regressed:|skillopt:guidance|Notes from past nights/.test(line)) problems.push(`run report line: ${line}`);
    if (/\p{L}(\.{3,}|…)\W*$/u.test(line) || /more characters\]/.test(line)) problems.push(`cut text: ${line}`);
    if (/^#\s/.test(line)) continue; // the title
    if (/^(?:<!--\s*)?Learned by skillopt-sleep from your recurring tasks[.;]/.test(line)) continue; // the scaffold's intro
    if (/^#{2,6}\s+\S/.test(line)) {
      closeSection();
      section = line;
      rules = 0;
      continue;
    }
    if (/^[-*]\s+\S/.test(line) && !/^[-*]\s+no\s*,/i.test(line)) {
      rules++;
      continue;
    }
    problems.push(`not a rule: ${line}`);
  }
  closeSection();
  return problems;
}

interface Edit {
  id: string;
  status: string;
  content: string;
}
interface HistoryEntry {
  proposalId: string;
  status: string;
  edits: number;
  editsOf: number;
  editIds: string[];
  promised: { val: { before: number; after: number | null } };
}

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  env = { ...sb.env, PATH: path.dirname(process.execPath) };
  project = path.join(sb.root, 'tidemark');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  copyFixtures('claude-code', env.CLAUDE_CONFIG_DIR!);
  copyFixtures('codex', env.CODEX_HOME!);
  copyFixtures('copilot-cli', env.COPILOT_HOME!);
  for (const [k, v] of [['training.minValTasks', '1'], ['training.batchSize', '2']]) expect(cli(['config', 'set', k, v]).status).toBe(0);
});
afterAll(() => sb?.cleanup());

describe('a sim night, applied in part, reverted, applied whole', () => {
  it('the live file holds only rules, and history says edit for edit what was written', () => {
    const night = json<{ proposals: string[] }>(['night', '--backend', 'sim']);
    expect(night.proposals).toHaveLength(1);
    const id = night.proposals[0];
    const { proposal } = json<{ proposal: { candidate: string; edits: Edit[]; skillTarget: { path: string }; baselineScore: number; candidateScore: number; dir: string } }>(['proposals', 'show', id]);
    expect(notRules(proposal.candidate)).toEqual([]);
    const accepted = proposal.edits.filter((e) => e.status === 'accepted');
    expect(accepted.length).toBeGreaterThan(1);
    const live = proposal.skillTarget.path;
    const start = fs.readFileSync(path.join(proposal.dir, 'start.md'), 'utf8');
    const bulletsOf = (e: Edit) => e.content.split('\n').filter((l) => /^[-*]\s+\S/.test(l)).filter((l) => !start.includes(l));

    // 1. the first edit alone (the draft: its sections and the heading the others would fill)
    const first = accepted[0];
    const a = json<{ applied: { editIds: string[]; of: number; valAfter: number | null } }>(['apply', id, '--only', first.id]);
    expect(a.applied).toMatchObject({ editIds: [first.id], of: accepted.length });
    const partial = fs.readFileSync(live, 'utf8');
    expect(notRules(partial)).toEqual([]);
    for (const e of accepted.slice(1)) for (const b of bulletsOf(e)) expect(partial, `edit ${e.id} was not chosen`).not.toContain(b);
    // every rule of the chosen edit that staging kept is in the file
    for (const b of bulletsOf(first)) if (proposal.candidate.includes(b)) expect(partial).toContain(b);
    let history = json<{ entries: HistoryEntry[] }>(['history']).entries;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ proposalId: id, status: 'applied', edits: 1, editsOf: accepted.length, editIds: [first.id] });
    // the subset's own score (from the rollout cache, or null: never scored), never the whole proposal's
    expect(history[0].promised.val.after).toBe(a.applied.valAfter);
    const list = cli(['proposals', 'list']);
    expect(list.stdout).toContain(`1 of ${accepted.length} edits`);
    expect(cli(['history']).stdout).toContain(`1 of ${accepted.length} edits`);

    // 2. reverted: the file is gone again (it did not exist before)
    expect(cli(['revert', id]).status).toBe(0);
    expect(fs.existsSync(live)).toBe(false);

    // 3. the whole proposal
    const w = cli(['apply', id]);
    expect(w.status, w.stderr).toBe(0);
    const whole = fs.readFileSync(live, 'utf8');
    expect(whole).toBe(proposal.candidate);
    expect(notRules(whole)).toEqual([]);
    history = json<{ entries: HistoryEntry[] }>(['history']).entries;
    expect(history[0]).toMatchObject({ proposalId: id, status: 'applied', edits: accepted.length, editsOf: accepted.length, editIds: accepted.map((e) => e.id) });
    expect(history[0].promised.val).toEqual({ before: proposal.baselineScore, after: proposal.candidateScore });
    expect(cli(['proposals', 'list']).stdout).toMatch(new RegExp(`${id}.* ${accepted.length} edits`));
  });

  it('doctor --repair brings a zero-filled database back with the apply and the proposal, from the records on disk', () => {
    const before = json<{ proposals: Array<{ id: string; status: string; applied: unknown }> }>(['proposals', 'list']).proposals;
    expect(before.some((p) => p.status === 'applied')).toBe(true);
    const db = path.join(env.SKILLOPT_SLEEP_HOME!, 'state', 'sleep.db');
    fs.writeFileSync(db, Buffer.alloc(fs.statSync(db).size));
    for (const f of [`${db}-wal`, `${db}-shm`]) fs.rmSync(f, { force: true });
    // the damaged database is named, with the command that repairs it (never "move it away")
    const broken = cli(['doctor']);
    expect(broken.status).toBe(1);
    expect(broken.stdout + broken.stderr).toContain('doctor --repair');
    const r = cli(['doctor', '--repair', '--json']);
    const out = JSON.parse(r.stdout) as { repair: { database: string; movedAside: string[]; applies: number; proposals: number } };
    // no backup was taken (no daemon ran): rebuilt from the proposal folders alone
    expect(out.repair).toMatchObject({ database: 'recreated', applies: 2, proposals: before.length });
    expect(fs.existsSync(out.repair.movedAside[0])).toBe(true);
    const after = json<{ proposals: Array<{ id: string; status: string; applied: unknown }> }>(['proposals', 'list']).proposals;
    expect(after.map((p) => [p.id, p.status, p.applied])).toEqual(before.map((p) => [p.id, p.status, p.applied]));
  });

  it('the check above catches each thing the issue found in a live file', () => {
    const front = '---\nname: x\ndescription: y\n---\n\n# x\n\n';
    expect(notRules(`${front}## Rules for every job\n`)).toEqual(['empty section: ## Rules for every job']);
    expect(notRules(`${front}## A\n\n- Epoch review: 0 task(s) improved\n`)[0]).toMatch(/run report line/);
    expect(notRules(`${front}## A\n\n- add a unit test (negative numbers, thousa....\n`)[0]).toMatch(/cut text/);
    expect(notRules(`${front}## A\n\n- No, apply Keep a Changelog format\n`)).toContain('not a rule: - No, apply Keep a Changelog format');
    expect(notRules('# x\n\n## A\n\n- a rule\n')).toEqual(['front matter missing or broken']);
  });
});

/**
 * Crash safety of apply: a real `skillopt-sleep apply` child process is SIGKILLed at random
 * moments, many times. After each kill the live skill file must be exactly the old or the new
 * content (never partial), and after recovery the store must agree with the file and no temp
 * file may be left next to it. Then apply/revert/stale/escape/reject through the real CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { sha256 } from '../../src/core/fsutil.js';
import type { SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { recoverInterrupted } from '../../src/proposals/recover.js';
import { getProposal } from '../../src/store/repos/proposals.js';

let sb: Sandbox;
let db: Db;
let project: string;

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  project = path.join(sb.root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  db = openDb(resolvePaths({ env: sb.env }).database);
  markProjectSeen(db, project);
});
afterAll(() => {
  db?.close();
  sb?.cleanup();
});

const paths = () => resolvePaths({ env: sb.env });

function stage(name: string, base: string | null, candidate: string) {
  const target: SkillTarget = { agent: null, path: path.join(project, '.claude/skills', name, 'SKILL.md'), name, kind: 'skill', readBy: ['claude-code', 'copilot'], project };
  if (base !== null) {
    fs.mkdirSync(path.dirname(target.path), { recursive: true });
    fs.writeFileSync(target.path, base);
  }
  const p = stageProposal(db, paths(), {
    target,
    baseContent: base,
    candidate,
    runId: null,
    result: { accepted: true, baselineScore: 0.2, candidateScore: 0.9, edits: [{ id: 'e1', op: 'add', content: '- Keep each entry to one line.', rationale: 'r', evidence: [], status: 'accepted' }] },
  });
  return { p, target };
}

function killAfter(args: string[], ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { env: sb.env, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('apply under SIGKILL', () => {
  it('never leaves a partial skill file; recovery makes the store agree with the file', async () => {
    // prose, not rules: the staging guard's wording lint would fold 60,000 copies of one rule into one (and cut past its token budget)
    const big = (tag: string) => `---\nname: crash\ndescription: crash test\n---\n${`${tag}: a line of prose that makes the file large enough to take a while to write\n`.repeat(60_000)}`;
    const iterations = Number(process.env.CRASH_ITERATIONS ?? 16);
    const outcomes = { old: 0, new: 0 };
    const recovered = new Set<string>();
    // calibrate: how long does a whole apply take on this (possibly loaded) machine?
    const cal = stage('crash', big('cal-old'), big('cal-new'));
    const t0 = Date.now();
    expect(await killAfter(['apply', cal.p.id], 60_000)).toBe(0);
    const full = Date.now() - t0;
    let center = 0.85;
    fs.rmSync(path.dirname(cal.target.path), { recursive: true, force: true });
    for (let i = 0; i < iterations; i++) {
      const oldText = big(`old${i}`);
      const newText = big(`new${i}`);
      const { p, target } = stage('crash', oldText, newText);
      // spread kills over process start-up, the backup, the journal and the write itself
      // the kill point hovers around the moment the write lands (start-up time varies with load):
      // after a kill that left the old file aim later, after one that left the new file aim earlier
      const delay = Math.max(0, Math.floor(full * (center + (Math.random() - 0.5) * 0.5)));
      const code = await killAfter(['apply', p.id], delay);
      if (process.env.CRASH_DEBUG) console.error('iteration', i, 'kill after', delay, 'ms, exit', code);
      const live = fs.readFileSync(target.path, 'utf8');
      center = Math.min(1.5, Math.max(0.2, center + (live === newText ? -0.12 : 0.12)));
      expect([sha256(oldText), sha256(newText)]).toContain(sha256(live));
      const rec = recoverInterrupted(db, paths());
      for (const a of rec.actions) recovered.add(a.replace(/ (of|file) \S+/g, ''));
      const status = getProposal(db, p.id)!.status;
      if (live === newText) {
        outcomes.new++;
        expect(status).toBe('applied');
      } else {
        outcomes.old++;
        expect(['staged', 'stale']).toContain(status);
      }
      expect(fs.readdirSync(path.dirname(target.path))).toEqual(['SKILL.md']);
      expect(fs.existsSync(path.join(paths().backupsDir, p.id, 'journal.json'))).toBe(false);
      // next iteration starts from a fresh base
      fs.rmSync(path.dirname(target.path), { recursive: true, force: true });
    }
    if (process.env.CRASH_DEBUG) console.error(outcomes, [...recovered]);
    // the random delays must have produced both outcomes, or the test proved nothing
    expect(outcomes.old).toBeGreaterThan(0);
    expect(outcomes.new).toBeGreaterThan(0);
    // ~50 s alone on 2 cores; the suite runs files side by side (vitest.config.ts), so leave room
  }, 300_000);
});

describe('decisions through the CLI', () => {
  it('apply → live file changed with a backup; revert → restored', () => {
    // a real rule: the staging guard takes a line that is no rule ("- rule") out before the proposal is stored
    const { p, target } = stage('cli-apply', '# old\n', '# new\n- Keep each entry to one line.\n');
    const a = runCli(['apply', p.id, '--json'], sb.env);
    expect(a.status, a.stderr).toBe(0);
    const out = JSON.parse(a.stdout);
    expect(fs.readFileSync(target.path, 'utf8')).toBe('# new\n- Keep each entry to one line.\n');
    expect(fs.readFileSync(out.backup, 'utf8')).toBe('# old\n');
    expect(out.readBy).toEqual(['claude-code', 'copilot', 'cursor', 'opencode']);
    const list = JSON.parse(runCli(['proposals', 'list', '--json', '--status', 'applied'], sb.env).stdout);
    expect(list.proposals.map((x: { id: string }) => x.id)).toContain(p.id);
    const r = runCli(['revert', p.id], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/back to its previous content/);
    expect(fs.readFileSync(target.path, 'utf8')).toBe('# old\n');
  });

  it('refuses a stale base with a hint, --force overrides', () => {
    const { p, target } = stage('cli-stale', '# old\n', '# new\n');
    fs.writeFileSync(target.path, '# old, edited by hand\n');
    const a = runCli(['apply', p.id], sb.env);
    expect(a.status).toBe(1);
    expect(a.stderr).toMatch(/^error: .*changed since this proposal was trained/m);
    expect(a.stderr).toMatch(/^hint: .*--force/m);
    expect(fs.readFileSync(target.path, 'utf8')).toBe('# old, edited by hand\n');
    expect(runCli(['apply', p.id, '--force'], sb.env).status).toBe(0);
    expect(fs.readFileSync(target.path, 'utf8')).toBe('# new\n');
  });

  it('refuses a path that escapes the skill roots', () => {
    const outside = path.join(sb.root, 'outside');
    fs.mkdirSync(outside, { recursive: true });
    fs.mkdirSync(path.join(project, '.claude/skills'), { recursive: true });
    fs.symlinkSync(outside, path.join(project, '.claude/skills/escape'));
    const target: SkillTarget = { agent: null, path: path.join(project, '.claude/skills/escape/SKILL.md'), name: 'escape', kind: 'skill', readBy: [], project };
    // staging already refuses it (the target resolves outside the project); a crafted proposal
    // record that skips staging is refused by apply too (tests/unit/trust-boundaries.test.ts)
    expect(() => stageProposal(db, paths(), { target, baseContent: null, candidate: 'x', runId: null, result: { accepted: true, baselineScore: 0, candidateScore: 1 } })).toThrow(
      expect.objectContaining({ code: 'PATH_ESCAPE' }),
    );
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('reject is remembered and shown', () => {
    const { p } = stage('cli-reject', null, '# new\n');
    const r = runCli(['reject', p.id, '--reason', 'not my style'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/will not be proposed again/);
    const show = JSON.parse(runCli(['proposals', 'show', p.id, '--json'], sb.env).stdout);
    expect(show.proposal).toMatchObject({ status: 'rejected', reason: 'not my style' });
    expect(show.receipts.map((x: { action: string }) => x.action)).toEqual(['reject']);
    const rows = db.prepare("SELECT content, source FROM rejected_edits WHERE skill_key = ?").all(path.join(project, '.claude/skills/cli-reject/SKILL.md'));
    expect(rows).toEqual([{ content: '- Keep each entry to one line.', source: 'user' }]);
  });
});

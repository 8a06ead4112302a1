/**
 * Revert undoes everything apply did, folders included: the folders an apply created for a new
 * skill (and for its copy in another agent's folder) are recorded in its sealed apply record and
 * taken away again by revert, deepest first and only when empty; a folder that was there before
 * stays, and so does one the user has put something in since. An apply a crash stopped before it
 * wrote takes its new, empty folders away on recovery.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { hashTree } from '../helpers/user-repo.js';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { sha256 } from '../../src/core/fsutil.js';
import type { SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyProposal, revertProposal } from '../../src/proposals/apply.js';
import { appliedRecordPath, backupPathFor, writeJournal } from '../../src/proposals/journal.js';
import { recoverInterrupted } from '../../src/proposals/recover.js';
import { getProposal } from '../../src/store/repos/proposals.js';
import { managedSkillTarget, personalManagedSkillTarget } from '../../adapters/skills-registry.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function setup() {
  const root = makeTempDir('sos-dirs-');
  const env: NodeJS.ProcessEnv = { HOME: path.join(root, 'home'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'agents/claude'), CODEX_HOME: path.join(root, 'agents/codex') };
  const paths = resolvePaths({ env });
  const db = openDb(paths.database);
  const project = path.join(root, 'app');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  fs.mkdirSync(env.HOME!, { recursive: true });
  fs.writeFileSync(path.join(project, 'README.md'), '# app\n');
  markProjectSeen(db, project);
  cleanups.push(() => {
    db.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, env, paths, db, project };
}
type S = ReturnType<typeof setup>;

const result = { accepted: true, baselineScore: 0.2, candidateScore: 0.8 };
const doc = (name: string) => `---\nname: ${name}\ndescription: learned\n---\n# ${name}\n\n- Link the PR.\n`;
const stage = (s: S, target: SkillTarget) => stageProposal(s.db, s.paths, { target, baseContent: null, candidate: doc(target.name), runId: null, result, env: s.env });

describe('revert removes the folders apply created', () => {
  it('a new managed skill and its copy for Codex: apply makes .claude/… and .agents/…, revert leaves the project exactly as it was', () => {
    const s = setup();
    const target = managedSkillTarget({ project: s.project, env: s.env }, { agentsUsed: ['claude-code', 'codex'] });
    expect(target.mirrors?.length).toBe(1);
    const p = stage(s, target);
    const before = hashTree(s.project);
    applyProposal(s.db, s.paths, p.id, { env: s.env });
    for (const d of ['.claude', '.claude/skills', '.agents', '.agents/skills']) expect(fs.statSync(path.join(s.project, d)).isDirectory(), d).toBe(true);
    const out = revertProposal(s.db, s.paths, p.id, { env: s.env });
    expect(hashTree(s.project)).toEqual(before);
    expect(out.removedDirs).toEqual(expect.arrayContaining([path.join(s.project, '.claude'), path.join(s.project, '.agents'), path.join(s.project, '.claude/skills')]));
    expect(fs.existsSync(appliedRecordPath(s.paths, p.id))).toBe(false);
  });

  it('keeps a folder that was there before, and one the user put a file in since', () => {
    const s = setup();
    fs.mkdirSync(path.join(s.project, '.claude'));
    fs.writeFileSync(path.join(s.project, '.claude/settings.json'), '{}\n');
    const target = managedSkillTarget({ project: s.project, env: s.env }, { agentsUsed: ['claude-code'] });
    const p = stage(s, target);
    applyProposal(s.db, s.paths, p.id, { env: s.env });
    // the user adds a skill of their own beside ours
    const mine = path.join(s.project, '.claude/skills/mine/SKILL.md');
    fs.mkdirSync(path.dirname(mine), { recursive: true });
    fs.writeFileSync(mine, doc('mine'));
    const out = revertProposal(s.db, s.paths, p.id, { env: s.env });
    expect(out.removedDirs).toEqual([path.dirname(target.path)]);
    expect(fs.readFileSync(mine, 'utf8')).toBe(doc('mine'));
    expect(fs.readFileSync(path.join(s.project, '.claude/settings.json'), 'utf8')).toBe('{}\n');
    expect(fs.existsSync(path.dirname(target.path))).toBe(false);
  });

  it('a personal skill: the agent folders apply made in the home go again on revert', () => {
    const s = setup();
    const target = personalManagedSkillTarget({ env: s.env }, { agentsUsed: ['claude-code'] });
    const p = stage(s, target);
    const agents = path.join(s.root, 'agents');
    expect(fs.existsSync(agents)).toBe(false);
    applyProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.readFileSync(target.path, 'utf8')).toBe(doc(target.name));
    revertProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.existsSync(agents)).toBe(false);
  });

  it('a home folder that did not exist yet is made by apply but never recorded, so revert leaves it', () => {
    const s = setup();
    const home = path.join(s.root, 'newhome');
    const env = { ...s.env, HOME: home, CLAUDE_CONFIG_DIR: undefined };
    const target = personalManagedSkillTarget({ env }, { agentsUsed: ['claude-code'] });
    expect(target.path.startsWith(path.join(home, '.claude') + path.sep)).toBe(true);
    const p = stageProposal(s.db, s.paths, { target, baseContent: null, candidate: doc(target.name), runId: null, result, env });
    applyProposal(s.db, s.paths, p.id, { env });
    const out = revertProposal(s.db, s.paths, p.id, { env });
    expect(out.removedDirs).toContain(path.join(home, '.claude'));
    expect(out.removedDirs).not.toContain(home);
    expect(fs.readdirSync(home)).toEqual([]);
  });

  it('an apply a crash stopped before it wrote: recovery takes away the empty folders it had made', () => {
    const s = setup();
    const target = managedSkillTarget({ project: s.project, env: s.env }, { agentsUsed: ['claude-code'] });
    const p = stage(s, target);
    const before = hashTree(s.project);
    const planned = [path.join(s.project, '.claude'), path.join(s.project, '.claude/skills'), path.dirname(target.path)];
    for (const d of planned) fs.mkdirSync(d);
    const deadPid = 2 ** 22 + 777;
    writeJournal(s.paths, { v: 1, action: 'apply', proposalId: p.id, path: target.path, beforeHash: '', afterHash: sha256(p.candidate), backupPath: backupPathFor(s.paths, getProposal(s.db, p.id)!), pid: deadPid, startedAt: 1, createdDirs: planned });
    const r = recoverInterrupted(s.db, s.paths, s.env);
    expect(r.unresolved).toEqual([]);
    expect(r.actions.join('\n')).toMatch(/had not written .*removed the empty folders it had made/);
    expect(hashTree(s.project)).toEqual(before);
    expect(getProposal(s.db, p.id)?.status).toBe('staged');
  });
});

/**
 * Issue 38: `apply` to a skill folder it cannot write, through the built CLI. Each case ends in a
 * hint that names the folder, says what is wrong and what to do, exits non-zero, leaves the live
 * file as it was and the proposal `staged`, and leaves no journal behind (the next command must
 * not "recover" an apply that never wrote). Once the folder is fixed, apply applies normally.
 * - a regular file where the new skill's folder must be made (ENOTDIR): runs everywhere;
 * - an EACCES from the kernel on the skill folder: root passes any chmod, so a preload makes the
 *   file system refuse writes under that folder as it does for a folder another user owns;
 * - a copy for Codex whose folder is blocked by a file, after the live file was written: the live
 *   file is put back, so the apply is whole or not at all;
 * - revert into a folder it cannot write: the applied file stays, the proposal stays applied;
 * - a read-only bind mount of the skill folder (EROFS), where mounting is allowed (root).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { seedReview, type SeededSkill } from '../helpers/seed-review.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { journalPath } from '../../src/proposals/journal.js';
import { getProposal } from '../../src/store/repos/proposals.js';
import { managedSkillTarget } from '../../adapters/skills-registry.js';
import type { Proposal } from '../../src/core/records.js';
import { canMount, mount } from '../helpers/mounts.js';


let sb: Sandbox;
let project: string;
const mounts: string[] = [];
beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
});
beforeEach(() => {
  sb = makeSandbox();
  project = path.join(sb.root, 'app');
  fs.mkdirSync(project, { recursive: true });
});
afterEach(() => {
  for (const m of mounts.splice(0)) spawnSync('umount', [m]);
  sb.cleanup();
});

const paths = () => resolvePaths({ env: sb.env });

function proposalNow(id: string): Proposal {
  const db = openDb(paths().database);
  try {
    return getProposal(db, id)!;
  } finally {
    db.close();
  }
}

/** A staged proposal for a skill that does not exist yet: apply must make its folder. */
function stageNewSkill(agentsUsed: Array<'claude-code' | 'codex'> = ['claude-code']): Proposal {
  const db = openDb(paths().database);
  try {
    fs.mkdirSync(path.join(project, '.git'), { recursive: true });
    markProjectSeen(db, project);
    const target = managedSkillTarget({ project, env: sb.env }, { agentsUsed });
    const candidate = `---\nname: ${target.name}\ndescription: learned\n---\n# ${target.name}\n\n- Link the PR.\n`;
    return stageProposal(db, paths(), { target, baseContent: null, candidate, runId: null, result: { accepted: true, baselineScore: 0.2, candidateScore: 0.8 }, env: sb.env });
  } finally {
    db.close();
  }
}

/**
 * An env whose CLI gets EACCES for every file it creates inside `dir`: root passes every
 * permission check, so the refusal a non-owner gets from the kernel is made by a preload.
 */
function deniedEnv(dir: string): NodeJS.ProcessEnv {
  const preload = path.join(sb.root, 'eacces.cjs');
  fs.writeFileSync(
    preload,
    `const fs = require('node:fs');\nconst path = require('node:path');\nconst open = fs.openSync;\nfs.openSync = function (p, flags, ...rest) {\n  if (typeof p === 'string' && path.dirname(p) === ${JSON.stringify(dir)} && flags !== 'r' && flags !== undefined) {\n    throw Object.assign(new Error("EACCES: permission denied, open '" + p + "'"), { code: 'EACCES', errno: -13, syscall: 'open', path: p });\n  }\n  return open.call(this, p, flags, ...rest);\n};\n`,
  );
  return { ...sb.env, NODE_OPTIONS: `--require ${preload}` };
}

/** What every refused apply must leave: a hint to act on, the file as it was, the proposal staged, no journal. */
function expectRefusedCleanly(r: ReturnType<typeof runCli>, id: string, live: { file: string; before: string | undefined }, folder: string): void {
  expect(r.status, r.stderr).toBe(1);
  expect(r.stderr).toContain(folder);
  expect(r.stderr).toMatch(/^hint: nothing was changed: .* is still staged; .*then run `skillopt-sleep apply \S+` again$/m);
  expect(r.stderr).not.toMatch(/report it|recovered/);
  if (live.before === undefined) expect(fs.existsSync(live.file)).toBe(false);
  else expect(fs.readFileSync(live.file, 'utf8')).toBe(live.before);
  expect(proposalNow(id).status).toBe('staged');
  expect(fs.existsSync(journalPath(paths(), id))).toBe(false);
}

/** The apply after the fix: applied, and nothing "recovered" on the way. */
function expectAppliesNow(id: string, file: string): void {
  const r = runCli(['apply', id], sb.env);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout + r.stderr).not.toMatch(/recovered/);
  expect(r.stdout).toContain(`applied ${id}`);
  const p = proposalNow(id);
  expect(p.status).toBe('applied');
  expect(fs.readFileSync(file, 'utf8')).toBe(p.candidate);
}

describe('apply to a skill folder it cannot write', () => {
  it('a file where the new skill folder must be: names the file, changes nothing, applies once it is moved', () => {
    const p = stageNewSkill();
    const file = p.skillTarget.path;
    const skillDir = path.dirname(file);
    fs.mkdirSync(path.dirname(skillDir), { recursive: true });
    fs.writeFileSync(skillDir, 'notes the user keeps here\n');
    const r = runCli(['apply', p.id], sb.env);
    expectRefusedCleanly(r, p.id, { file, before: undefined }, skillDir);
    expect(r.stderr).toMatch(/is a file, but a folder must be there/);
    expect(r.stderr).toMatch(/rename or remove that file/);
    expect(fs.readFileSync(skillDir, 'utf8')).toBe('notes the user keeps here\n');
    // the user moves it aside: the next apply makes the folder and writes the skill
    fs.renameSync(skillDir, `${skillDir}.notes`);
    expectAppliesNow(p.id, file);
  });

  it('a skill folder the kernel refuses to write (EACCES): says which folder and how to fix it, then applies', () => {
    const [changelog] = seedReview(sb.env, project) as [SeededSkill];
    const skillDir = path.dirname(changelog.file);
    const denied = deniedEnv(skillDir);
    const r = runCli(['apply', changelog.proposal.id], denied);
    expectRefusedCleanly(r, changelog.proposal.id, { file: changelog.file, before: changelog.base }, skillDir);
    expect(r.stderr).toMatch(new RegExp(`the skill folder ${skillDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not writable by this user \\(EACCES\\)`));
    expect(r.stderr).toMatch(/fix its permissions or owner \(`ls -ld /);
    expect(fs.readdirSync(skillDir)).toEqual(['SKILL.md']); // no temp file left
    // a second refused try does not claim to recover anything either
    expect(runCli(['apply', changelog.proposal.id], denied).stderr).not.toMatch(/recovered/);
    expectAppliesNow(changelog.proposal.id, changelog.file);
  });

  it('revert into a skill folder it cannot write: names it, the applied file stays, no journal, then reverts', () => {
    const [changelog] = seedReview(sb.env, project) as [SeededSkill];
    const id = changelog.proposal.id;
    expect(runCli(['apply', id], sb.env).status).toBe(0);
    const applied = fs.readFileSync(changelog.file, 'utf8');
    const skillDir = path.dirname(changelog.file);
    const r = runCli(['revert', id], deniedEnv(skillDir));
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/is not writable by this user \(EACCES\)/);
    expect(r.stderr).toMatch(/^hint: nothing was changed: .* is still applied; .*then run `skillopt-sleep revert \S+` again$/m);
    expect(fs.readFileSync(changelog.file, 'utf8')).toBe(applied);
    expect(proposalNow(id).status).toBe('applied');
    expect(fs.existsSync(journalPath(paths(), id))).toBe(false);
    const ok = runCli(['revert', id], sb.env);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout + ok.stderr).not.toMatch(/recovered/);
    expect(fs.readFileSync(changelog.file, 'utf8')).toBe(changelog.base);
  });

  it('a copy for another agent that cannot be written: the live file is put back, nothing is half-applied', () => {
    const p = stageNewSkill(['claude-code', 'codex']);
    const file = p.skillTarget.path;
    const copy = p.skillTarget.mirrors?.[0]?.path;
    expect(copy).toBeTruthy();
    // the copy's folder tree (.agents) is a file the user keeps
    const agentsDir = path.join(project, '.agents');
    expect(path.relative(agentsDir, copy!).startsWith('..')).toBe(false);
    fs.writeFileSync(agentsDir, 'not a folder\n');
    const r = runCli(['apply', p.id], sb.env);
    expectRefusedCleanly(r, p.id, { file, before: undefined }, agentsDir);
    expect(r.stderr).toMatch(/and its copies are as they were/);
    // the folders made for the live file went again with it
    expect(fs.existsSync(path.join(project, '.claude'))).toBe(false);
    fs.rmSync(agentsDir);
    expectAppliesNow(p.id, file);
    expect(fs.readFileSync(copy!, 'utf8')).toBe(proposalNow(p.id).candidate);
  });

  it.skipIf(!canMount)('a skill folder on a read-only mount (EROFS): says to remount it, then applies once it is writable', () => {
    const [changelog] = seedReview(sb.env, project) as [SeededSkill];
    const skillDir = path.dirname(changelog.file);
    expect(mount(['--bind', skillDir, skillDir])).toBe(true);
    mounts.push(skillDir);
    expect(mount(['-o', 'remount,ro,bind', skillDir])).toBe(true);
    const r = runCli(['apply', changelog.proposal.id], sb.env);
    expectRefusedCleanly(r, changelog.proposal.id, { file: changelog.file, before: changelog.base }, skillDir);
    expect(r.stderr).toMatch(/read-only file system \(EROFS\)/);
    expect(r.stderr).toMatch(/remount it read-write/);
    // status (which recovers nothing) and the next apply after the remount
    expect(runCli(['status'], sb.env).stdout).not.toMatch(/recovered/);
    expect(mount(['-o', 'remount,rw,bind', skillDir])).toBe(true);
    expectAppliesNow(changelog.proposal.id, changelog.file);
  });
});

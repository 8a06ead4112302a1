import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { sha256 } from '../../src/core/fsutil.js';
import type { EditRecord, SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyProposal, contentForEdits, rejectProposal, revertProposal } from '../../src/proposals/apply.js';
import { journalPath, writeJournal } from '../../src/proposals/journal.js';
import { recoverInterrupted } from '../../src/proposals/recover.js';
import { getProposal, listReceipts } from '../../src/store/repos/proposals.js';
import { listRejectedEdits } from '../../src/store/repos/rejected-edits.js';
import { RejectedEditBuffer } from '../../src/trainer/optimizer/buffer.js';
import { managedSkillTarget, scaffoldSkill } from '../../adapters/skills-registry.js';
import { applyEdits } from '../../src/skilldoc/edits.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const root = makeTempDir('sos-apply-');
  const home = path.join(root, 'home');
  const project = path.join(root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  const env: NodeJS.ProcessEnv = { HOME: home, SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') };
  const paths = resolvePaths({ env });
  const db = openDb(paths.database);
  markProjectSeen(db, project);
  cleanups.push(() => {
    db.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, project, env, paths, db };
}

const rec = (id: string, content: string, status: EditRecord['status'] = 'accepted'): EditRecord => ({
  id,
  op: 'add',
  content,
  rationale: `because ${id}`,
  evidence: ['t1'],
  status,
});

function stageManaged(s: ReturnType<typeof setup>, base: string | null) {
  const target: SkillTarget = managedSkillTarget({ project: s.project, env: s.env }, { agentsUsed: ['claude-code'] });
  const start = base ?? scaffoldSkill(target.name, 'Learned rules for proj');
  const edits = [rec('e1', '- Use Keep a Changelog headings.'), rec('e2', '- Link the PR number.'), rec('e3', '- Always shout.', 'rejected')];
  const candidate = applyEdits(start, edits.filter((e) => e.status === 'accepted'), { scope: 'document' }).content;
  if (base !== null) {
    fs.mkdirSync(path.dirname(target.path), { recursive: true });
    fs.writeFileSync(target.path, base);
  }
  const p = stageProposal(s.db, s.paths, {
    target,
    baseContent: base,
    startContent: start,
    candidate,
    runId: 'r1',
    nightId: 'n1',
    result: { accepted: true, baselineScore: 0.4, candidateScore: 0.8, perTask: [{ taskId: 't1', split: 'val', before: 0.4, after: 0.8 }], edits },
    test: { before: 0.5, after: 0.75 },
    budget: { usd: 0, tokens: 1234, calls: 12 },
    backends: { target: { backend: 'sim', model: 'sim-1' } },
    evidence: [{ stage: 'gate', event: 'decision', accepted: true }],
  });
  return { target, p, candidate, start };
}

describe('staging', () => {
  it('writes every file of a proposal and a row', () => {
    const s = setup();
    const { p, candidate } = stageManaged(s, null);
    const files = fs.readdirSync(p.dir).sort();
    expect(files).toEqual(['SKILL.md', 'base.md', 'base.sha256', 'changes.diff', 'evidence.jsonl', 'report.json', 'report.md', 'start.md']);
    expect(fs.readFileSync(path.join(p.dir, 'SKILL.md'), 'utf8')).toBe(candidate);
    const report = JSON.parse(fs.readFileSync(path.join(p.dir, 'report.json'), 'utf8'));
    expect(report.gate).toMatchObject({ accepted: true, baselineScore: 0.4, candidateScore: 0.8 });
    expect(report.edits.accepted.map((e: EditRecord) => e.id)).toEqual(['e1', 'e2']);
    expect(report.edits.rejected.map((e: EditRecord) => e.id)).toEqual(['e3']);
    expect(report.test).toEqual({ before: 0.5, after: 0.75 });
    expect(fs.readFileSync(path.join(p.dir, 'changes.diff'), 'utf8')).toContain('+- Link the PR number.');
    expect(fs.readFileSync(path.join(p.dir, 'report.md'), 'utf8')).toMatch(/validation: 0\.40 → 0\.80/);
    expect(getProposal(s.db, p.id)?.status).toBe('staged');
    expect(getProposal(s.db, p.id.slice(0, 10))?.id).toBe(p.id); // prefix lookup
  });
});

describe('apply / revert', () => {
  it('apply writes the candidate, keeps a backup, records a receipt; revert restores', () => {
    const s = setup();
    const base = '---\nname: skillopt-sleep-learned\ndescription: old\n---\n# Rules\n';
    const { p, target, candidate } = stageManaged(s, base);
    const out = applyProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.readFileSync(target.path, 'utf8')).toBe(candidate);
    expect(fs.readFileSync(out.backupPath, 'utf8')).toBe(base);
    expect(out.readBy).toEqual(['claude-code', 'copilot', 'cursor', 'opencode']);
    expect(getProposal(s.db, p.id)?.status).toBe('applied');
    expect(listReceipts(s.db, p.id).map((r) => r.action)).toEqual(['apply']);
    expect(fs.existsSync(journalPath(s.paths, p.id))).toBe(false);
    expect(() => applyProposal(s.db, s.paths, p.id, { env: s.env })).toThrow(/already applied/);

    revertProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.readFileSync(target.path, 'utf8')).toBe(base);
    expect(getProposal(s.db, p.id)?.status).toBe('reverted');
  });

  it('a new skill file is created on apply and removed on revert', () => {
    const s = setup();
    const { p, target } = stageManaged(s, null);
    applyProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.existsSync(target.path)).toBe(true);
    const out = revertProposal(s.db, s.paths, p.id, { env: s.env });
    expect(out.restored).toBe('removed');
    expect(fs.existsSync(target.path)).toBe(false);
  });

  it('refuses a stale base unless forced, and marks the proposal stale', () => {
    const s = setup();
    const { p, target, candidate } = stageManaged(s, '# v1\n');
    fs.writeFileSync(target.path, '# v1 edited by hand\n');
    expect(() => applyProposal(s.db, s.paths, p.id, { env: s.env })).toThrow(/changed since this proposal was trained/);
    expect(getProposal(s.db, p.id)?.status).toBe('stale');
    expect(fs.readFileSync(target.path, 'utf8')).toBe('# v1 edited by hand\n');
    const out = applyProposal(s.db, s.paths, p.id, { env: s.env, force: true });
    expect(out.forced).toBe(true);
    expect(fs.readFileSync(target.path, 'utf8')).toBe(candidate);
    expect(fs.readFileSync(out.backupPath, 'utf8')).toBe('# v1 edited by hand\n');
  });

  it('revert refuses when the file was edited after apply', () => {
    const s = setup();
    const { p, target } = stageManaged(s, '# v1\n');
    applyProposal(s.db, s.paths, p.id, { env: s.env });
    fs.appendFileSync(target.path, 'my own line\n');
    expect(() => revertProposal(s.db, s.paths, p.id, { env: s.env })).toThrow(/edited after it was applied/);
    expect(fs.readFileSync(target.path, 'utf8')).toContain('my own line');
  });

  it('refuses to write outside the skill roots (PATH_ESCAPE), including via a symlinked skill folder', () => {
    const s = setup();
    const evilDir = path.join(s.root, 'outside');
    fs.mkdirSync(evilDir);
    fs.mkdirSync(path.join(s.project, '.claude/skills'), { recursive: true });
    fs.symlinkSync(evilDir, path.join(s.project, '.claude/skills/evil'));
    const target: SkillTarget = { agent: null, path: path.join(s.project, '.claude/skills/evil/SKILL.md'), name: 'evil', kind: 'skill', readBy: [], project: s.project };
    // refused already when staged (src/proposals/targets.ts resolves the symlink), so apply has nothing to write
    expect(() => stageProposal(s.db, s.paths, { target, baseContent: null, candidate: 'x', runId: null, result: { accepted: true, baselineScore: 0, candidateScore: 1 } })).toThrow(
      expect.objectContaining({ code: 'PATH_ESCAPE' }),
    );
    expect(fs.readdirSync(evilDir)).toEqual([]);
  });

  it('partial apply writes only the chosen edits', () => {
    const s = setup();
    const { p, target } = stageManaged(s, null);
    expect(contentForEdits(p, ['e2'])).not.toContain('Keep a Changelog');
    applyProposal(s.db, s.paths, p.id, { env: s.env, editIds: ['e2'] });
    const live = fs.readFileSync(target.path, 'utf8');
    expect(live).toContain('- Link the PR number.');
    expect(live).not.toContain('Keep a Changelog');
    expect(live).toMatch(/^---\nname: skillopt-sleep-learned\n/);
    expect(() => contentForEdits(p, ['e3'])).toThrow(/not accepted edits/);
  });
});

describe('reject and recovery', () => {
  it('reject remembers the edits as user-rejected', () => {
    const s = setup();
    const { p, target } = stageManaged(s, null);
    rejectProposal(s.db, s.paths, p.id, 'too shouty');
    expect(getProposal(s.db, p.id)).toMatchObject({ status: 'rejected', reason: 'too shouty' });
    const rows = listRejectedEdits(s.db, target.path).filter((r) => r.source === 'user');
    expect(rows.map((r) => r.content).sort()).toEqual(['- Link the PR number.', '- Use Keep a Changelog headings.']);
    // the trainer's buffer for this skill now blocks the same edit next night
    const buffer = new RejectedEditBuffer(s.db, target.path);
    expect(buffer.has({ op: 'add', content: '- Link the PR number.', rationale: '', evidence: [] })).toBe(true);
    expect(buffer.has({ op: 'add', content: '- Something new.', rationale: '', evidence: [] })).toBe(false);
    expect(() => applyProposal(s.db, s.paths, p.id, { env: s.env })).toThrow(/was rejected/);
  });

  it('recovers a journal whose write landed, and one whose write did not', () => {
    const s = setup();
    const a = stageManaged(s, '# base\n');
    // simulate: crash after the atomic rename, before the store was updated
    fs.writeFileSync(a.target.path, a.candidate);
    const deadPid = 2 ** 22 + 12345;
    writeJournal(s.paths, { v: 1, action: 'apply', proposalId: a.p.id, path: a.target.path, beforeHash: sha256('# base\n'), afterHash: sha256(a.candidate), backupPath: path.join(s.paths.backupsDir, a.p.id, 'SKILL.md'), pid: deadPid, startedAt: 1 });
    fs.writeFileSync(path.join(path.dirname(a.target.path), `.SKILL.md.${deadPid}.abcd1234.tmp`), 'partial');
    const r = recoverInterrupted(s.db, s.paths);
    expect(getProposal(s.db, a.p.id)?.status).toBe('applied');
    expect(r.actions.join('\n')).toMatch(/recorded it as applied/);
    expect(r.actions.join('\n')).toMatch(/removed the temp file/);
    expect(fs.readdirSync(path.dirname(a.target.path))).toEqual(['SKILL.md']);
    expect(fs.existsSync(journalPath(s.paths, a.p.id))).toBe(false);
  });

  it('removes half-staged and unrecorded proposal folders of dead processes, keeps recorded ones', () => {
    const s = setup();
    const { p } = stageManaged(s, null);
    const deadPid = 2 ** 22 + 54321;
    const half = path.join(s.paths.proposalsDir, `.p_half.${deadPid}.tmp`);
    fs.mkdirSync(half);
    fs.writeFileSync(path.join(half, 'SKILL.md'), 'partial');
    const orphan = path.join(s.paths.proposalsDir, 'p_orphan');
    fs.mkdirSync(orphan);
    const old = (Date.now() - 3600_000) / 1000;
    fs.utimesSync(orphan, old, old);
    const young = path.join(s.paths.proposalsDir, 'p_young');
    fs.mkdirSync(young);
    const r = recoverInterrupted(s.db, s.paths);
    expect(r.actions.join('\n')).toMatch(/half-staged proposal folder/);
    expect(r.actions.join('\n')).toMatch(/p_orphan, which was never recorded/);
    expect(fs.readdirSync(s.paths.proposalsDir).sort()).toEqual([p.id, 'p_young'].sort());
  });
});

describe('apply and a project that is gone', () => {
  it('refuses with a clear error and creates no folder tree', () => {
    const s = setup();
    const { p, target } = stageManaged(s, null);
    fs.rmSync(s.project, { recursive: true, force: true }); // the repo was moved or deleted
    expect(() => applyProposal(s.db, s.paths, p.id, { env: s.env })).toThrow(/is gone \(moved or deleted\); refusing to create it/);
    expect(fs.existsSync(s.project)).toBe(false);
    expect(fs.existsSync(target.path)).toBe(false);
    expect(getProposal(s.db, p.id)?.status).not.toBe('applied');
  });
});

/**
 * One live proposal per skill file: a newer night supersedes the proposal still waiting (never a
 * ban), and rejecting a superseded or stale duplicate never bans an edit the user applied.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import type { EditRecord, SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyProposal, rejectProposal } from '../../src/proposals/apply.js';
import { getProposal, listProposals } from '../../src/store/repos/proposals.js';
import { listRejectedEdits } from '../../src/store/repos/rejected-edits.js';
import { editHash } from '../../src/skilldoc/edit-key.js';
import { managedSkillTarget, scaffoldSkill } from '../../adapters/skills-registry.js';
import { applyEdits } from '../../src/skilldoc/edits.js';
import { markProjectSeen } from '../helpers/seen-project.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const root = makeTempDir('sos-supersede-');
  const project = path.join(root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  const env: NodeJS.ProcessEnv = { HOME: path.join(root, 'home'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') };
  const paths = resolvePaths({ env });
  const db = openDb(paths.database);
  markProjectSeen(db, project); // proposals only write inside projects the store has seen sessions in
  cleanups.push(() => {
    db.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const target: SkillTarget = managedSkillTarget({ project, env }, { agentsUsed: ['claude-code'] });
  return { env, paths, db, target };
}

const rec = (id: string, content: string): EditRecord => ({ id, op: 'add', content, rationale: `because ${id}`, evidence: ['t1'], status: 'accepted' });

function stage(s: ReturnType<typeof setup>, nightId: string, edits: EditRecord[], now: number) {
  const start = scaffoldSkill(s.target.name, 'Learned rules for proj');
  const candidate = applyEdits(start, edits, { scope: 'document' }).content;
  return stageProposal(s.db, s.paths, {
    target: s.target,
    baseContent: null,
    startContent: start,
    candidate,
    runId: `r-${nightId}`,
    nightId,
    result: { accepted: true, baselineScore: 0.4, candidateScore: 0.8, edits },
    now,
  });
}

describe('one live proposal per skill file', () => {
  it('a newer proposal for the same file supersedes the staged one, and bans nothing', () => {
    const s = setup();
    const older = stage(s, 'n1', [rec('e1', '- Link the PR number.')], 1000);
    const newer = stage(s, 'n2', [rec('e1', '- Link the PR number.'), rec('e2', '- Use Keep a Changelog headings.')], 2000);
    const o = getProposal(s.db, older.id)!;
    expect(o.status).toBe('superseded');
    expect(o.reason).toBe(`superseded by ${newer.id}`);
    expect(getProposal(s.db, newer.id)!.status).toBe('staged');
    expect(listProposals(s.db, { status: ['staged', 'stale'] }).map((p) => p.id)).toEqual([newer.id]);
    expect(listRejectedEdits(s.db, s.target.path)).toEqual([]);
    // the superseded one cannot be applied; the error names the newer proposal
    expect(() => applyProposal(s.db, s.paths, older.id, { env: s.env })).toThrow(/superseded/);
  });

  it('the same text re-staged (a night served from the cache) keeps the waiting proposal and stages nothing', () => {
    const s = setup();
    const waiting = stage(s, 'n1', [rec('e1', '- Link the PR number.')], 1000);
    const again = stage(s, 'n2', [rec('e1', '- Link the PR number.')], 2000);
    expect(again.id).toBe(waiting.id);
    expect(getProposal(s.db, waiting.id)!.status).toBe('staged');
    expect(listProposals(s.db).map((p) => p.id)).toEqual([waiting.id]);
    expect(fs.readdirSync(s.paths.proposalsDir)).toEqual([waiting.id]);
    // once decided, the same text is a new proposal again (a rejected one is never revived)
    rejectProposal(s.db, s.paths, waiting.id, 'no');
    const later = stage(s, 'n3', [rec('e1', '- Link the PR number.')], 3000);
    expect(later.id).not.toBe(waiting.id);
  });

  it('a proposal for another file is left alone', () => {
    const s = setup();
    const a = stage(s, 'n1', [rec('e1', '- Link the PR number.')], 1000);
    const otherTarget: SkillTarget = { ...s.target, path: path.join(path.dirname(s.target.path), '..', 'other', 'SKILL.md'), name: 'other' };
    stageProposal(s.db, s.paths, {
      target: otherTarget,
      baseContent: null,
      candidate: '# other\n',
      runId: 'r2',
      result: { accepted: true, baselineScore: 0, candidateScore: 1, edits: [] },
      now: 2000,
    });
    expect(getProposal(s.db, a.id)!.status).toBe('staged');
  });

  it('rejecting a superseded duplicate of an applied edit does not ban the applied edit', () => {
    const s = setup();
    const shared = rec('e1', '- Link the PR number.');
    const older = stage(s, 'n1', [shared, rec('e9', '- Always shout.')], 1000);
    const newer = stage(s, 'n2', [shared], 2000);
    applyProposal(s.db, s.paths, newer.id, { env: s.env });
    expect(getProposal(s.db, newer.id)!.status).toBe('applied');

    const out = rejectProposal(s.db, s.paths, older.id, 'duplicate');
    expect(out.status).toBe('rejected');
    expect(out.rememberedEdits).toBe(1);
    const banned = listRejectedEdits(s.db, s.target.path).map((r) => r.editHash);
    expect(banned).toEqual([editHash(rec('e9', '- Always shout.'))]);
    expect(banned).not.toContain(editHash(shared));
  });

  it('rejecting a stale proposal whose edit is applied elsewhere bans nothing of it', () => {
    const s = setup();
    const shared = rec('e1', '- Link the PR number.');
    const applied = stage(s, 'n1', [shared], 1000);
    applyProposal(s.db, s.paths, applied.id, { env: s.env });
    // a later night trained on the old (missing) base: applying it now finds the file changed
    const late = stage(s, 'n2', [shared], 2000);
    expect(() => applyProposal(s.db, s.paths, late.id, { env: s.env })).toThrow();
    expect(getProposal(s.db, late.id)!.status).toBe('stale');
    const out = rejectProposal(s.db, s.paths, late.id);
    expect(out.rememberedEdits).toBe(0);
    expect(listRejectedEdits(s.db, s.target.path)).toEqual([]);
  });

  it('rejecting a staged proposal still bans its edits', () => {
    const s = setup();
    const p = stage(s, 'n1', [rec('e1', '- Link the PR number.')], 1000);
    rejectProposal(s.db, s.paths, p.id);
    expect(listRejectedEdits(s.db, s.target.path).map((r) => r.editHash)).toEqual([editHash(rec('e1', '- Link the PR number.'))]);
  });
});

describe('forget', () => {
  it('un-bans a rejected edit by hash prefix, by PROPOSAL:EDIT and by a bare edit id', async () => {
    const { forgetRejectedEdit } = await import('../../src/proposals/forget.js');
    const s = setup();
    const a = rec('e1', '- Link the PR number.');
    const b = rec('e2', '- Always shout.');
    const c = rec('e3', '- Never push on Friday.');
    const p = stage(s, 'n1', [a, b, c], 1000);
    rejectProposal(s.db, s.paths, p.id, 'no');
    expect(listRejectedEdits(s.db, s.target.path)).toHaveLength(3);

    const byHash = forgetRejectedEdit(s.db, editHash(a).slice(0, 8));
    expect(byHash).toMatchObject({ editHash: editHash(a), skillPath: s.target.path, content: a.content, sources: ['user'] });
    const byQualified = forgetRejectedEdit(s.db, `${p.id}:e2`);
    expect(byQualified.editHash).toBe(editHash(b));
    forgetRejectedEdit(s.db, 'e3');
    expect(listRejectedEdits(s.db, s.target.path)).toEqual([]);
    // forgotten means gone: a second forget is a clear miss
    expect(() => forgetRejectedEdit(s.db, 'e3')).toThrow(/no rejected edit matches "e3"/);
  });

  it('a bare edit id that names edits of two rejected proposals is ambiguous and forgets nothing', async () => {
    const { forgetRejectedEdit } = await import('../../src/proposals/forget.js');
    const s = setup();
    const p1 = stage(s, 'n1', [rec('e1', '- One.')], 1000);
    rejectProposal(s.db, s.paths, p1.id);
    const p2 = stage(s, 'n2', [rec('e1', '- Two.')], 2000);
    rejectProposal(s.db, s.paths, p2.id);
    expect(() => forgetRejectedEdit(s.db, 'e1')).toThrow(/matches 2 rejected edits/);
    expect(listRejectedEdits(s.db, s.target.path)).toHaveLength(2);
  });
});

/**
 * Nothing the user decided is lost (issue 38): online backups, and `doctor --repair` rebuilding a
 * damaged or missing database from the newest good backup plus the proposal folders' records.
 * A backup is taken part-way (after the first apply), then more is decided; the database is then
 * truncated, zero-filled or deleted (and once with no backup at all). Each repair must bring back
 * every proposal with its status and what it wrote, every apply record, and every ban.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import type { EditRecord, SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyProposal, rejectProposal, revertProposal } from '../../src/proposals/apply.js';
import { forgetRejectedEdit } from '../../src/proposals/forget.js';
import { listProposals, listReceipts } from '../../src/store/repos/proposals.js';
import { listRejectedEdits } from '../../src/store/repos/rejected-edits.js';
import { managedSkillTarget, scaffoldSkill } from '../../adapters/skills-registry.js';
import { applyEdits } from '../../src/skilldoc/edits.js';
import { backupDatabase, dbBackupDir, isHealthyDatabase, listDbBackups, pruneDbBackups } from '../../src/store/backup.js';
import { repairDatabase } from '../../src/proposals/rebuild.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const rec = (id: string, content: string, status: EditRecord['status'] = 'accepted'): EditRecord => ({ id, op: 'add', content, rationale: `because ${id}`, evidence: ['t1'], status });

function world() {
  const root = makeTempDir('sos-repair-');
  const env: NodeJS.ProcessEnv = { HOME: path.join(root, 'home'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') };
  const paths = resolvePaths({ env });
  const projects = ['alpha', 'beta', 'gamma', 'delta', 'eps'].map((n) => path.join(root, n));
  const state = { db: openDb(paths.database) };
  for (const p of projects) {
    fs.mkdirSync(path.join(p, '.git'), { recursive: true });
    markProjectSeen(state.db, p);
  }
  cleanups.push(() => {
    try {
      state.db.close();
    } catch {
      /* already closed */
    }
    fs.rmSync(root, { recursive: true, force: true });
  });
  let clock = 1_000_000;
  const stage = (project: string, extra = '') => {
    const target: SkillTarget = managedSkillTarget({ project, env }, { agentsUsed: ['claude-code'] });
    const start = scaffoldSkill(target.name, `Learned rules for ${path.basename(project)}`);
    const edits = [rec('e1', `- Use Keep a Changelog headings in ${path.basename(project)}.`), rec('e2', `- Link the PR number of ${path.basename(project)}${extra}.`), rec('e3', '- Always shout.', 'rejected')];
    const candidate = applyEdits(start, edits.filter((e) => e.status === 'accepted'), { scope: 'document' }).content;
    return stageProposal(state.db, paths, {
      target,
      baseContent: null,
      startContent: start,
      candidate,
      runId: 'r1',
      nightId: 'n1',
      result: { accepted: true, baselineScore: 0.4, candidateScore: 0.8, perTask: [{ taskId: 't1', split: 'val', before: 0.4, after: 0.8 }], edits },
      test: { before: 0.5, after: 0.75 },
      now: (clock += 1000),
    });
  };
  return { root, env, paths, projects, state, stage, tick: () => (clock += 1000) };
}

/** Everything the user decided, as the database holds it. */
function decisions(db: Db) {
  const proposals = listProposals(db)
    .map((p) => ({ id: p.id, status: p.status, applied: p.applied ?? null, candidate: p.candidate }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const receipts = listReceipts(db)
    .map((r) => ({ proposalId: r.proposalId, action: r.action, ts: r.ts, afterHash: r.afterHash, backupPath: r.backupPath }))
    .sort((a, b) => a.ts - b.ts || a.action.localeCompare(b.action));
  const bans = listProposals(db)
    .flatMap((p) => listRejectedEdits(db, p.skillTarget.path).filter((r) => r.source === 'user'))
    .map((r) => `${r.skillKey}#${r.editHash}`);
  return { proposals, receipts, bans: [...new Set(bans)].sort() };
}

/** A week of decisions, with a backup taken after the first apply only. */
async function decideAWeek(w: ReturnType<typeof world>) {
  const [alpha, beta, gamma, delta, eps] = w.projects;
  const a = w.stage(alpha);
  applyProposal(w.state.db, w.paths, a.id, { env: w.env, now: w.tick() });
  await backupDatabase(w.state.db, dbBackupDir(w.paths.stateDir), 3);
  // everything below exists only in the proposal folders' records once the database is gone
  const b = w.stage(beta);
  applyProposal(w.state.db, w.paths, b.id, { env: w.env, now: w.tick(), editIds: ['e1'], promisedScore: 0.6 });
  const c = w.stage(gamma);
  rejectProposal(w.state.db, w.paths, c.id, 'not my style', { now: w.tick() });
  const c2 = w.stage(gamma); // the same edits again, rejected again: then one ban is forgotten
  rejectProposal(w.state.db, w.paths, c2.id, 'still no', { now: w.tick() });
  forgetRejectedEdit(w.state.db, `${c2.id}:e2`);
  const d = w.stage(delta);
  applyProposal(w.state.db, w.paths, d.id, { env: w.env, now: w.tick() });
  revertProposal(w.state.db, w.paths, d.id, { env: w.env, now: w.tick() });
  w.stage(eps);
  w.stage(eps); // the same text again: the one waiting stays, nothing superseded
  w.stage(eps, ' and the issue'); // a new text: supersedes the one waiting
  return { a, b, c };
}

const DAMAGE: Record<string, (file: string) => void> = {
  truncated: (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 3)),
  'zero-filled': (f) => fs.writeFileSync(f, Buffer.alloc(fs.statSync(f).size)),
  deleted: (f) => fs.rmSync(f),
};

describe('database backups', () => {
  it('an online backup is a whole database; only the newest N are kept', async () => {
    const w = world();
    w.stage(w.projects[0]);
    const dir = dbBackupDir(w.paths.stateDir);
    for (let i = 0; i < 4; i++) await backupDatabase(w.state.db, dir, 2, 1_000_000 + i);
    const kept = listDbBackups(dir);
    expect(kept).toHaveLength(2);
    expect(kept[0].file > kept[1].file).toBe(true); // newest first
    expect(isHealthyDatabase(kept[0].file)).toBe(true);
    const copy = openDb(kept[0].file, { readonly: true });
    try {
      expect(listProposals(copy)).toHaveLength(1);
    } finally {
      copy.close();
    }
    expect(pruneDbBackups(dir, 1)).toHaveLength(1);
    expect((fs.statSync(kept[0].file).mode & 0o777).toString(8)).toBe('600');
  });
});

describe('doctor --repair', () => {
  for (const [how, damage] of Object.entries(DAMAGE)) {
    it(`a ${how} database comes back with every proposal, apply and ban`, async () => {
      const w = world();
      const { a } = await decideAWeek(w);
      const before = decisions(w.state.db);
      expect(before.receipts.filter((r) => r.action === 'apply')).toHaveLength(3);
      // applied, partially applied, rejected twice, reverted, superseded, staged: every kind of record
      expect(before.proposals.map((p) => p.status).sort()).toEqual(['applied', 'applied', 'rejected', 'rejected', 'reverted', 'staged', 'superseded']);
      expect(before.proposals.find((p) => p.applied?.editIds.length === 1)?.applied).toEqual({ editIds: ['e1'], of: 2, valAfter: 0.6 });
      // two edits banned by the rejections, one of them forgotten since
      expect(before.bans).toHaveLength(1);
      w.state.db.close();
      damage(w.paths.database);
      expect(isHealthyDatabase(w.paths.database)).toBe(false);

      const out = repairDatabase(w.paths);
      expect(out.database).toBe('restored');
      expect(out.backup).toBe(listDbBackups(dbBackupDir(w.paths.stateDir))[0].file);
      if (how !== 'deleted') {
        expect(out.movedAside.length).toBeGreaterThan(0);
        expect(fs.existsSync(out.movedAside[0])).toBe(true); // kept, never deleted
      }
      w.state.db = openDb(w.paths.database);
      expect(decisions(w.state.db)).toEqual(before);
      expect(out).toMatchObject({ proposals: before.proposals.length, applies: 3, bans: before.bans.length });
      // the rebuilt record still drives the product: the first apply reverts from its receipt
      expect(revertProposal(w.state.db, w.paths, a.id, { env: w.env }).restored).toBe('removed');
    });
  }

  it('with no backup at all, a deleted database is rebuilt from the proposal folders alone', async () => {
    const w = world();
    await decideAWeek(w);
    const before = decisions(w.state.db);
    w.state.db.close();
    fs.rmSync(dbBackupDir(w.paths.stateDir), { recursive: true });
    fs.rmSync(w.paths.database);
    const out = repairDatabase(w.paths);
    expect(out.database).toBe('recreated');
    expect(out.proposalsAdded).toBe(before.proposals.length);
    w.state.db = openDb(w.paths.database);
    expect(decisions(w.state.db)).toEqual(before);
  });

  it('on a healthy database it changes nothing, however often it runs', async () => {
    const w = world();
    await decideAWeek(w);
    const before = decisions(w.state.db);
    w.state.db.close();
    for (let i = 0; i < 2; i++) {
      const out = repairDatabase(w.paths);
      expect(out).toMatchObject({ database: 'healthy', proposalsAdded: 0, decisionsReplayed: 0 });
    }
    w.state.db = openDb(w.paths.database);
    expect(decisions(w.state.db)).toEqual(before);
  });
});

/**
 * `history`: for an applied proposal, the same job's asks and corrections before and after the
 * apply, and the corrections that came back word for word after it (the rule did not take).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { makeTask } from '../helpers/tasks.js';
import { CliContext } from '../../src/cli/context.js';
import { buildHistory } from '../../src/cli/commands/history.js';
import { upsertTask } from '../../src/store/repos/tasks.js';
import { insertProposal, insertReceipt } from '../../src/store/repos/proposals.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const DAY = 86_400_000;
const APPLIED = Date.UTC(2026, 10, 10);

async function setup() {
  const home = makeTempDir('sos-history-');
  dirs.push(home);
  const ctx = new CliContext({ json: true }, { SKILLOPT_SLEEP_HOME: home, HOME: home });
  await ctx.loadStoreModules();
  const db = ctx.db;
  db.prepare("INSERT INTO clusters(id, centroid, size, session_count, created_at, updated_at) VALUES ('cl_changelog', '{}', 5, 5, 0, 0)").run();
  const member = db.prepare("INSERT INTO cluster_members(session_id, event_seq, cluster_id, project, agent, ts, similarity, prompt, outcome) VALUES (?, 1, 'cl_changelog', '/w/app', 'claude-code', ?, 1, ?, ?)");
  const outcome = (corrections: string[]) => JSON.stringify({ tools: [], toolErrors: 0, final: '', label: corrections.length ? 'corrected' : 'success', reactions: corrections.map((text) => ({ kind: 'correction', text })) });
  // before the apply: three asks, four corrections; after: two asks, one correction said before too
  member.run('s1', APPLIED - 3 * DAY, 'write the changelog entry for #12', outcome(['no, link the PR', 'use Keep a Changelog']));
  member.run('s2', APPLIED - 2 * DAY, 'changelog entry for #13', outcome(['No, link the PR!']));
  member.run('s3', APPLIED - 1 * DAY, 'changelog entry for #14', outcome(['keep it to one line']));
  member.run('s4', APPLIED + 1 * DAY, 'changelog entry for #15', outcome([]));
  member.run('s5', APPLIED + 2 * DAY, 'changelog entry for #16', outcome(['no, link the PR']));
  upsertTask(db, makeTask({ id: 't1', intent: 'write the changelog entry', judge: { checks: [], reference: { kind: 'rule' } }, split: 'val', family: 'cl_changelog', project: '/w/app' }));
  insertProposal(db, {
    id: 'p_changelog',
    runId: null,
    skillTarget: { agent: null, path: '/w/app/.claude/skills/skillopt-sleep-learned/SKILL.md', name: 'skillopt-sleep-learned', kind: 'managed', readBy: ['claude-code'], project: '/w/app' },
    baseHash: '',
    candidate: 'x',
    diff: '',
    baselineScore: 0.4,
    candidateScore: 0.85,
    testBefore: 0.5,
    testAfter: 0.8,
    perTask: [{ taskId: 't1', split: 'val', before: 0.4, after: 0.85 }],
    edits: [],
    status: 'applied',
    createdAt: APPLIED - DAY / 2,
    decidedAt: APPLIED,
    dir: path.join(home, 'p'),
  });
  insertReceipt(db, { proposalId: 'p_changelog', action: 'apply', ts: APPLIED, path: '/w/app/.claude/skills/skillopt-sleep-learned/SKILL.md', beforeHash: null, afterHash: 'h', backupPath: null, note: null });
  return ctx;
}

describe('history', () => {
  it('counts the job before and after the apply, and names the correction that came back', async () => {
    const ctx = await setup();
    const [e, ...rest] = buildHistory(ctx, {});
    expect(rest).toEqual([]);
    expect(e!.appliedAt).toBe(new Date(APPLIED).toISOString());
    expect(e!.promised).toEqual({ val: { before: 0.4, after: 0.85 }, test: { before: 0.5, after: 0.8 } });
    expect(e!.jobs).toHaveLength(1);
    const job = e!.jobs[0]!;
    expect(job.before).toEqual({ asks: 3, corrections: 4, perAsk: 1.33 });
    expect(job.after).toEqual({ asks: 2, corrections: 1, perAsk: 0.5, repeated: ['no, link the PR'] });
    expect(e!.verdict).toBe('2 asks since: fewer corrections (1.33 → 0.50 per ask); the same correction again: "no, link the PR"');
    ctx.close();
  });

  it('a revert closes the "after" period at the revert', async () => {
    const ctx = await setup();
    ctx.db.prepare("UPDATE proposals SET status = 'reverted' WHERE id = 'p_changelog'").run();
    insertReceipt(ctx.db, { proposalId: 'p_changelog', action: 'revert', ts: APPLIED + 1.5 * DAY, path: '/x', beforeHash: 'h', afterHash: null, backupPath: null, note: null });
    const [e] = buildHistory(ctx, {});
    expect(e!.status).toBe('reverted');
    expect(e!.revertedAt).toBe(new Date(APPLIED + 1.5 * DAY).toISOString());
    expect(e!.jobs[0]!.after).toMatchObject({ asks: 1, corrections: 0, repeated: [] });
    ctx.close();
  });
});

/**
 * Issue 41: `proposals show --json` carries each rule's outcome evidence (`proposal.ruleEvidence`),
 * documented in docs/json/proposals.md, and the text view prints it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { makeTask } from '../helpers/tasks.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { shapeProblems } from '../helpers/json-docs.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import type { KeptOutcome } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { upsertTask } from '../../src/store/repos/tasks.js';
import { managedSkillTarget, scaffoldSkill } from '../../adapters/skills-registry.js';

const boxes: Sandbox[] = [];
afterEach(() => boxes.splice(0).forEach((b) => b.cleanup()));

const NOV = Date.UTC(2026, 10, 10, 12);
const kept = (i: number): KeptOutcome => ({ kind: 'commit_message', agent: `Fix thing ${i}\n\nBody.`, kept: `fix(cli): fix thing ${i}\n\nBody.`, commit: `b2c3d4e5f60${i}`, at: NOV + i * 86_400_000, session: `s${i}` });

describe('proposals show: evidence per rule', () => {
  it('--json carries ruleEvidence in its documented shape; the text view prints it', () => {
    const box = makeSandbox();
    boxes.push(box);
    const project = path.join(box.root, 'proj');
    fs.mkdirSync(path.join(project, '.git'), { recursive: true });
    const paths = resolvePaths({ env: box.env });
    const db = openDb(paths.database);
    markProjectSeen(db, project);
    const judge = { checks: [], reference: { kind: 'rule' as const } };
    [0, 1].forEach((i) => upsertTask(db, makeTask({ id: `t${i}`, intent: 'write the commit message', judge, split: i ? 'val' : 'train', family: 'cl_c', kept: [kept(i)] }), { clusterId: 'cl_c' }));
    const target = managedSkillTarget({ project, env: box.env }, { agentsUsed: ['claude-code'] });
    const start = scaffoldSkill(target.name, 'Learned rules for proj');
    const p = stageProposal(db, paths, {
      target,
      baseContent: null,
      startContent: start,
      candidate: `${start.trimEnd()}\n\n- Start the subject with \`fix(<scope>):\`, e.g. \`fix(cli): handle empty input\`.\n`,
      runId: 'r1',
      result: { accepted: true, baselineScore: 0.2, candidateScore: 0.9, perTask: [{ taskId: 't1', split: 'val', before: 0.2, after: 0.9 }], edits: [] },
      now: NOV + 5 * 86_400_000,
    });
    db.close();
    const r = runCli(['proposals', 'show', p.id, '--json'], box.env);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { proposal: { ruleEvidence: Array<{ rule: string; evidence: Array<{ text: string; commits: string[] }> }> } };
    expect(shapeProblems(out, 'proposal')).toEqual([]);
    expect(out.proposal.ruleEvidence).toEqual([
      {
        rule: 'Start the subject with `fix(<scope>):`, e.g. `fix(cli): handle empty input`.',
        evidence: [{ text: 'you changed `Fix` to `fix(cli):` in 2 of 2 commits (b2c3d4e, Nov 11)', kind: 'prefix', literal: 'fix(<scope>):', changed: 2, of: 2, commits: ['b2c3d4e5f601', 'b2c3d4e5f600'] }],
      },
    ]);
    const text = runCli(['proposals', 'show', p.id], box.env);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('Rules and what you did:');
    expect(text.stdout).toContain('kept: you changed `Fix` to `fix(cli):` in 2 of 2 commits (b2c3d4e, Nov 11)');
  });
});

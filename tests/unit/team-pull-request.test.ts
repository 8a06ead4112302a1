/** The team proposal's pull-request body (src/team/pull-request.ts): scores beside the committed skill's, counts not names. */
import { describe, expect, it } from 'vitest';
import { renderPullRequest, type PullRequestInput } from '../../src/team/pull-request.js';

const INPUT: PullRequestInput = {
  skill: 'AGENTS.md',
  file: 'AGENTS.md',
  branch: 'skillopt/team-2026-12-05-agents-md',
  parent: '0123456789abcdef0123',
  scores: { val: { before: 0.64, after: 0.94 }, test: { before: 0.67, after: 0.93 }, audit: { before: null, after: null, tasks: 0 } },
  pool: { members: 3, sessions: 48, tasks: 48, splits: [{ split: 'train', tasks: 31, members: 3, sessions: 31 }, { split: 'val', tasks: 11, members: 3, sessions: 11 }, { split: 'test', tasks: 6, members: 2, sessions: 6 }] },
  personalJobsLeftOut: 2,
  rules: [{ line: '- keep it under 300 characters', members: 1, sessions: 8 }, { line: '- end it with `Signed-off-by: Name <email>`', members: 2, sessions: 16 }],
  steps: [{ step: 1, action: 'accept', valBefore: 0.64, valAfter: 0.94, reason: 'gain on val' }],
  diff: '--- a\n+++ b\n+- keep it under 300 characters\n',
};

describe('team pull-request body', () => {
  it('shows the scores beside the committed skill, the counts per split and per rule, the evidence and the diff', () => {
    const body = renderPullRequest(INPUT);
    expect(body).toContain('| validation | 0.64 | 0.94 |');
    expect(body).toContain('| test | 0.67 | 0.93 |');
    expect(body).toContain('| audit | – | – | 0 sealed tasks');
    expect(body).toContain('| test | 6 | 2 | 6 |');
    expect(body).toContain('- keep it under 300 characters — 1 member, 8 sessions');
    expect(body).toContain('- end it with `Signed-off-by: Name <email>` — 2 members, 16 sessions');
    expect(body).toContain('2 jobs seen from one member only were left out');
    expect(body).toContain('- step 1: accept, val 0.64 → 0.94 — gain on val');
    expect(body).toContain('```diff\n--- a\n+++ b\n+- keep it under 300 characters\n```');
    expect(body).toContain('One commit on `skillopt/team-2026-12-05-agents-md` on top of `0123456789ab`');
  });

  it('names members only when the caller passes them (the team config allows names)', () => {
    expect(renderPullRequest(INPUT)).not.toMatch(/member-/);
    const named = renderPullRequest({ ...INPUT, who: ['member-a', 'member-b'], rules: [{ ...INPUT.rules[0], who: ['member-a'] }] });
    expect(named).toContain('48 tasks (member-a, member-b)');
    expect(named).toContain('1 member, 8 sessions (member-a)');
  });
});

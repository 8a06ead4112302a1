/**
 * The pull-request body of a team proposal: what a reviewer on the team needs to merge or close it
 * without running anything — the skill and the branch, val / test / audit scores of the trained
 * skill beside the current (committed) skill's, who it was learned from as counts of members and
 * sessions (never names, unless the team config allows them), each added rule's own provenance,
 * the gate's step record (the diff's evidence) and the diff itself.
 */
export interface RuleProvenance {
  /** the added line of the skill */
  line: string;
  members: number;
  sessions: number;
  /** member ids, only when the team config allows names */
  who?: string[];
}

export interface PullRequestInput {
  skill: string;
  file: string;
  branch: string;
  parent: string;
  scores: {
    val: { before: number; after: number };
    test: { before: number | null; after: number | null };
    audit: { before: number | null; after: number | null; tasks: number };
  };
  pool: { members: number; sessions: number; tasks: number; splits: Array<{ split: string; tasks: number; members: number; sessions: number }> };
  /** jobs of a single member left out of the team skill (their habits stay personal) */
  personalJobsLeftOut: number;
  rules: RuleProvenance[];
  steps: Array<{ step: number; action: string; valBefore: number; valAfter: number | null; reason: string }>;
  diff: string;
  /** member ids behind the whole proposal, only when the team config allows names */
  who?: string[];
}

const f2 = (x: number | null) => (x === null ? '–' : x.toFixed(2));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function renderPullRequest(p: PullRequestInput): string {
  const lines: string[] = [];
  lines.push(`# skillopt-sleep team night: \`${p.file}\``, '');
  lines.push(
    `Trained on the team's pooled sessions: ${plural(p.pool.members, 'member')}, ${plural(p.pool.sessions, 'session')}, ${plural(p.pool.tasks, 'task')}` +
      `${p.who?.length ? ` (${p.who.join(', ')})` : ''}. One commit on \`${p.branch}\` on top of \`${p.parent.slice(0, 12)}\`; merging it is applying it.`,
    '',
  );
  lines.push('## Scores (the current skill → this branch)', '');
  lines.push('| split | current | proposed | what it is |', '|---|---|---|---|');
  lines.push(`| validation | ${f2(p.scores.val.before)} | ${f2(p.scores.val.after)} | the gate: held-out sessions, several members |`);
  lines.push(`| test | ${f2(p.scores.test.before)} | ${f2(p.scores.test.after)} | held out from training and the gate |`);
  lines.push(`| audit | ${f2(p.scores.audit.before)} | ${f2(p.scores.audit.after)} | ${plural(p.scores.audit.tasks, 'sealed task')} no decision looked at |`, '');
  lines.push('## Learned from', '');
  lines.push('| split | tasks | members | sessions |', '|---|---|---|---|');
  for (const s of p.pool.splits) lines.push(`| ${s.split} | ${s.tasks} | ${s.members} | ${s.sessions} |`);
  if (p.personalJobsLeftOut) lines.push('', `${plural(p.personalJobsLeftOut, 'job')} seen from one member only ${p.personalJobsLeftOut === 1 ? 'was' : 'were'} left out: one person's habit stays in their personal skill.`);
  lines.push('', '## Rules added, and who they come from', '');
  if (!p.rules.length) lines.push('_No line was added (the change removes or rewrites text)._');
  for (const r of p.rules) lines.push(`- ${r.line.trim().replace(/^(?:[-*+]|\d+\.)\s+/, "")} — ${plural(r.members, 'member')}, ${plural(r.sessions, 'session')}${r.who?.length ? ` (${r.who.join(', ')})` : ''}`);
  lines.push('', '## Evidence: the gate, step by step', '');
  if (!p.steps.length) lines.push('_The start draft (the team\'s corrections) won the gate on its own._');
  for (const s of p.steps) lines.push(`- step ${s.step}: ${s.action}, val ${f2(s.valBefore)} → ${f2(s.valAfter)}${s.reason ? ` — ${s.reason}` : ''}`);
  lines.push('', '## Diff', '', '```diff', p.diff.trimEnd(), '```', '');
  return lines.join('\n');
}

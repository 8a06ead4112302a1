/**
 * report.json / report.md of one proposal. Every string that came from a model or a transcript is
 * untrusted: escapes and control characters are stripped and Markdown-significant characters in
 * table cells are escaped, so a report cannot smuggle terminal sequences or break its own tables.
 */
import type { EditRecord, SkillTarget } from '../core/records.js';

export interface ProposalReport {
  schema: 'skillopt-sleep.proposal.v1';
  id: string;
  runId: string | null;
  nightId: string | null;
  createdAt: string;
  target: SkillTarget;
  baseHash: string;
  candidateHash: string;
  editScope: 'document' | 'learned';
  gate: { accepted: boolean; baselineScore: number; candidateScore: number; trials: unknown[] };
  test: { before: number; after: number } | null;
  perTask: Array<{ taskId: string; split: string; before: number; after: number }>;
  edits: { accepted: EditRecord[]; rejected: EditRecord[]; unmatched: EditRecord[] };
  budget: { usd: number; tokens: number; calls: number; limits?: Record<string, unknown> } | null;
  backends: Record<string, { backend: string; model: string }>;
  notes: string[];
  /** risk-lint flags on the lines the proposal adds (risk-lint.ts); applying needs --force-risky */
  risk?: Array<{ rule: string; line: string; why: string }>;
  /** what the staging guard took out of the candidate (staging-guard.ts); a partial apply keeps them out too */
  guard?: { removed: Array<{ line: string; why: string }> };
  /** the `--skill <path>` the user typed, when the target came from it */
  userSkillPath?: string;
}

/**
 * The held-out audit of a proposal showed no gain: its test score (tasks the gate never saw) did
 * not rise. Said first wherever the proposal is reviewed; autoApply never takes such a proposal.
 * Null when the test score rose, or when there were no test tasks to say either way.
 */
export function noGainBanner(test: { before: number | null | undefined; after: number | null | undefined }): string | null {
  const { before, after } = test;
  if (before === null || before === undefined || after === null || after === undefined) return null;
  if (after > before) return null;
  return `NO GAIN on held-out tasks: test ${fmtScore(before)} → ${fmtScore(after)}${after < before ? ' (worse)' : ''}; only validation, which training was tuned on, improved`;
}

/** One line of untrusted text, with ANSI/OSC escapes and control/format characters removed. */
export function sanitizeLine(text: string, max = 400): string {
  const s = text
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b./g, '')
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

export function cell(text: string, max = 120): string {
  return sanitizeLine(text, max).replace(/[|`<>&]/g, (c) => ({ '|': '\\|', '`': "'", '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c] ?? c);
}

export const fmtScore = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '—' : n.toFixed(2));

function editLines(title: string, edits: EditRecord[]): string[] {
  if (edits.length === 0) return [];
  const out = [`## ${title}`, ''];
  for (const e of edits) {
    const effect = e.effect !== undefined && e.effect !== null ? ` (effect on validation ${e.effect >= 0 ? '+' : ''}${e.effect.toFixed(2)})` : '';
    out.push(`- \`${e.id}\` **${e.op}**${e.anchor ? ` at "${cell(e.anchor, 80)}"` : ''}: ${cell(e.content, 300)}${effect}`);
    if (e.rationale) out.push(`  - why: ${cell(e.rationale, 300)}`);
    if (e.evidence.length) out.push(`  - evidence: ${e.evidence.slice(0, 8).map((x) => cell(x, 60)).join(', ')}`);
  }
  out.push('');
  return out;
}

export function renderProposalReport(r: ProposalReport): string {
  const lines: string[] = [];
  lines.push(`# Proposal ${r.id}: ${cell(r.target.name)}`, '');
  const banner = noGainBanner({ before: r.test?.before, after: r.test?.after });
  if (banner) lines.push(`**${banner}**`, '');
  lines.push(`- file: \`${r.target.path}\` (${r.target.kind})`);
  lines.push(`- read by: ${r.target.readBy.length ? r.target.readBy.join(', ') : 'no agent detected for this location'}`);
  if (r.target.project) lines.push(`- project: \`${r.target.project}\``);
  lines.push(`- base: ${r.baseHash ? `sha256 ${r.baseHash.slice(0, 12)}` : 'new file'}`);
  lines.push(`- validation: ${fmtScore(r.gate.baselineScore)} → ${fmtScore(r.gate.candidateScore)} (gate ${r.gate.accepted ? 'passed' : 'did not pass'})`);
  lines.push(`- test (held out, not seen by the gate): ${r.test ? `${fmtScore(r.test.before)} → ${fmtScore(r.test.after)}` : 'no test tasks'}`);
  if (r.budget) lines.push(`- spent: ${r.budget.calls} calls, ${r.budget.tokens} tokens, $${r.budget.usd.toFixed(4)}`);
  const be = Object.entries(r.backends);
  if (be.length) lines.push(`- backends: ${be.map(([role, b]) => `${role} ${b.backend}/${b.model}`).join(', ')}`);
  if (r.runId) lines.push(`- run: ${r.runId}${r.nightId ? ` (night ${r.nightId})` : ''}`);
  lines.push('');
  if (r.perTask.length) {
    lines.push('## Scores per task', '', '| Task | Split | Before | After | Change |', '|---|---|---|---|---|');
    for (const t of r.perTask) {
      const d = t.after - t.before;
      lines.push(`| ${cell(t.taskId, 40)} | ${t.split} | ${fmtScore(t.before)} | ${fmtScore(t.after)} | ${d > 0 ? 'improved' : d < 0 ? 'regressed' : 'unchanged'} |`);
    }
    lines.push('');
  }
  lines.push(...editLines('Accepted edits', r.edits.accepted));
  lines.push(...editLines('Rejected by the gate (kept as negative feedback)', r.edits.rejected));
  lines.push(...editLines('Proposed but matched nothing', r.edits.unmatched));
  if (r.notes.length) {
    lines.push('## Notes', '');
    for (const n of r.notes) lines.push(`- ${sanitizeLine(n)}`);
    lines.push('');
  }
  lines.push('## Decide', '');
  lines.push(`- apply: \`skillopt-sleep apply ${r.id}\` (only some edits: \`--only EDIT_ID,...\`)`);
  lines.push(`- reject: \`skillopt-sleep reject ${r.id} --reason "..."\` (its edits will not be proposed again)`);
  lines.push(`- review interactively: \`skillopt-sleep review\``, '');
  return lines.join('\n');
}

/**
 * The Report view as lines: the proposal's own facts (target, scores, base, risk-lint flags), then
 * what the night recorded (gate trials, budget and spend, backend and models), its notes, and
 * report.md — wrapped to the width (`width`), never cut.
 */
import type { Proposal } from '../core/records.js';
import { homeRelative, readersByFile, score, scoreChange } from './format.js';
import { sanitize } from './text.js';
import { seg, wrapStyled, type StyledLine } from './components/Line.js';
import type { ReportBundle, RiskFlag, StaleInfo } from './services.js';
import { theme } from './theme.js';

export function reportLines(p: Proposal, r: ReportBundle, stale: StaleInfo | null, width = Infinity, risk: RiskFlag[] = []): StyledLine[] {
  const lines: StyledLine[] = [];
  const fits = (l: StyledLine) => (Number.isFinite(width) ? wrapStyled(l, width) : [l]);
  const built = build(p, r, stale, risk);
  for (const l of built) lines.push(...fits(l));
  return lines;
}

function build(p: Proposal, r: ReportBundle, stale: StaleInfo | null, risk: RiskFlag[]): StyledLine[] {
  const lines: StyledLine[] = [];
  const fact = (label: string, value: string, color?: string) => lines.push([seg(`  ${label.padEnd(16)} `, { dim: true }), seg(value, { color })]);
  lines.push([seg('Proposal', { bold: true })]);
  fact('id', p.id);
  // each file this proposal writes and exactly who reads it (a managed skill may have copies)
  for (const f of readersByFile(p)) {
    fact(f.copy ? 'copy' : 'file', homeRelative(f.path));
    fact('  read by', f.readers);
  }
  fact('kind', p.skillTarget.kind);
  fact('validation', `${score(p.baselineScore)} → ${score(p.candidateScore)}`);
  fact('test', scoreChange(p.testBefore, p.testAfter));
  fact('created', new Date(p.createdAt).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');
  fact('base', p.baseHash ? p.baseHash.slice(0, 12) : '(new file)');
  if (stale?.stale) fact('live file', stale.missing ? 'missing now — it was deleted since the proposal' : `changed since the proposal (now ${stale.liveHash.slice(0, 12)})`, theme.stale);
  fact('status', p.status + (p.reason ? ` — ${sanitize(p.reason)}` : ''));
  if (risk.length > 0) {
    lines.push([]);
    lines.push([seg(`Risk lint: ${risk.length} flagged line${risk.length === 1 ? '' : 's'} (applying asks a second time)`, { bold: true, color: theme.bad })]);
    for (const f of risk) {
      lines.push([seg(`  ${f.rule}: `, { color: theme.bad }), seg(f.why)]);
      lines.push([seg('    "', { dim: true }), seg(sanitize(f.line), { color: theme.caution }), seg('"', { dim: true })]);
    }
  }
  if (r.facts.length > 0) {
    lines.push([]);
    lines.push([seg('Night', { bold: true })]);
    for (const f of r.facts) fact(f.label, sanitize(f.value));
  }
  if (r.notes.length > 0) {
    lines.push([]);
    lines.push([seg('Notes', { bold: true })]);
    for (const n of r.notes) lines.push([seg('  ! ', { color: theme.caution }), seg(sanitize(n))]);
  }
  if (r.markdown) {
    lines.push([]);
    lines.push([seg('report.md', { bold: true })]);
    for (const l of r.markdown.split('\n')) {
      const t = sanitize(l);
      lines.push(t.startsWith('#') ? [seg('  ' + t, { bold: true, color: theme.accent })] : [seg('  ' + t)]);
    }
  }
  if (r.facts.length === 0 && r.notes.length === 0 && !r.markdown) {
    lines.push([]);
    lines.push([seg('  (no night report was found for this proposal)', { dim: true })]);
  }
  return lines;
}

/**
 * The Evidence view as lines: for each accepted edit, whether it is included, what it does, why
 * (rationale), what it measurably changed (leave-one-out effect), and the tasks and transcript
 * excerpts that motivated it; then every validation/test task's score before and after; then the
 * edits the gate turned down. Pure: built from the proposal and an EvidenceBundle.
 *
 * Text is wrapped to the width, never cut. A folded edit shows the first rows of its text and
 * reason and its first pieces of evidence; Enter unfolds it (`expanded`): the edit's full text as
 * written (line by line), the whole reason, every correction and excerpt.
 */
import type { EditRecord, Proposal } from '../core/records.js';
import { score, signed, deltaTone, nightLabel } from './format.js';
import { oneLine, sanitize, truncate } from './text.js';
import { seg, wrapStyled, type StyledLine } from './components/Line.js';
import type { EvidenceBundle, Excerpt } from './services.js';
import { DELTA_COLOUR, signColour, theme } from './theme.js';

/** Rows a folded edit's text and reason may take before "… Enter shows all". */
const FOLDED_ROWS = 3;
const FOLDED_CORRECTIONS = 2;
const FOLDED_PROMPTS = 1;

export interface EvidenceLayout {
  lines: StyledLine[];
  /** line index where each accepted edit's block starts (same order as `acceptedEdits`) */
  editStarts: number[];
}

/** Wraps `line` at `width`; with `cap`, keeps that many rows and says what Enter would show. */
function wrapped(line: StyledLine, width: number, cap?: number): { rows: StyledLine[]; folded: boolean } {
  const rows = wrapStyled(line, width);
  if (cap === undefined || rows.length <= cap) return { rows, folded: false };
  const kept = rows.slice(0, cap);
  kept[cap - 1] = [...kept[cap - 1], seg(' …', { dim: true })];
  return { rows: kept, folded: true };
}

export function acceptedEdits(p: Proposal): EditRecord[] {
  return p.edits.filter((e) => e.status === 'accepted');
}

function opLabel(e: EditRecord): string {
  const anchor = e.anchor ? ` "${truncate(oneLine(e.anchor), 40)}"` : '';
  if (e.op === 'add') return e.anchor ? `add after${anchor}` : 'add at the end';
  if (e.op === 'delete') return `delete${anchor}`;
  return `replace${anchor}`;
}

function excerptLine(x: Excerpt, now: number): StyledLine {
  const when = x.ts ? nightLabel(x.ts, now) : '';
  const where = `${x.sessionId}${x.seq !== null ? `#${x.seq}` : ''}`;
  // the user's words first, the session reference after them
  return [seg('        › ', { dim: true }), seg(`"${oneLine(x.text)}"`, {}), seg(`  ${where}${when ? ` · ${when}` : ''}`, { dim: true })];
}

export function evidenceLines(
  p: Proposal,
  ev: EvidenceBundle,
  included: ReadonlySet<string>,
  cursor: number,
  width: number,
  now: number,
  expanded: ReadonlySet<string> = new Set(),
): EvidenceLayout {
  const lines: StyledLine[] = [];
  const editStarts: number[] = [];
  const accepted = acceptedEdits(p);
  const push = (line: StyledLine, cap?: number): boolean => {
    const w = wrapped(line, width, cap);
    lines.push(...w.rows);
    return w.folded;
  };
  push([seg(`Edits: ${included.size} of ${accepted.length} included`, { bold: true }), seg('   Space include/exclude · Enter expand · A all · R none · ↑/↓ select', { dim: true })]);
  if (accepted.length === 0) lines.push([seg('  (no accepted edits recorded for this proposal)', { dim: true })]);
  accepted.forEach((e, i) => {
    editStarts.push(lines.length);
    const on = included.has(e.id);
    const selected = i === cursor;
    const open = expanded.has(e.id);
    let folded = false;
    push([
      seg(selected ? '❯ ' : '  ', { color: theme.accent, bold: true }),
      seg(on ? '[x] ' : '[ ] ', { color: on ? theme.good : theme.bad, bold: true }),
      seg(`${i + 1}. ${opLabel(e)}`, { bold: selected }),
      seg('  effect on validation ', { dim: true }),
      seg(e.effect === null || e.effect === undefined ? 'not measured' : signed(e.effect), {
        color: signColour(e.effect),
      }),
    ]);
    const mark = e.op === 'delete' ? '-' : '+';
    const tone = { color: e.op === 'delete' ? theme.bad : theme.good };
    if (open) {
      // the text as it will be written, line by line
      for (const l of e.content.split('\n')) push([seg(`      ${mark} `, tone), seg(sanitize(l), tone)]);
      // the anchor in full (the heading cuts it): what is replaced or deleted, or what the text follows
      if (e.anchor) for (const l of e.anchor.split('\n')) push([seg(e.op === 'add' ? '      after ' : '      was ', { dim: true }), seg(sanitize(l), { color: e.op === 'add' ? undefined : theme.bad })]);
    } else {
      const content = oneLine(e.content);
      if (content) folded = push([seg('      ', {}), seg(`${mark} ${content}`, tone)], FOLDED_ROWS) || folded;
    }
    if (e.rationale) folded = push([seg('      why: ', { dim: true }), seg(oneLine(e.rationale))], open ? undefined : FOLDED_ROWS) || folded;
    const refs = open ? e.evidence : e.evidence.slice(0, 2);
    if (!open && e.evidence.length > refs.length) folded = true;
    for (const ref of refs) {
      const t = ev.tasks[ref];
      if (t) {
        const split = t.split ? ` (${t.split})` : '';
        push([seg('      task ', { dim: true }), seg(`"${oneLine(t.intent)}"`), seg(`${split} · asked ${t.occurrences}×`, { dim: true })]);
        const corrections = open ? t.corrections : t.corrections.slice(0, FOLDED_CORRECTIONS);
        const prompts = open ? t.prompts : t.prompts.slice(0, FOLDED_PROMPTS);
        if (corrections.length < t.corrections.length || prompts.length < t.prompts.length) folded = true;
        for (const c of corrections) push([seg('        correction › ', { color: theme.caution }), seg(`"${oneLine(c)}"`)]);
        for (const x of prompts) push(excerptLine(x, now));
        continue;
      }
      const x = ev.refs[ref];
      if (x) push(excerptLine(x, now));
      else push([seg('      evidence ', { dim: true }), seg(oneLine(ref), { dim: true })]);
    }
    if (folded) lines.push([seg('      … Enter shows all of this edit: its full text, reason and evidence', { dim: true })]);
    else if (open) lines.push([seg('      Enter folds it', { dim: true })]);
  });

  // what the user did that each rule stands on (issue 41): kept versions and procedures, with provenance
  const rules = p.ruleEvidence ?? [];
  if (rules.length > 0) {
    lines.push([]);
    lines.push([seg(`Rules and what you did (${rules.length})`, { bold: true })]);
    for (const r of rules) {
      push([seg('  rule ', { dim: true }), seg(`"${oneLine(r.rule)}"`)]);
      for (const item of r.evidence) push([seg('        kept › ', { color: theme.good }), seg(oneLine(item.text))]);
    }
  }

  lines.push([]);
  lines.push([seg('Tasks: score before → after', { bold: true })]);
  if (p.perTask.length === 0) lines.push([seg('  (no per-task scores recorded)', { dim: true })]);
  const order = { val: 0, test: 1, train: 2 } as const;
  const tasks = [...p.perTask].sort((a, b) => order[a.split] - order[b.split] || a.taskId.localeCompare(b.taskId));
  for (const t of tasks) {
    const tone = deltaTone(t.before, t.after);
    const intent = ev.tasks[t.taskId]?.intent ?? t.taskId;
    push([
      seg(`  ${t.split.padEnd(5)} `, { dim: true }),
      seg(`${score(t.before)} → ${score(t.after)} `, { color: DELTA_COLOUR[tone] }),
      seg(tone === 'up' ? '▲ ' : tone === 'down' ? '▼ ' : '= ', { color: DELTA_COLOUR[tone] }),
      seg(oneLine(intent)),
    ]);
  }

  const turnedDown = p.edits.filter((e) => e.status !== 'accepted');
  if (turnedDown.length > 0) {
    lines.push([]);
    lines.push([seg(`Turned down by the gate (${turnedDown.length}) — not part of this proposal`, { bold: true, dim: true })]);
    for (const e of turnedDown) {
      const drop = e.scoreDrop !== null && e.scoreDrop !== undefined ? ` (score ${signed(-Math.abs(e.scoreDrop))})` : '';
      push([seg(`  ${e.status.padEnd(9)} `, { color: theme.bad, dim: true }), seg(`${opLabel(e)}: ${oneLine(e.rationale || e.content)}${drop}`, { dim: true })]);
    }
  }
  return { lines, editStarts };
}

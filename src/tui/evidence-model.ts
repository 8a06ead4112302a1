/**
 * The Evidence view as lines: for each accepted edit, whether it is included, what it does, why
 * (rationale), what it measurably changed (leave-one-out effect), and the tasks and transcript
 * excerpts that motivated it; then every validation/test task's score before and after; then the
 * edits the gate turned down. Pure: built from the proposal and an EvidenceBundle.
 */
import type { EditRecord, Proposal } from '../core/records.js';
import { score, signed, deltaTone, nightLabel } from './format.js';
import { oneLine, truncate } from './text.js';
import { seg, type StyledLine } from './components/Line.js';
import type { EvidenceBundle, Excerpt } from './services.js';

export interface EvidenceLayout {
  lines: StyledLine[];
  /** line index where each accepted edit's block starts (same order as `acceptedEdits`) */
  editStarts: number[];
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

function excerptLine(x: Excerpt, now: number, width: number): StyledLine {
  const when = x.ts ? nightLabel(x.ts, now) : '';
  const where = `${x.sessionId}${x.seq !== null ? `#${x.seq}` : ''}`;
  return [
    seg('        › ', { dim: true }),
    // the user's words first: a narrow terminal cuts the session reference, not the quote
    seg(`"${truncate(oneLine(x.text), Math.max(20, width - 14))}"`, {}),
    seg(`  ${where}${when ? ` · ${when}` : ''}`, { dim: true }),
  ];
}

export function evidenceLines(p: Proposal, ev: EvidenceBundle, included: ReadonlySet<string>, cursor: number, width: number, now: number): EvidenceLayout {
  const lines: StyledLine[] = [];
  const editStarts: number[] = [];
  const accepted = acceptedEdits(p);
  lines.push([
    seg(`Edits: ${included.size} of ${accepted.length} included`, { bold: true }),
    seg('   Space include/exclude · A all · R none · ↑/↓ select', { dim: true }),
  ]);
  if (accepted.length === 0) lines.push([seg('  (no accepted edits recorded for this proposal)', { dim: true })]);
  accepted.forEach((e, i) => {
    editStarts.push(lines.length);
    const on = included.has(e.id);
    const selected = i === cursor;
    lines.push([
      seg(selected ? '❯ ' : '  ', { color: 'cyan', bold: true }),
      seg(on ? '[x] ' : '[ ] ', { color: on ? 'green' : 'red', bold: true }),
      seg(`${i + 1}. ${opLabel(e)}`, { bold: selected }),
      seg('  effect on validation ', { dim: true }),
      seg(e.effect === null || e.effect === undefined ? 'not measured' : signed(e.effect), {
        color: e.effect === null || e.effect === undefined ? undefined : e.effect > 0 ? 'green' : e.effect < 0 ? 'red' : undefined,
      }),
    ]);
    const content = oneLine(e.content);
    if (content) lines.push([seg('      ', {}), seg(`${e.op === 'delete' ? '-' : '+'} ${content}`, { color: e.op === 'delete' ? 'red' : 'green' })]);
    if (e.rationale) lines.push([seg('      why: ', { dim: true }), seg(oneLine(e.rationale))]);
    for (const ref of e.evidence) {
      const t = ev.tasks[ref];
      if (t) {
        const split = t.split ? ` (${t.split})` : '';
        lines.push([seg('      task ', { dim: true }), seg(`"${truncate(oneLine(t.intent), Math.max(20, width - 12))}"`), seg(`${split} · asked ${t.occurrences}×`, { dim: true })]);
        for (const c of t.corrections.slice(0, 3)) lines.push([seg('        correction › ', { color: 'yellow' }), seg(`"${truncate(oneLine(c), Math.max(20, width - 24))}"`)]);
        for (const x of t.prompts.slice(0, 2)) lines.push(excerptLine(x, now, width));
        continue;
      }
      const x = ev.refs[ref];
      if (x) lines.push(excerptLine(x, now, width));
      else lines.push([seg('      evidence ', { dim: true }), seg(oneLine(ref), { dim: true })]);
    }
  });

  lines.push([]);
  lines.push([seg('Tasks: score before → after', { bold: true })]);
  if (p.perTask.length === 0) lines.push([seg('  (no per-task scores recorded)', { dim: true })]);
  const order = { val: 0, test: 1, train: 2 } as const;
  const tasks = [...p.perTask].sort((a, b) => order[a.split] - order[b.split] || a.taskId.localeCompare(b.taskId));
  for (const t of tasks) {
    const tone = deltaTone(t.before, t.after);
    const intent = ev.tasks[t.taskId]?.intent ?? t.taskId;
    lines.push([
      seg(`  ${t.split.padEnd(5)} `, { dim: true }),
      seg(`${score(t.before)} → ${score(t.after)} `, { color: tone === 'up' ? 'green' : tone === 'down' ? 'red' : undefined }),
      seg(tone === 'up' ? '▲ ' : tone === 'down' ? '▼ ' : '= ', { color: tone === 'up' ? 'green' : tone === 'down' ? 'red' : undefined }),
      seg(oneLine(intent)),
    ]);
  }

  const turnedDown = p.edits.filter((e) => e.status !== 'accepted');
  if (turnedDown.length > 0) {
    lines.push([]);
    lines.push([seg(`Turned down by the gate (${turnedDown.length}) — not part of this proposal`, { bold: true, dim: true })]);
    for (const e of turnedDown) {
      const drop = e.scoreDrop !== null && e.scoreDrop !== undefined ? ` (score ${signed(-Math.abs(e.scoreDrop))})` : '';
      lines.push([seg(`  ${e.status.padEnd(9)} `, { color: 'red', dim: true }), seg(`${opLabel(e)}: ${oneLine(e.rationale || e.content)}${drop}`, { dim: true })]);
    }
  }
  return { lines, editStarts };
}

/**
 * Applies add / delete / replace edits to a skill document, within the allowed scope. Every edit
 * gets a result: applied, or unmatched with the reason (never silently dropped). Fixes over the
 * upstream applier: anchors match exactly first, then whitespace- and case-insensitively; an anchor
 * that only exists inside a protected block is reported as `protected`; an anchor consumed by an
 * earlier edit of the same batch is reported as `conflict`; a delete removes whole lines cleanly;
 * an add whose content is already in the document is a `duplicate`; an add whose anchor is missing
 * is appended and says so (`note`).
 */
import { isFrontMatterValid } from './document.js';
import type { Edit } from '../core/records.js';
import { ensureLearnedRegion, normalizeText, parseSkill, renderSkill, escapeRe, stripMarkers, type EditScope, type Segment } from './segments.js';

export type UnmatchedReason =
  | 'empty_content'
  | 'missing_anchor'
  | 'anchor_not_found'
  | 'protected'
  | 'conflict'
  | 'duplicate'
  | 'no_change'
  | 'invalid_front_matter'
  | 'unknown_op';

export interface EditApplyResult {
  index: number;
  edit: Edit;
  status: 'applied' | 'unmatched';
  reason?: UnmatchedReason;
  note?: string;
}

export interface ApplyOptions {
  scope: EditScope;
  /** front matter may be edited (full-document training of a user's skill) */
  allowFrontMatter?: boolean;
}

interface Match {
  start: number;
  end: number;
  ambiguous: boolean;
}

/** First occurrence of `anchor`: exact, then flexible whitespace, then also case-insensitive. */
export function findAnchor(text: string, anchor: string): Match | null {
  const a = anchor.trim();
  if (!a) return null;
  const i = text.indexOf(a);
  if (i >= 0) return { start: i, end: i + a.length, ambiguous: text.indexOf(a, i + 1) >= 0 };
  const pattern = a.split(/\s+/).map(escapeRe).join('\\s+');
  for (const flags of ['g', 'gi']) {
    const re = new RegExp(pattern, flags);
    const m = re.exec(text);
    if (m) return { start: m.index, end: m.index + m[0].length, ambiguous: re.exec(text) !== null };
  }
  return null;
}

function editableIndices(segs: Segment[], opts: ApplyOptions): number[] {
  const out: number[] = [];
  segs.forEach((s, i) => {
    if (s.kind === 'front' && opts.allowFrontMatter && opts.scope === 'document') out.push(i);
    if (s.kind === 'text' && (opts.scope === 'document' || s.learned)) out.push(i);
  });
  return out;
}

/** The segment an anchorless add appends to. */
function appendIndex(segs: Segment[], opts: ApplyOptions): { segs: Segment[]; index: number } {
  if (opts.scope === 'learned') {
    const withRegion = ensureLearnedRegion(segs);
    const idx = withRegion.map((s, i) => (s.kind === 'text' && s.learned ? i : -1)).filter((i) => i >= 0);
    return { segs: withRegion, index: idx[idx.length - 1] };
  }
  const firstGuidance = segs.findIndex((s) => s.kind === 'guidance');
  const limit = firstGuidance < 0 ? segs.length : firstGuidance;
  for (let i = limit - 1; i >= 0; i--) if (segs[i].kind === 'text' && !segs[i].learned) return { segs, index: i };
  const out = segs.slice();
  const at = segs[0]?.kind === 'front' ? Math.max(1, limit) : limit;
  out.splice(at, 0, { kind: 'text', text: '' });
  return { segs: out, index: at };
}

const isBullet = (line: string) => /^\s*(?:[-*+]|\d+[.)])\s/.test(line);

function appendTo(text: string, content: string, keepBlankAfter: boolean): string {
  const trimmed = text.replace(/\s+$/, '');
  if (!trimmed) return content + '\n';
  const lastLine = trimmed.slice(trimmed.lastIndexOf('\n') + 1);
  const sep = isBullet(lastLine) && isBullet(content.split('\n')[0]) ? '\n' : '\n\n';
  // a blank line that separated this text from a following block stays
  const trailing = keepBlankAfter && /\n\n$/.test(text) ? '\n' : '';
  return trimmed + sep + content + '\n' + trailing;
}

/** Joins the text around a removed phrase without leaving doubled or trailing spaces. */
function joinAround(left: string, right: string): string {
  if (right === '' || right.startsWith('\n')) return left.replace(/[ \t]+$/, '') + right;
  if (/[ \t]$/.test(left) && /^[ \t]/.test(right)) return left + right.replace(/^[ \t]+/, '');
  return left + right;
}

function lineBounds(text: string, m: Match): { lineStart: number; lineEnd: number } {
  const lineStart = text.lastIndexOf('\n', m.start - 1) + 1;
  const nl = text.indexOf('\n', m.end);
  return { lineStart, lineEnd: nl < 0 ? text.length : nl };
}


function locate(segs: Segment[], anchor: string, opts: ApplyOptions): { index: number; match: Match } | null {
  for (const i of editableIndices(segs, opts)) {
    const match = findAnchor(segs[i].text, anchor);
    if (match) return { index: i, match };
  }
  return null;
}

function applyOne(segs: Segment[], edit: Edit, opts: ApplyOptions, original: string): { segs: Segment[]; reason?: UnmatchedReason; note?: string } {
  const content = stripMarkers(edit.content ?? '').trim();
  const anchor = stripMarkers(edit.anchor ?? '').trim();
  const notFound = (): { segs: Segment[]; reason: UnmatchedReason } => {
    if (findAnchor(renderSkill(segs), anchor)) return { segs, reason: 'protected' };
    if (findAnchor(original, anchor)) return { segs, reason: 'conflict' };
    return { segs, reason: 'anchor_not_found' };
  };

  if (edit.op === 'add') {
    if (!content) return { segs, reason: 'empty_content' };
    if (normalizeText(renderSkill(segs)).includes(normalizeText(content))) return { segs, reason: 'duplicate' };
    if (anchor) {
      const hit = locate(segs, anchor, opts);
      if (hit) {
        const seg = segs[hit.index];
        const { lineEnd } = lineBounds(seg.text, hit.match);
        const head = seg.text.slice(0, lineEnd);
        const tail = seg.text.slice(lineEnd); // starts with '\n' or is ''
        const out = segs.slice();
        // a rule added under a heading goes first in that section's list, not before its blank line
        const underHeading = /^\s*#{1,6}\s/.test(head.slice(head.lastIndexOf('\n') + 1)) && /^\n\n\s*[-*+]\s/.test(tail) && isBullet(content.split('\n')[0]);
        out[hit.index] = { ...seg, text: underHeading ? `${head}\n\n${content}${tail.slice(1)}` : `${head}\n${content}${tail === '' ? '\n' : tail}` };
        return { segs: out, note: hit.match.ambiguous ? 'anchor occurs more than once; inserted after the first' : undefined };
      }
    }
    const { segs: out0, index } = appendIndex(segs, opts);
    const out = out0.slice();
    out[index] = { ...out[index], text: appendTo(out[index].text, content, !out[index].learned) };
    return { segs: out, note: anchor ? 'anchor not found in the editable text; appended instead' : undefined };
  }

  if (edit.op === 'replace' || edit.op === 'delete') {
    const target = anchor || (edit.op === 'delete' ? content : '');
    if (!target) return { segs, reason: 'missing_anchor' };
    const hit = locate(segs, target, opts);
    if (!hit) return notFound();
    const seg = segs[hit.index];
    let text: string;
    if (edit.op === 'replace' && content) {
      text = seg.text.slice(0, hit.match.start) + content + seg.text.slice(hit.match.end);
    } else {
      // delete (or replace with nothing): drop whole lines when the match covers them
      const { lineStart, lineEnd } = lineBounds(seg.text, hit.match);
      // the whole line goes when nothing but a list marker would be left of it
      const wholeLines = /^\s*(?:(?:[-*+]|\d+[.)])\s*)?$/.test(seg.text.slice(lineStart, hit.match.start)) && seg.text.slice(hit.match.end, lineEnd).trim() === '';
      text = wholeLines
        ? seg.text.slice(0, lineStart) + seg.text.slice(Math.min(seg.text.length, lineEnd + 1))
        : joinAround(seg.text.slice(0, hit.match.start), seg.text.slice(hit.match.end));
      text = text.replace(/\n{3,}/g, '\n\n');
    }
    if (text === seg.text) return { segs, reason: 'no_change' };
    if (seg.kind === 'front' && !isFrontMatterValid(text)) return { segs, reason: 'invalid_front_matter' };
    const out = segs.slice();
    out[hit.index] = { ...seg, text };
    return { segs: out, note: hit.match.ambiguous ? 'anchor occurs more than once; changed the first' : undefined };
  }
  return { segs, reason: 'unknown_op' };
}

/** Applies `edits` in order; later edits see earlier ones. */
export function applyEdits(content: string, edits: Edit[], opts: ApplyOptions): { content: string; results: EditApplyResult[] } {
  let segs = parseSkill(content);
  const results: EditApplyResult[] = [];
  edits.forEach((edit, index) => {
    const r = applyOne(segs, edit, opts, content);
    if (r.reason) {
      results.push({ index, edit, status: 'unmatched', reason: r.reason });
    } else {
      segs = r.segs;
      results.push({ index, edit, status: 'applied', ...(r.note ? { note: r.note } : {}) });
    }
  });
  return { content: renderSkill(segs), results };
}

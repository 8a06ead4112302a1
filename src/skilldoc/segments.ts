/**
 * The skill document model. A skill is Markdown with optional YAML front matter. We never parse it
 * into a tree; we cut it into segments so that edits can only ever see the text they may change:
 *
 * - `front`: the YAML front matter, byte-for-byte (editable only in full-document mode);
 * - `text`: ordinary Markdown (`learned: true` when inside the learned region);
 * - `marker`: a learned-region marker line (never editable);
 * - `guidance`: a whole protected guidance block, markers included (never editable by step edits;
 *   only the epoch slow update rewrites its inside through `setGuidance`).
 *
 * Joining the segments gives back the document exactly, so untouched parts stay byte-identical,
 * and an anchor can never span a marker because no editable segment contains one.
 */
import { GUIDANCE_END, GUIDANCE_START, LEARNED_END, LEARNED_START, parseFrontMatter, splitFrontMatter } from './document.js';

export { GUIDANCE_END, GUIDANCE_START, LEARNED_END, LEARNED_START, splitFrontMatter } from './document.js';
/** The heading written when a learned region is created in a hand-written skill. */
export const LEARNED_HEADING = '## Learned rules';

const MARKER_RE = /<!--\s*skillopt:(?:learned|guidance):(?:start|end)\s*-->/gi;
/** Upstream's markers too: content must not smuggle any protected-region marker into the skill. */
const FOREIGN_MARKER_RE = /<!--\s*(?:SLOW_UPDATE|APPENDIX)_(?:START|END)\s*-->|<!--\s*SKILLOPT-SLEEP:LEARNED (?:START|END)\s*-->/gi;

export type SegmentKind = 'front' | 'text' | 'marker' | 'guidance';
export interface Segment {
  kind: SegmentKind;
  text: string;
  learned?: boolean;
}

/** Where edits may land: only the learned region (hand-written skills), or the whole document. */
export type EditScope = 'learned' | 'document';

export function stripMarkers(text: string): string {
  return text.replace(MARKER_RE, '').replace(FOREIGN_MARKER_RE, '');
}

export function parseSkill(text: string): Segment[] {
  const { front, body } = splitFrontMatter(text);
  const segs: Segment[] = [];
  if (front) segs.push({ kind: 'front', text: front });
  let pos = 0;
  let inLearned = false;
  const pushText = (s: string) => {
    if (s) segs.push(inLearned ? { kind: 'text', text: s, learned: true } : { kind: 'text', text: s });
  };
  while (pos < body.length) {
    const re = new RegExp(MARKER_RE.source, 'gi');
    re.lastIndex = pos;
    const m = re.exec(body);
    if (!m) break;
    pushText(body.slice(pos, m.index));
    const marker = m[0].toLowerCase().replace(/\s+/g, '');
    let end = m.index + m[0].length;
    if (marker.includes('guidance:start')) {
      const close = body.toLowerCase().indexOf(GUIDANCE_END, end);
      // an unterminated guidance block protects everything after it
      end = close < 0 ? body.length : close + GUIDANCE_END.length;
      if (body[end] === '\n') end++;
      segs.push({ kind: 'guidance', text: body.slice(m.index, end) });
    } else {
      if (body[end] === '\n') end++;
      segs.push({ kind: 'marker', text: body.slice(m.index, end) });
      if (marker.includes('learned:start')) inLearned = true;
      else if (marker.includes('learned:end')) inLearned = false;
    }
    pos = end;
  }
  pushText(body.slice(pos));
  return segs;
}

export function renderSkill(segs: Segment[]): string {
  return segs.map((s) => s.text).join('');
}

export function hasLearnedRegion(segs: Segment[]): boolean {
  return segs.some((s) => s.kind === 'marker' && s.text.toLowerCase().includes('learned:start'));
}

/** The learned region's inner text ('' when there is none). */
export function learnedText(content: string): string {
  return parseSkill(content)
    .filter((s) => s.kind === 'text' && s.learned)
    .map((s) => s.text)
    .join('');
}

/**
 * Makes sure a learned region exists (empty content after the heading), placed at the end of the
 * document but before any guidance block. Returns segments; the input text is unchanged if present.
 */
export function ensureLearnedRegion(segs: Segment[]): Segment[] {
  if (hasLearnedRegion(segs)) {
    // an empty region (start immediately followed by end) still needs a text segment to edit
    const out: Segment[] = [];
    for (let i = 0; i < segs.length; i++) {
      out.push(segs[i]);
      const s = segs[i];
      if (s.kind === 'marker' && s.text.toLowerCase().includes('learned:start') && !(segs[i + 1]?.kind === 'text' && segs[i + 1]?.learned)) {
        out.push({ kind: 'text', text: '', learned: true });
      }
    }
    return out;
  }
  const out = segs.map((s) => ({ ...s }));
  let at = out.findIndex((s) => s.kind === 'guidance');
  if (at < 0) at = out.length;
  const before = renderSkill(out.slice(0, at));
  const sep = before === '' ? '' : before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  const block: Segment[] = [
    ...(sep ? [{ kind: 'text' as const, text: sep }] : []),
    { kind: 'marker', text: LEARNED_START + '\n' },
    { kind: 'text', text: `${LEARNED_HEADING}\n\n`, learned: true },
    { kind: 'marker', text: LEARNED_END + '\n' },
  ];
  out.splice(at, 0, ...block);
  return out;
}

// ---- guidance block (slow update) ----------------------------------------------------------------

/** The guidance block opens with this heading when the skill's description names its jobs. */
export const GUIDANCE_HEADING = '## Notes from past nights';

/**
 * "## Notes from past nights (writing a commit message or release notes)": the block's notes are
 * about this skill's jobs, and a reader must not take them for rules of every reply (a project
 * skill is read beside the personal one on every job of that project). The jobs are the
 * description's "Use when …" words; no description, no heading.
 */
export function guidanceHeading(content: string): string | null {
  const description = parseFrontMatter(content).description?.replace(/\s+/g, ' ').trim();
  if (!description) return null;
  const jobs = description.replace(/^use (?:it |this skill )?(?:when|for)\s+/i, '').replace(/[.\s]+$/, '');
  return jobs ? `${GUIDANCE_HEADING} (${jobs})` : null;
}

export function getGuidance(content: string): string {
  const g = parseSkill(content).find((s) => s.kind === 'guidance');
  if (!g) return '';
  const inner = g.text.replace(new RegExp(`^${escapeRe(GUIDANCE_START)}`, 'i'), '').replace(new RegExp(`${escapeRe(GUIDANCE_END)}\\s*$`, 'i'), '');
  // the heading is the block's frame, not a note
  return inner.trim().replace(new RegExp(`^${escapeRe(GUIDANCE_HEADING)}\\b.*(?:\\r?\\n|$)`), '').trim();
}

/**
 * Writes the guidance block's inside. The block stays where it is (upstream moved it to the end
 * on every write); a first block goes at the end of the document. Empty guidance removes the block.
 */
export function setGuidance(content: string, guidance: string): string {
  const clean = stripMarkers(guidance).trim().replace(new RegExp(`^${escapeRe(GUIDANCE_HEADING)}\\b.*(?:\\r?\\n|$)`), '').trim();
  const segs = parseSkill(content);
  const heading = guidanceHeading(content);
  const block = clean ? `${GUIDANCE_START}\n${heading ? `${heading}\n\n` : ''}${clean}\n${GUIDANCE_END}\n` : '';
  const idx = segs.findIndex((s) => s.kind === 'guidance');
  if (idx >= 0) {
    const out = segs.filter((s, i) => s.kind !== 'guidance' || i === idx);
    out[out.indexOf(segs[idx])] = { kind: 'guidance', text: block };
    return renderSkill(out).replace(/\n{3,}$/, '\n');
  }
  if (!block) return content;
  const base = content === '' ? '' : content.endsWith('\n\n') ? content : content.endsWith('\n') ? content + '\n' : content + '\n\n';
  return base + block;
}

export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Lowercase, whitespace collapsed: how duplicates are recognised. */
export function normalizeText(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

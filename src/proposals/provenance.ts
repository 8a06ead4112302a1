/**
 * Provenance of an edit's new text. Transcripts carry text the user never wrote (tool output,
 * fetched pages, file contents); an instruction planted there can reach a candidate skill through
 * mining or an injected optimizer. An edit's evidence must include the user's own words (the task
 * intents and corrections behind it) or a judge's finding (its rubric and checks), never tool
 * output alone: so every distinctive piece of an added line (a code span, a URL, a path, a run of
 * words) that stored tool output contains and none of those trusted sources does is flagged, like
 * a risk-lint finding (staged with a visible warning, applied only with `--force-risky`).
 */
import type { Db } from '../store/db.js';
import type { Edit, Task } from '../core/records.js';
import { getTask } from '../store/repos/tasks.js';
import { toolOutputHolding } from '../store/repos/events.js';
import { lintEdit, type RiskFlag } from './risk-lint.js';

export interface ProvenanceSources {
  /** the user's words and the judges' findings behind the edits */
  trusted: string[];
  /** which of `needles` some stored tool output holds (case-insensitive), in one pass over it */
  inToolOutput: (needles: string[]) => Set<string>;
}

/**
 * Bounds, so a huge candidate costs little: the pieces looked up per proposal (the optimizer's
 * edits are a few lines; a first skill's scaffold a few more) and the base size below which a
 * piece already in the base document is recognised by a substring search.
 */
const MAX_PIECES = 200;
const BASE_SEARCH_LIMIT = 200_000;
const WORDS_PER_WINDOW = 6;

/** The distinctive pieces of one added line: code spans, URLs, paths, and runs of words. */
export function distinctivePieces(line: string): string[] {
  const out = new Set<string>();
  for (const m of line.matchAll(/`([^`\n]{4,200})`/g)) out.add(m[1].trim());
  for (const m of line.matchAll(/\bhttps?:\/\/[^\s`"'<>)]+/g)) out.add(m[0].replace(/[.,;:]+$/, ''));
  for (const m of line.matchAll(/(?:^|\s)((?:~\/|\/)[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)+)/g)) out.add(m[1]);
  const words = line
    .replace(/`[^`]*`/g, ' ')
    .replace(/^\s*(?:[-*+]|\d+\.)\s+/, '')
    .split(/\s+/)
    .filter((w) => /[A-Za-z]/.test(w));
  for (let i = 0; i + WORDS_PER_WINDOW <= words.length; i += WORDS_PER_WINDOW - 1) out.add(words.slice(i, i + WORDS_PER_WINDOW).join(' '));
  return [...out].filter((p) => p.length >= 4);
}

/** Flags for added lines whose distinctive pieces only tool output carries. */
export function provenanceFlags(base: string, candidate: string, src: ProvenanceSources): RiskFlag[] {
  const before = new Set(base.split('\n').map((l) => l.trim()));
  const trusted = src.trusted.join('\n').toLowerCase();
  const baseLower = base.length <= BASE_SEARCH_LIMIT ? base.toLowerCase() : '';
  // the novel pieces of each distinct added line: not in the base document, not in the user's words or a judge's
  const novel = new Map<string, string[]>();
  let budget = MAX_PIECES;
  for (const raw of candidate.split('\n')) {
    const line = raw.trim();
    if (!line || before.has(line) || novel.has(line)) continue;
    const pieces = distinctivePieces(line).filter((piece) => {
      const p = piece.toLowerCase();
      return !baseLower.includes(p) && !trusted.includes(p);
    });
    if (!pieces.length) continue;
    novel.set(line, pieces.slice(0, budget));
    budget -= Math.min(budget, pieces.length);
    if (budget === 0) break;
  }
  if (!novel.size) return [];
  const found = src.inToolOutput([...new Set([...novel.values()].flat())]);
  const flags: RiskFlag[] = [];
  for (const [line, pieces] of novel) {
    const piece = pieces.find((p) => found.has(p));
    if (piece) flags.push({ rule: 'tool-output-only', line: line.slice(0, 200), why: `repeats tool output the user never wrote ("${piece.slice(0, 80)}"); no correction, ask or judge behind it` });
  }
  return flags;
}

/** The user's words and the judges' findings of a task (never its mined context: that may be file contents). */
export function trustedTextOf(task: Task): string[] {
  const out = [task.intent, ...task.corrections];
  for (const c of task.judge.checks) for (const v of [c.value, c.needle, c.description]) if (typeof v === 'string') out.push(v);
  const ref = task.judge.reference;
  if (ref.kind === 'rubric') out.push(ref.rubric);
  else if (ref.kind === 'outcome') out.push(ref.description);
  else if (ref.kind === 'exact') out.push(ref.answer);
  return out;
}

/** Provenance sources from the store: the evidence tasks of the edits, and the stored tool output. */
export function storeProvenance(db: Db, edits: readonly Pick<Edit, 'evidence'>[]): ProvenanceSources {
  const ids = [...new Set(edits.flatMap((e) => e.evidence ?? []))];
  const trusted = ids.flatMap((id) => {
    const t = getTask(db, id);
    return t ? trustedTextOf(t) : [];
  });
  return { trusted, inToolOutput: (needles) => toolOutputHolding(db, needles) };
}

/** Every risk finding of a proposed change: the lint's shapes and the provenance of its new text. */
export function assessRisk(db: Db, base: string, candidate: string, edits: readonly Pick<Edit, 'evidence'>[]): RiskFlag[] {
  return [...lintEdit(base, candidate), ...provenanceFlags(base, candidate, storeProvenance(db, edits))];
}

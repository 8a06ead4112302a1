/**
 * The user's silent corrections (issue 41): the properties where the version the user kept differs
 * from the one the agent first wrote, consistently across occurrences of a job. Only properties a
 * rule can state and a check can verify (the shared vocabulary of 41-design.md): a prefix pattern
 * with the instance's own values generalised (`fix(<scope>):`), a trailer line (`Refs:`), a
 * subheading (`### Fixed`), a required or forbidden code literal in a file (`it.each`, `jest.fn`),
 * a forbidden literal (emoji, a removed line's head), a length bound, a lower-case subject. Never
 * byte equality with the kept text.
 *
 * A property counts when ≥ MIN_AGREEING occurrences changed it the same way and none changed it
 * the other way (the user added a trailer twice and never removed one).
 */
import type { KeptOutcome } from '../../core/records.js';

/** Occurrences that must agree before a difference is taken for a preference. Assumption: one edit is an accident, two the same way a habit. */
export const MIN_AGREEING = 2;

export type PropertyKind = 'prefix' | 'lower_subject' | 'trailer' | 'heading' | 'include' | 'forbid' | 'max_chars' | 'min_chars';

export interface PropertyExample {
  /** the agent's piece and the kept piece (a subject line, a trailer, a heading, a length) */
  agent: string;
  kept: string;
  commit: string;
  at: number;
  file?: string;
}

export interface KeptProperty {
  kind: PropertyKind;
  /** what the artifact is: a commit message, or a file's path */
  artifact: string;
  /** the literal a rule names: `fix(<scope>):`, `Refs:`, `### Fixed`, `emoji`, `500` */
  literal: string;
  /** occurrences that changed it this way, and occurrences of the artifact compared */
  changed: number;
  of: number;
  examples: PropertyExample[];
}

interface Diff {
  kind: PropertyKind;
  literal: string;
  agent: string;
  kept: string;
  /** the opposite direction (the agent had it, the kept version does not) */
  reverse?: boolean;
  /** a deleted line named by its head: it may carry the instance's values, so it must hold in most occurrences */
  lineHead?: boolean;
}

const lines = (s: string) => s.split('\n').map((l) => l.trimEnd());
const subjectOf = (s: string) => lines(s.trim())[0]?.trim() ?? '';

/** `fix(cli): …` → `fix(<scope>):`; `feat: …` → `feat:`; `[PROJ-12] …` → `[PROJ-<n>]`; else null. */
export function prefixShape(subject: string): string | null {
  const cc = /^([a-z][a-z-]*)(\([^)\s]+\))?(!)?:\s/i.exec(subject);
  if (cc) return `${cc[1]}${cc[2] ? '(<scope>)' : ''}${cc[3] ?? ''}:`;
  const key = /^\[([A-Z][A-Z0-9]+)-\d+\]/.exec(subject);
  if (key) return `[${key[1]}-<n>]`;
  return null;
}

/** The subject's text past its prefix. */
function subjectBody(subject: string): string {
  return subject.replace(/^(?:[a-z][a-z-]*(?:\([^)\s]+\))?!?:\s*|\[[^\]]+\]\s*)/i, '');
}

/** `Key: value` lines of the last paragraph (git trailers). */
function trailers(text: string): Map<string, string> {
  const paras = text.trim().split(/\n\s*\n/);
  const out = new Map<string, string>();
  if (paras.length < 2) return out;
  for (const l of lines(paras[paras.length - 1])) {
    const m = /^([A-Za-z][\w-]*): \S/.exec(l.trim());
    if (m) out.set(`${m[1]}:`, l.trim());
  }
  return out;
}

const headingsOf = (text: string) => new Set(lines(text).map((l) => /^(#{1,6})\s+(.+?)\s*#*$/.exec(l.trim())).filter((m): m is RegExpExecArray => !!m).map((m) => `${m[1]} ${m[2]}`));

const EMOJI_RE = /\p{Extended_Pictographic}/u;

/** The head of a line a forbidden-literal check can name: a trailer key, else its first words (≤ 24 chars). */
function lineHead(line: string): string | null {
  const t = line.trim().replace(/^[-*]\s+/, '');
  const key = /^([A-Za-z][\w-]*):\s/.exec(t);
  if (key) return `${key[1]}:`;
  const words = t.replace(EMOJI_RE, '').trim().split(/\s+/).slice(0, 3).join(' ');
  return words.length >= 6 ? words.slice(0, 24) : null;
}

/** The differences of one pair, each in the direction agent → kept. */
export function pairDiffs(agent: string, kept: string, commitMessage: boolean): Diff[] {
  const out: Diff[] = [];
  if (commitMessage) {
    const sa = subjectOf(agent);
    const sk = subjectOf(kept);
    const pa = prefixShape(sa);
    const pk = prefixShape(sk);
    if (pk && pk !== pa) out.push({ kind: 'prefix', literal: pk, agent: sa, kept: sk });
    if (pa && !pk) out.push({ kind: 'prefix', literal: pa, agent: sa, kept: sk, reverse: true });
    const ba = subjectBody(sa);
    const bk = subjectBody(sk);
    if (/^[a-z]/.test(bk) && /^[A-Z][a-z]/.test(ba)) out.push({ kind: 'lower_subject', literal: 'lower-case subject', agent: sa, kept: sk });
    if (/^[A-Z][a-z]/.test(bk) && /^[a-z]/.test(ba)) out.push({ kind: 'lower_subject', literal: 'lower-case subject', agent: sa, kept: sk, reverse: true });
    const ta = trailers(agent);
    const tk = trailers(kept);
    for (const [k, line] of tk) if (!ta.has(k)) out.push({ kind: 'trailer', literal: k, agent: '', kept: line });
    for (const [k, line] of ta) if (!tk.has(k)) out.push({ kind: 'trailer', literal: k, agent: line, kept: '', reverse: true });
  }
  if (!commitMessage) {
    // code literals a file gained or lost (`it.each`, `vi.fn` for `jest.fn`): calls and member accesses
    const ca = codeLiterals(agent);
    const ck = codeLiterals(kept);
    for (const t of ck) if (!ca.has(t)) out.push({ kind: 'include', literal: t, agent: '', kept: lineWith(kept, t) });
    for (const t of ca) if (!ck.has(t)) out.push({ kind: 'forbid', literal: t, agent: lineWith(agent, t), kept: '' });
  }
  const ha = headingsOf(agent);
  const hk = headingsOf(kept);
  for (const h of hk) if (!ha.has(h)) out.push({ kind: 'heading', literal: h, agent: '', kept: h });
  for (const h of ha) if (!hk.has(h)) out.push({ kind: 'heading', literal: h, agent: h, kept: '', reverse: true });
  if (EMOJI_RE.test(agent) && !EMOJI_RE.test(kept)) out.push({ kind: 'forbid', literal: 'emoji', agent: emojiLine(agent), kept: '' });
  if (!EMOJI_RE.test(agent) && EMOJI_RE.test(kept)) out.push({ kind: 'forbid', literal: 'emoji', agent: '', kept: emojiLine(kept), reverse: true });
  // lines the user deleted (a tool's signature, a "WIP" marker): named by their head
  const keptText = kept.toLowerCase();
  const seen = new Set<string>();
  // (a commit's subject is rewritten every time: prefix and case cover it; headings have their own property)
  for (const l of lines(agent).slice(commitMessage ? 1 : 0)) {
    if (/^\s*#/.test(l)) continue;
    const head = l.trim() && !keptText.includes(l.trim().toLowerCase()) ? lineHead(l) : null;
    if (!head || seen.has(head.toLowerCase()) || keptText.includes(head.toLowerCase())) continue;
    seen.add(head.toLowerCase());
    out.push({ kind: 'forbid', literal: head, agent: l.trim().slice(0, 120), kept: '', lineHead: true });
  }
  return out;
}

/** Member accesses of code (`it.each`, `vi.fn`, `jest.fn`): what a file's framework and style show, not its instance values. */
function codeLiterals(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b([a-z][A-Za-z]*)\.([a-z][A-Za-z]*)\s*\(/g)) if (m[1].length <= 12) out.add(`${m[1]}.${m[2]}`);
  return out;
}
const lineWith = (text: string, literal: string) => lines(text).find((l) => l.includes(literal))?.trim().slice(0, 120) ?? literal;
const emojiLine = (s: string) => lines(s).find((l) => EMOJI_RE.test(l))?.trim().slice(0, 120) ?? '';
const chars = (s: string) => [...s.trim()].length;
const roundUp = (n: number) => Math.ceil(n / 10) * 10;
const roundDown = (n: number) => Math.floor(n / 10) * 10;

/** A file path as a kind of file: `tests/parse.test.ts` → `tests/*.test.ts`. */
export function filePattern(file: string): string {
  const slash = file.lastIndexOf('/');
  const base = file.slice(slash + 1);
  const dot = base.indexOf('.', 1);
  return `${file.slice(0, slash + 1)}*${dot > 0 ? base.slice(dot) : ''}`;
}

/**
 * The artifact each kept outcome is of: every commit message is one artifact; files are grouped by
 * kind (`tests/*.test.ts`: each occurrence writes its own test file) when the family wrote several
 * paths of that kind, and a path that is the only one of its kind is its own (CHANGELOG.md).
 */
export function artifactsOf(outcomes: KeptOutcome[]): string[] {
  const paths = new Map<string, Set<string>>();
  for (const k of outcomes) {
    if (k.kind !== 'file') continue;
    const pattern = filePattern(k.file ?? 'file');
    paths.set(pattern, (paths.get(pattern) ?? new Set<string>()).add(k.file ?? 'file'));
  }
  return outcomes.map((k) => {
    if (k.kind === 'commit_message') return 'commit message';
    const pattern = filePattern(k.file ?? 'file');
    return (paths.get(pattern)?.size ?? 0) >= 2 ? pattern : (k.file ?? 'file');
  });
}

/**
 * The properties the user's kept versions hold and the agent's did not, per artifact, agreeing in
 * ≥ MIN_AGREEING occurrences and contradicted by none. Conventional prefixes whose type varies
 * are merged into `<type>(<scope>):`.
 */
export function keptProperties(outcomes: KeptOutcome[]): KeptProperty[] {
  const byArtifact = new Map<string, KeptOutcome[]>();
  const names = artifactsOf(outcomes);
  outcomes.forEach((k, i) => byArtifact.set(names[i], [...(byArtifact.get(names[i]) ?? []), k]));
  const out: KeptProperty[] = [];
  for (const [artifact, list] of byArtifact) {
    const agg = new Map<string, { kind: PropertyKind; literal: string; fwd: PropertyExample[]; rev: number; lineHead?: boolean }>();
    for (const k of list) {
      const perPair = new Set<string>();
      for (const d of pairDiffs(k.agent, k.kept, k.kind === 'commit_message')) {
        const key = `${d.kind}\u0000${d.literal.toLowerCase()}`;
        if (perPair.has(key + String(d.reverse))) continue;
        perPair.add(key + String(d.reverse));
        const a = agg.get(key) ?? { kind: d.kind, literal: d.literal, fwd: [], rev: 0, lineHead: d.lineHead };
        if (d.reverse) a.rev++;
        else a.fwd.push({ agent: d.agent, kept: d.kept, commit: k.commit, at: k.at, ...(k.file ? { file: k.file } : {}) });
        agg.set(key, a);
      }
    }
    mergePrefixTypes(agg);
    const found: KeptProperty[] = [];
    for (const a of agg.values()) {
      // (a deleted line's head must be deleted in most occurrences: `test('parseAmount works'` is the instance's)
      if (a.fwd.length >= MIN_AGREEING && a.rev === 0 && (!a.lineHead || a.fwd.length * 2 > list.length)) found.push({ kind: a.kind, artifact, literal: a.literal, changed: a.fwd.length, of: list.length, examples: newestFirst(a.fwd) });
    }
    out.push(...newestOfAlternatives(found));
    // a length is a property of prose (a message, notes), not of code: a test file grows with what it covers
    if (artifact === 'commit message' || /\.(?:md|markdown|txt|rst)$/i.test(artifact)) out.push(...lengthBounds(artifact, list));
  }
  return out;
}

/** Two spellings of one heading (`## Unreleased`, `## [Unreleased]`): the same level and words. */
const headingKey = (literal: string) => `${/^#+/.exec(literal)?.[0].length ?? 0}:${literal.replace(/^#+\s*/, '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()}`;

/**
 * A changed mind: the user kept one spelling of a heading for a while, then another. Both were
 * added to the agent's drafts, but only the newer one is the preference now (recency wins).
 */
function newestOfAlternatives(props: KeptProperty[]): KeptProperty[] {
  const newest = new Map<string, KeptProperty>();
  for (const p of props) {
    if (p.kind !== 'heading') continue;
    const k = headingKey(p.literal);
    const cur = newest.get(k);
    if (!cur || (p.examples[0]?.at ?? 0) > (cur.examples[0]?.at ?? 0)) newest.set(k, p);
  }
  return props.filter((p) => p.kind !== 'heading' || newest.get(headingKey(p.literal)) === p);
}

function mergePrefixTypes(agg: Map<string, { kind: PropertyKind; literal: string; fwd: PropertyExample[]; rev: number }>): void {
  // several types with a scope are one habit (the type follows the change): `fix(<scope>):` and `feat(<scope>):` would contradict each other
  const scoped = [...agg.entries()].filter(([, a]) => a.kind === 'prefix' && /^[a-z-]+\(<scope>\)!?:$/i.test(a.literal));
  if (scoped.length < 2) return;
  const merged = { kind: 'prefix' as const, literal: '<type>(<scope>):', fwd: scoped.flatMap(([, a]) => a.fwd), rev: scoped.reduce((s, [, a]) => s + a.rev, 0) };
  for (const [k] of scoped) agg.delete(k);
  agg.set('prefix\u0000<type>(<scope>):', merged);
}

/**
 * How far past a bound an agent version must be for the user's edit to count as enforcing it.
 * Assumption: an edit that changes the length by under a fifth is about content, not length.
 */
const LENGTH_MARGIN = 1.25;

/** A length bound every kept version keeps and at least MIN_AGREEING agent versions broke clearly (the user cut them, or filled them out). */
function lengthBounds(artifact: string, list: KeptOutcome[]): KeptProperty[] {
  const out: KeptProperty[] = [];
  const max = roundUp(Math.max(...list.map((k) => chars(k.kept))));
  const over = list.filter((k) => chars(k.agent) > max * LENGTH_MARGIN);
  if (over.length >= MIN_AGREEING && max > 0) {
    out.push({ kind: 'max_chars', artifact, literal: String(max), changed: over.length, of: list.length, examples: newestFirst(over.map((k) => lengthExample(k))) });
  }
  const min = roundDown(Math.min(...list.map((k) => chars(k.kept))));
  const under = list.filter((k) => chars(k.agent) * LENGTH_MARGIN < min);
  if (under.length >= MIN_AGREEING && min > 0) {
    out.push({ kind: 'min_chars', artifact, literal: String(min), changed: under.length, of: list.length, examples: newestFirst(under.map((k) => lengthExample(k))) });
  }
  return out;
}

const lengthExample = (k: KeptOutcome): PropertyExample => ({ agent: `${chars(k.agent)} characters`, kept: `${chars(k.kept)} characters`, commit: k.commit, at: k.at, ...(k.file ? { file: k.file } : {}) });
const newestFirst = (xs: PropertyExample[]) => [...xs].sort((a, b) => b.at - a.at);

/**
 * The evidence behind each rule of a skill (issue 41), for review: a rule is matched to a kept
 * property or a procedure by the literal it names (`fix(`, `Refs:`, `### Fixed`, emoji, a length,
 * a command), and the evidence says what the user did, in how many occurrences, with the newest
 * commit and its date: "you changed `Handle` to `fix(cli):` in 4 of 5 commits (a1b2c3d, Nov 12)",
 * "`npm test` failed in 3 sessions; `pnpm vitest run` worked". Pure; computed at staging time.
 */
import type { KeptOutcome, Procedure } from '../../core/records.js';
import { keptProperties, type KeptProperty } from './properties.js';

export interface RuleEvidenceItem {
  /** what the user did, in words */
  text: string;
  /** the property (`prefix`, `trailer`, …) or `procedure` */
  kind: string;
  literal: string;
  /** occurrences (or sessions) that showed it, and occurrences compared (sessions for a procedure) */
  changed: number;
  of: number;
  /** provenance: commits (12 hex), newest first; empty for a procedure */
  commits: string[];
}

export interface RuleEvidence {
  rule: string;
  evidence: RuleEvidenceItem[];
}

/** The rules of a skill document: its list items (`- …`, `* …`, `1. …`), markup trimmed. */
export function rulesOf(doc: string): string[] {
  const out: string[] = [];
  for (const l of doc.split('\n')) {
    const m = /^\s*(?:[-*+]|\d+[.)])\s+(.+)$/.exec(l);
    if (m && !out.includes(m[1].trim())) out.push(m[1].trim());
  }
  return out;
}

const day = (ms: number) => new Date(ms).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const unit = (p: KeptProperty) => (p.artifact === 'commit message' ? 'commits' : `versions of ${p.artifact}`);
const where = (p: KeptProperty) => (p.examples[0] ? ` (${p.examples[0].commit.slice(0, 7)}, ${day(p.examples[0].at)})` : '');
const firstWord = (s: string) => s.trim().split(/\s+/, 1)[0] ?? '';
/** The kept instance of a prefix (`fix(cli):` for `fix(<scope>):`). */
const keptPrefix = (s: string) => /^\S+?:|^\[[^\]]+\]/.exec(s.trim())?.[0] ?? firstWord(s);

function sayProperty(p: KeptProperty): string {
  const ex = p.examples[0];
  const n = `in ${p.changed} of ${p.of} ${unit(p)}${where(p)}`;
  switch (p.kind) {
    case 'prefix':
      return `you changed \`${firstWord(ex?.agent ?? '')}\` to \`${keptPrefix(ex?.kept ?? p.literal)}\` ${n}`;
    case 'lower_subject':
      return `you lower-cased the subject (\`${firstWord(ex?.agent ?? '')}\` → \`${firstWord(ex?.kept.replace(/^\S+?:\s*/, '') ?? '')}\`) ${n}`;
    case 'trailer':
      return `you added the trailer \`${ex?.kept ?? p.literal}\` ${n}`;
    case 'heading':
      return `you added the \`${p.literal}\` heading ${n}`;
    case 'include':
      return `you added \`${p.literal}\` ${n}`;
    case 'forbid':
      return p.literal === 'emoji' ? `you removed the emoji ${n}` : `you deleted \`${p.literal}\` ${n}`;
    case 'max_chars':
      return `you cut it from ${ex?.agent ?? '?'} to ${ex?.kept ?? '?'} (at most ${p.literal}) ${n}`;
    case 'min_chars':
      return `you filled it out from ${ex?.agent ?? '?'} to ${ex?.kept ?? '?'} (at least ${p.literal}) ${n}`;
  }
}

/** Whether a rule names this property. */
function ruleNames(rule: string, p: KeptProperty): boolean {
  const r = rule.toLowerCase();
  switch (p.kind) {
    case 'prefix': {
      if (p.literal === '<type>(<scope>):') return /\(<?scope>?\)|conventional/.test(r) || /\b[a-z]+\([a-z<>-]+\):/.test(r);
      const type = p.literal.replace(/\(<scope>\)|!?:$/g, '').toLowerCase();
      const keyPrefix = p.literal.replace('<n>]', '').toLowerCase();
      return p.literal.startsWith('[') ? r.includes(keyPrefix) : new RegExp(`(^|[\\s\`'"])${type.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\(|:)`).test(r);
    }
    case 'lower_subject':
      return /lower[- ]?case/.test(r);
    case 'trailer':
    case 'heading':
      return r.includes(p.literal.toLowerCase()) || (p.kind === 'heading' && new RegExp(`\\b${p.literal.replace(/^#+\s*/, '').toLowerCase()}\\b.*(sub)?heading|(sub)?heading.*\\b${p.literal.replace(/^#+\s*/, '').toLowerCase()}\\b`).test(r));
    case 'include':
      return r.includes(p.literal.toLowerCase());
    case 'forbid':
      return p.literal === 'emoji' ? /emoji/.test(r) : r.includes(p.literal.toLowerCase());
    case 'max_chars':
    case 'min_chars':
      return new RegExp(`\\b${p.literal}\\b`).test(r.replace(/,(?=\d{3}\b)/g, ''));
  }
}

/** A rule names a command as written, or without its runner and a trailing `.` (`eslint --cache` for `npx eslint --cache .`). */
function namesCommand(rule: string, command: string): boolean {
  const r = rule.toLowerCase().replace(/\s+/g, ' ');
  const c = command.toLowerCase().replace(/\s+/g, ' ').trim();
  const core = c.replace(/^(?:npx|pnpm exec|pnpm dlx|yarn dlx|bunx) /, '').replace(/ \.$/, '');
  return r.includes(c) || (core.includes(' ') && r.includes(core));
}

/**
 * Each rule with the evidence behind it (rules without any are left out). `kept` and
 * `procedures` are those of the tasks the skill was trained and scored on.
 */
export function ruleEvidence(rules: string[], kept: KeptOutcome[], procedures: Procedure[]): RuleEvidence[] {
  const props = keptProperties(kept);
  const out: RuleEvidence[] = [];
  for (const rule of rules) {
    const items: RuleEvidenceItem[] = [];
    for (const p of props) {
      if (!ruleNames(rule, p)) continue;
      items.push({ text: sayProperty(p), kind: p.kind, literal: p.literal, changed: p.changed, of: p.of, commits: p.examples.map((e) => e.commit.slice(0, 12)) });
    }
    for (const pr of procedures) {
      if (!namesCommand(rule, pr.worked)) continue;
      const s = pr.sessions === 1 ? 'session' : 'sessions';
      items.push({ text: `\`${pr.failed}\` failed in ${pr.sessions} ${s}; \`${pr.worked}\` worked`, kind: 'procedure', literal: pr.worked, changed: pr.sessions, of: pr.sessions, commits: [] });
    }
    if (items.length) out.push({ rule, evidence: items });
  }
  return out;
}

/** Procedures of several tasks merged by (failed, worked): the sessions add up. */
export function mergeTaskProcedures(lists: Procedure[][]): Procedure[] {
  const by = new Map<string, Procedure>();
  for (const p of lists.flat()) {
    const k = `${p.failed}\u0000${p.worked}`;
    const cur = by.get(k);
    if (!cur) by.set(k, { ...p });
    else {
      cur.sessions += p.sessions;
      if (p.at !== null && (cur.at === null || p.at > cur.at)) cur.at = p.at;
    }
  }
  return [...by.values()];
}

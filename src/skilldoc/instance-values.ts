/**
 * A value copied from one task's ask into a rule is that instance's, not the user's convention:
 * "link the PR in parentheses: `(#482)`" written from the ask "…for PR #482" makes every later
 * reply cite #482. A PR/issue number or a version that appears in the ask or context of the tasks
 * a rule is drawn from becomes a placeholder (`#<number>`, `X.Y.Z`), and so does a function,
 * package or author the ask names (`<function>`, `<package>`, `Name <email>`), which the target
 * fills with each instance's own value. Values the asks do not hold (a convention's own example)
 * are left alone. The start draft writes its rules this way (trainer/passes/start-draft.ts). Pure.
 */
import type { Task } from '../core/records.js';

const NUMBER = /#(\d+)\b/g;
const VERSION = /\bv?(\d+\.\d+\.\d+)\b/g;

/** What the asks of some tasks state as instance values: PR/issue numbers, versions, named values. */
export interface AskValues {
  numbers: Set<string>;
  versions: Set<string>;
  /** value → placeholder (see `namedAskValues`) */
  named: Map<string, string>;
}

/** The instance values the asks (intent and context) of `tasks` state. */
export function askValues(tasks: Iterable<Task>): AskValues {
  const values: AskValues = { numbers: new Set(), versions: new Set(), named: new Map() };
  for (const t of tasks) {
    const text = `${t.intent}\n${t.context ?? ''}`;
    for (const m of text.matchAll(NUMBER)) values.numbers.add(m[1]);
    for (const m of text.matchAll(VERSION)) values.versions.add(m[1]);
    for (const [v, p] of namedAskValues(text)) if (!values.named.has(v)) values.named.set(v, p);
  }
  return values;
}

/** `text` with every value of `values` written as its placeholder (`#<number>`, `X.Y.Z`, `<function>`, …). */
export function withAskPlaceholders(text: string, values: AskValues): string {
  const numbered = text
    .replace(NUMBER, (m, n: string) => (values.numbers.has(n) ? '#<number>' : m))
    .replace(VERSION, (m, v: string) => (values.versions.has(v) ? `${m.startsWith('v') ? 'v' : ''}X.Y.Z` : m));
  return values.named.size ? withNamedPlaceholders(numbered, values.named) : numbered;
}

/**
 * Values an ask names by their role, with the placeholder a reader fills from each new ask: "the
 * `slugify` function" → `<function>`, "Package: logpipe" → `<package>`, "Author: Dana Kim
 * <dana@kim.dev>" → `Name <email>` (git's own convention for an author line). A check a user's
 * session produced carries that session's function, package and author ("Signed-off-by: Dana Kim
 * <dana@kim.dev>"); pasted as a rule it would make every later reply name them. Only values of at
 * least three characters count, so a short common word is never taken for one.
 */
export function namedAskValues(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const add = (value: string | undefined, placeholder: string): void => {
    const v = value?.trim();
    if (v && v.length >= 3 && !out.has(v)) out.set(v, placeholder);
  };
  for (const m of text.matchAll(/`([A-Za-z_$][\w$.]*)`\s+(function|method)\b/g)) add(m[1], '<function>');
  for (const m of text.matchAll(/\b(?:the|a)\s+(function|method)\s+`([A-Za-z_$][\w$.]*)`/g)) add(m[2], '<function>');
  for (const m of text.matchAll(/\bPackage:\s*([\w@/.-]*[\w@/-])/g)) add(m[1], '<package>');
  for (const m of text.matchAll(/\bthe\s+([\w@/-]+)\s+package\b/g)) add(m[1], '<package>');
  for (const m of text.matchAll(/\b(?:Author|Signed-off-by|Co-authored-by):\s*([^<\n]+?\s<[^>\s]+@[^>\s]+>)/g)) add(m[1], 'Name <email>');
  return out;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every named value of `values` (see `namedAskValues`) written as its placeholder. */
function withNamedPlaceholders(text: string, values: ReadonlyMap<string, string>): string {
  let out = text;
  // longest first, so "Dana Kim <dana@kim.dev>" goes before a shorter value inside it
  for (const [value, placeholder] of [...values].sort((a, b) => b[0].length - a[0].length)) {
    out = out.replace(new RegExp(`(?<![\\w$@/-])${escapeRegex(value)}(?![\\w$-])`, 'g'), placeholder);
  }
  return out;
}

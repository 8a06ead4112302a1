/**
 * How the simulated optimizer reads outcome evidence in its reflect prompt (issue 41): for failing
 * attempts, the agent's version beside the one the user kept in git, and the commands that failed
 * before the one that worked. Like a model reading those diffs, it names what changed the same way
 * across occurrences and states it as one imperative rule with a short example taken from the kept
 * versions, instance values as placeholders:
 *   - an opening the kept versions share and the agent's lack (a prefix pattern: `fix(cli): `);
 *   - a trailer line (`Refs: #<number>`);
 *   - a subheading (`### Changed`) or a heading entries go under (`## [Unreleased]`);
 *   - a literal the agent wrote and the user always took out (an emoji, `jest.fn`, `WIP`);
 *   - a length bound every kept version keeps and the agent's break;
 *   - the command that works ("Run the tests with `pnpm vitest run`; `npm test` fails here").
 * It reads only what the payload carries (the digests' `kept` and `procedures`), never a check.
 */
import { spellingKey } from '../../skilldoc/wording-lint.js';
import type { RolloutDigest } from '../../core/protocol.js';
import { jobOfAsk } from './jobs.js';

/** A rule induced from outcome evidence, with the attempts behind it. */
export interface InducedRule {
  key: string;
  /** the rule, imperative, with its example */
  rule: string;
  job: string | null;
  taskIds: string[];
  /** what it was induced from, for the edit's rationale */
  basis: string;
}

/** A property must show in at least this share of a job's kept pairs (and in two of them) to be a preference. */
const AGREEMENT = 0.6;

/** one kept outcome as the prompt shows it: the agent's version, the one that landed, and when it landed */
type Pair = { agent: string; kept: string; taskId: string; at: number };

const firstLine = (s: string): string => s.trim().split(/\r?\n/)[0] ?? '';
const lastLine = (s: string): string => {
  const lines = s.trim().split(/\r?\n/);
  return lines[lines.length - 1] ?? '';
};
const EMOJI = /\p{Extended_Pictographic}/u;

/** `fix(cli): drop Node 18` → `fix(cli): `; `Update: x` → `Update: `. */
function openingPrefix(line: string): string | null {
  return /^([A-Za-z]+(?:\([\w./-]+\))?!?:\s)/.exec(line)?.[1] ?? null;
}
/** the shape of a prefix: `fix(cli): ` and `feat(api): ` share `type(scope): ` */
const prefixShape = (p: string): string => p.replace(/^[a-z]+/, 'type').replace(/\([^)]*\)/, '(scope)').replace(/^[A-Z][a-z]+/, 'Word');

/** `Refs: #123` → `Refs: #<number>`; a trailer is a `Key: value` last line. */
function trailerOf(text: string): string | null {
  const l = lastLine(text).trim();
  if (!/^[A-Z][\w-]*(?:-[A-Za-z]+)*: \S/.test(l) || l.length > 80) return null;
  return l.replace(/#\d+/g, '#<number>').replace(/\b[\w.+-]+@[\w.-]+\.\w+\b/g, 'email').replace(/: .*<email>.*$/, ': Name <email>');
}

const headingsOf = (text: string, level: number): string[] => [...text.matchAll(new RegExp(`^${'#'.repeat(level)} (.+)$`, 'gm'))].map((m) => m[1].trim());

/** Literals an agent writes that a user takes out: an emoji, a dotted API (`jest.fn`), an all-caps marker (`WIP`). */
function removableLiterals(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\p{Extended_Pictographic}/gu)) out.add(m[0]);
  for (const m of text.matchAll(/\b([a-z]+\.[a-z][A-Za-z]*)\(/g)) out.add(m[1]);
  for (const m of text.matchAll(/\b([A-Z]{3,})\b/g)) out.add(m[1]);
  return [...out];
}

/** The pairs' share where `test` holds; true when it holds in ≥ 2 pairs and ≥ AGREEMENT of them. */
function agreed(pairs: Pair[], test: (p: Pair) => boolean): Pair[] | null {
  const hits = pairs.filter(test);
  return hits.length >= 2 && hits.length / pairs.length >= AGREEMENT ? hits : null;
}

/**
 * The pairs a heading's agreement is read over. A heading the user respelled (kept versions hold
 * `## Unreleased`, later ones `## [Unreleased]`) is read over the versions kept since the newer
 * spelling first landed: the older versions show what the user wanted before they changed their
 * mind, not a disagreement about what they want now (half the month under each spelling would
 * otherwise fall short of the agreement, and the older spelling a correction stated stays).
 */
function sinceRespelled(pairs: Pair[], level: number, heading: string, hits: Pair[]): Pair[] {
  const key = spellingKey(heading);
  const respelledByUser = pairs.some((p) => headingsOf(p.kept, level).some((x) => x !== heading && spellingKey(x) === key));
  if (!respelledByUser) return pairs;
  const since = Math.min(...hits.map((p) => p.at));
  return pairs.filter((p) => p.at >= since);
}

const ids = (ps: Pair[]): string[] => [...new Set(ps.map((p) => p.taskId))];
const roundUp = (n: number, to: number): number => Math.ceil(n / to) * to;

function rulesFromPairs(pairs: Pair[], job: string | null, label: string): InducedRule[] {
  const out: InducedRule[] = [];
  const add = (key: string, rule: string, hits: Pair[], basis: string) => out.push({ key: `kept:${job ?? 'any'}:${key}`, rule, job, taskIds: ids(hits), basis: `${basis} in ${hits.length} of ${pairs.length} kept versions` });

  // an opening prefix the kept versions share (by shape) and the agent's versions lack
  const shapes = new Map<string, Pair[]>();
  for (const p of pairs) {
    const k = openingPrefix(firstLine(p.kept));
    if (!k || openingPrefix(firstLine(p.agent)) === k) continue;
    const shape = prefixShape(k);
    shapes.set(shape, [...(shapes.get(shape) ?? []), p]);
  }
  for (const [shape, list] of shapes) {
    const hits = agreed(pairs, (p) => list.includes(p));
    if (!hits) continue;
    const example = openingPrefix(firstLine(hits[hits.length - 1].kept))!;
    const lower = hits.every((p) => /^[a-z]/.test(firstLine(p.kept).slice(openingPrefix(firstLine(p.kept))!.length)));
    const what = shape.startsWith('type(scope)') ? 'a type and scope' : 'a prefix';
    add(`start:${shape}`, `Start ${label === 'commit messages' ? 'the subject' : 'the first line'} with ${what}, e.g. \`${example}\`${lower ? ', then a lower-case summary' : ''}.`, hits, `the first line starts with \`${example.trim()}\``);
  }

  // a trailer line
  const trailers = new Map<string, Pair[]>();
  for (const p of pairs) {
    const t = trailerOf(p.kept);
    if (t && trailerOf(p.agent) !== t) trailers.set(t, [...(trailers.get(t) ?? []), p]);
  }
  for (const [t, list] of trailers) {
    const hits = agreed(pairs, (p) => list.includes(p));
    if (hits) add(`end:${t}`, `End with a \`${t}\` trailer line${/#<number>/.test(t) ? ' (the PR number of the change)' : ''}.`, hits, `a \`${t}\` trailer was added`);
  }

  // a subheading, and a heading entries go under
  for (const level of [3, 2]) {
    const counts = new Map<string, Pair[]>();
    for (const p of pairs) {
      const mine = new Set(headingsOf(p.agent, level));
      for (const h of new Set(headingsOf(p.kept, level))) if (!mine.has(h)) counts.set(h, [...(counts.get(h) ?? []), p]);
    }
    // two spellings of one heading (`## Unreleased`, later `## [Unreleased]`): the user changed it, as a
    // reader of the dates sees; only the spelling kept most recently is a rule
    const latest = new Map<string, { h: string; at: number }>();
    for (const [h, list] of counts) {
      const at = Math.max(...list.map((p) => p.at));
      if ((latest.get(spellingKey(h))?.at ?? -Infinity) < at) latest.set(spellingKey(h), { h, at });
    }
    for (const [h, list] of counts) {
      if (latest.get(spellingKey(h))?.h !== h) continue;
      const base = sinceRespelled(pairs, level, h, list);
      const hits = agreed(base, (p) => list.includes(p));
      if (!hits) continue;
      const hashes = '#'.repeat(level);
      const rule = level === 3 ? `File each entry under a \`${hashes} ${h}\` subheading.` : `Put new entries under an \`${hashes} ${h}\` heading.`;
      if (base === pairs) add(`heading:${level}:${h}`, rule, hits, `\`${hashes} ${h}\` was added`);
      else out.push({ key: `kept:${job ?? 'any'}:heading:${level}:${h}`, rule, job, taskIds: ids(hits), basis: `\`${hashes} ${h}\` was added in ${hits.length} of the ${base.length} kept versions since it replaced an older spelling` });
    }
  }

  // a literal the agent wrote and the user always took out
  const removed = new Map<string, Pair[]>();
  for (const p of pairs) for (const lit of removableLiterals(p.agent)) if (!p.kept.includes(lit)) removed.set(lit, [...(removed.get(lit) ?? []), p]);
  for (const [lit, list] of removed) {
    // read over the versions where the agent wrote it: taken out in most, and never added by the user
    // (one commit that landed as the agent wrote it does not undo twelve that took it out)
    const wrote = pairs.filter((p) => p.agent.includes(lit));
    const hits = agreed(wrote, (p) => list.includes(p));
    if (!hits || pairs.some((p) => p.kept.includes(lit) && !p.agent.includes(lit))) continue;
    const kind = EMOJI.test(lit) ? `emoji such as \`${lit}\`` : `\`${lit}\``;
    const instead = /^jest\./.test(lit) ? `; use \`${lit.replace(/^jest/, 'vi')}\` instead` : '';
    out.push({ key: `kept:${job ?? 'any'}:forbid:${lit}`, rule: `Never put ${kind} in ${label}${instead}.`, job, taskIds: ids(hits), basis: `\`${lit}\` was taken out in ${hits.length} of the ${wrote.length} kept versions where the agent wrote it` });
  }

  // a length bound the kept versions keep and the agent's break
  const longest = Math.max(...pairs.map((p) => p.kept.trim().length));
  // a bound a reader would see: the agent's versions half again as long as the longest kept one
  const over = agreed(pairs, (p) => p.agent.trim().length > longest * 1.5);
  if (over && longest >= 20) add('max', `Keep ${label} at most ${roundUp(longest, 50)} characters.`, over, `the kept versions are at most ${longest} characters where the agent's were longer`);
  const shortest = Math.min(...pairs.map((p) => p.kept.trim().length));
  const under = agreed(pairs, (p) => p.agent.trim().length * 1.5 < shortest);
  if (under && shortest >= 40) add('min', `Make ${label} at least ${Math.floor(shortest / 50) * 50} characters.`, under, `the kept versions are at least ${shortest} characters where the agent's were shorter`);
  return out;
}

const PURPOSE: Record<string, string> = { test: 'the tests', tests: 'the tests', lint: 'the linter', typecheck: 'the type check', format: 'the formatter', build: 'the build' };

const JOB_LABEL: Record<string, string> = { changelog: 'changelog entries', tests: 'unit tests', lint: 'lint fixes', release: 'release notes', commit: 'commit messages', pr: 'PR descriptions', docs: 'docs', bugfix: 'bug fix reports' };

/**
 * The rules a model would write from the failing attempts' outcome evidence: per job, the kept
 * versions' shared differences, and each procedure's working command.
 */
export function induceFromOutcomes(rollouts: RolloutDigest[]): InducedRule[] {
  const byJob = new Map<string | null, { pairs: Pair[]; seen: Set<string> }>();
  const procs = new Map<string, { rule: string; job: string | null; taskIds: string[]; basis: string }>();
  for (const r of rollouts) {
    if (r.passed) continue;
    const job = jobOfAsk(r.intent);
    const slot = byJob.get(job) ?? { pairs: [], seen: new Set<string>() };
    byJob.set(job, slot);
    for (const k of r.kept ?? []) {
      const id = `${k.commit}:${k.kind}:${k.file ?? ''}`;
      if (slot.seen.has(id)) continue;
      slot.seen.add(id);
      slot.pairs.push({ agent: k.agent, kept: k.kept, taskId: r.taskId, at: k.at });
    }
    for (const p of r.procedures ?? []) {
      const key = `proc:${p.worked}`;
      const what = PURPOSE[(p.purpose ?? '').toLowerCase()] ?? (/\btest|vitest|jest\b/.test(p.worked) ? 'the tests' : /\blint|eslint\b/.test(p.worked) ? 'the linter' : 'it');
      const hit = procs.get(key);
      if (hit) {
        if (!hit.taskIds.includes(r.taskId)) hit.taskIds.push(r.taskId);
        continue;
      }
      procs.set(key, { rule: `Run ${what} with \`${p.worked}\`; \`${p.failed}\` fails here.`, job, taskIds: [r.taskId], basis: `\`${p.failed}\` failed and \`${p.worked}\` worked in ${p.sessions} session(s)` });
    }
  }
  const out: InducedRule[] = [];
  for (const [job, { pairs }] of byJob) if (pairs.length >= 2) out.push(...rulesFromPairs(pairs, job, job ? (JOB_LABEL[job] ?? job) : 'replies'));
  for (const [key, p] of procs) out.push({ key, ...p });
  return out.sort((a, b) => b.taskIds.length - a.taskIds.length);
}

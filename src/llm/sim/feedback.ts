/**
 * What the simulated optimizer understands of rollout feedback: each failure line becomes an
 * "issue" (the requirement in plain words plus a concrete example), and issues seen in several
 * rollouts are grouped with the task ids behind them.
 */
import type { RolloutDigest } from '../../core/protocol.js';
import { concepts, isNegated } from './semantics.js';
import { sampleRegex } from './regex-sample.js';
import type { Rng } from './rng.js';

export interface Issue {
  key: string;
  /** the requirement as the feedback states it (description, else the rule) */
  statement: string;
  /** a concrete, checkable hint: `## Unreleased` heading, an example matching a pattern… */
  example: string | null;
  negative: boolean;
  taskIds: string[];
}

const FEEDBACK_LINE = /^Failed check "([^"]+)":\s*(.*)$/;

/**
 * A real instance of a check's pattern: a line of what the user kept (or of a reply in front of
 * the optimizer that met it), or the words of their own correction, that matches it (a pattern anchored at a line's start is also tried inside the
 * user's sentence: "put it under ## [Unreleased] in …" holds `## [Unreleased]`). Null when none
 * does: an example sampled from the pattern itself (`##   [unreleased]`) is no example a person
 * would give, so the rule goes without one.
 */
export function realExample(pattern: string, flags: string, sources: readonly string[], varying: readonly string[] = []): string | null {
  const found = firstMatch(pattern, flags, [...varying, ...sources]);
  if (found === null) return null;
  // a kept version's PR number or version is that occurrence's own: the example says where it goes
  return varying.length && !sources.some((s) => s.includes(found)) ? found.replace(/#\d+\b/g, '#<number>').replace(/\bv?\d+\.\d+\.\d+\b/g, (m) => (m.startsWith('v') ? 'vX.Y.Z' : 'X.Y.Z')) : found;
}

function firstMatch(pattern: string, flags: string, sources: readonly string[]): string | null {
  let re: RegExp;
  let loose: RegExp | null;
  try {
    re = new RegExp(pattern, flags.replace(/[gym]/g, ''));
    loose = pattern.startsWith('^') ? new RegExp(pattern.slice(1), flags.replace(/[gym]/g, '')) : null;
  } catch {
    return null;
  }
  for (const source of sources) {
    for (const raw of source.split(/\r?\n/)) {
      const line = raw.trim();
      if (!line) continue;
      if (re.test(line)) return line.length <= 80 && !line.includes('`') ? line : (re.exec(line)?.[0] ?? '').trim() || null;
      const m = loose?.exec(line);
      if (m && m[0].trim() && !m[0].includes('`')) return m[0].trim();
    }
  }
  return null;
}

/**
 * Turns one rule clause ("the response must …") into an imperative example sentence. A pattern's
 * example comes from what the user said or kept, or a reply that met it (`realExample`). Only when
 * none holds one is an instance written from the pattern itself, as a model reading the regex in the
 * feedback would, with its whitespace tidied (`##   [unreleased]` is no example a person writes).
 * Basis for keeping that fallback: training from empty (the persona world, where the optimizer sees
 * only the checks) shipped 0.583 without it against 0.642 with it on seeds 1-10 (gate-diagnose).
 */
function exampleFromRule(rule: string, sources: readonly string[], kept: readonly string[], rng?: Rng): string | null {
  let m: RegExpExecArray | null;
  if ((m = /^never include "(.*)"$/.exec(rule))) return `Never write \`${m[1]}\` anywhere in the reply.`;
  if ((m = /^include "(.*)"$/.exec(rule))) return `Write \`${m[1]}\` explicitly.`;
  if ((m = /^match the pattern \/(.*)\/([a-z]*)$/.exec(rule))) {
    const real = realExample(m[1], m[2], sources, kept) ?? (rng ? sampleRegex(m[1], m[2], rng)?.replace(/\s+/g, ' ').trim() || null : null);
    return real ? `For example: \`${real}\`.` : null;
  }
  if ((m = /^have a "(.*)" section/.exec(rule))) return `Add a \`## ${m[1]}\` heading for it.`;
  if ((m = /^mention "(.*)" inside the "(.*)" section$/.exec(rule))) return `Under the \`## ${m[2]}\` heading, cover ${m[1]}.`;
  if ((m = /^be at most (\d+) characters long$/.exec(rule))) return `Keep it short: at most ${m[1]} characters.`;
  if ((m = /^be at least (\d+) characters long$/.exec(rule))) return `Be detailed: at least ${m[1]} characters.`;
  if ((m = /^start with "(.*)"$/.exec(rule))) return `Begin the reply with \`${m[1]}\`.`;
  if ((m = /^use the (.*) tool$/.exec(rule))) return `Run the ${m[1]} tool to confirm it.`;
  if (/^contain valid JSON/.test(rule)) return 'Add a fenced json block with the result.';
  if (/^do the task instead of refusing$/.test(rule)) return 'Always attempt the task; do not refuse.';
  return null;
}

function sentence(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  if (!t) return t;
  const capital = t[0].toUpperCase() + t.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * One feedback line → (key, statement, example); null for lines that say nothing actionable.
 * `sources`: the user's words a real example may be taken from; `kept`: the attempt's kept versions
 * (tried first; their PR numbers and versions are each occurrence's own, so they become placeholders).
 */
export function parseFeedbackLine(line: string, sources: readonly string[] = [], kept: readonly string[] = [], rng?: Rng): Omit<Issue, 'taskIds'> | null {
  const text = line.trim();
  if (!text) return null;
  // the prompt's clip marker ("…[297 more characters]") says the feedback was cut, not what to do
  if (/^…\[\d+ more characters\]$/.test(text)) return null;
  const m = FEEDBACK_LINE.exec(text);
  if (m) {
    const [, checkId, rest] = m;
    const at = rest.indexOf('the response must ');
    const desc = (at >= 0 ? rest.slice(0, at) : rest).replace(/\s*[—-]\s*$/, '').trim();
    const ruleAndWhy = at >= 0 ? rest.slice(at + 'the response must '.length) : '';
    const rule = ruleAndWhy.replace(/;[^;]*$/, '').trim();
    // the check's own description is the user's words too ("start bug fix reports with 'Fix:'")
    const example = rule ? exampleFromRule(rule, desc ? [desc, ...sources] : sources, kept, rng) : null;
    const statement = sentence(desc || (rule ? `the reply must ${rule}` : checkId));
    return { key: `check:${checkId}`, statement, example, negative: /^never /.test(rule) || (!!desc && isNegated(desc)) };
  }
  const rubric = /^Rubric(?: \([\d.]+\))?:\s*(.*)$/.exec(text);
  const body = rubric ? rubric[1] : text;
  if (/^Rubric score [\d.]+ is below/.test(text)) return null;
  const c = concepts(body);
  if (c.size === 0) return null;
  let missing = body.replace(/^(missing|lacks?|does not|doesn't)\s*:?\s*/i, '');
  // a criterion that quotes the user is restated as the user's own request
  // (a quote the prompt's clip cut off has no closing mark: it is still the user's words)
  const quoted = /^The user said: "(.*?)"?\.?$/.exec(missing.trim());
  if (quoted) missing = quoted[1];
  return { key: `text:${[...c].sort().join(' ')}`, statement: sentence(missing), example: null, negative: isNegated(missing) };
}

/**
 * A critique's missing points, split at ';' — except where the ';' is inside a quote or separates
 * the user's quoted words in one point (`… insisted on before: "a"; "b"` is one point).
 */
function splitPoints(line: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  const push = (piece: string) => {
    const t = piece.trim();
    if (!t) return;
    if (/^["“]/.test(t) && out.length) out[out.length - 1] += `; ${t}`;
    else out.push(t);
  };
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"') quoted = !quoted;
    else if (line[i] === ';' && !quoted) {
      push(line.slice(start, i));
      start = i + 1;
    }
  }
  push(line.slice(start));
  return out;
}

/** Issues across failing rollouts, most widespread first. */
export function collectIssues(rollouts: RolloutDigest[], rng?: Rng): Issue[] {
  const byKey = new Map<string, Issue>();
  // the replies in front of the optimizer: a line of one that meets a check is a real example too
  const replies = rollouts.map((r) => r.response);
  for (const r of rollouts) {
    // the user's own words, quoted in the prompt beside each failed attempt, are issues too
    const quoted = r.passed ? [] : (r.corrections ?? []).map((c) => `Rubric: ${c.text}`);
    // a real example: what the user kept of this job, newest first, then what they said
    const kept = [...(r.kept ?? [])].sort((a, b) => b.at - a.at).map((k) => k.kept).concat(replies);
    const said = (r.corrections ?? []).map((c) => c.text);
    for (const line of [...r.feedback.split(/\r?\n/), ...quoted]) {
      // rubric critiques may list several missing points separated by ';' (not a ';' inside a quote)
      const pieces = /^Rubric/.test(line.trim()) ? splitPoints(line).map((p, i) => (i === 0 ? p : `Rubric: ${p}`)) : [line];
      for (const piece of pieces) {
        const parsed = parseFeedbackLine(piece, said, kept, rng);
        if (!parsed) continue;
        const existing = byKey.get(parsed.key);
        if (existing) {
          if (!existing.taskIds.includes(r.taskId)) existing.taskIds.push(r.taskId);
        } else byKey.set(parsed.key, { ...parsed, taskIds: [r.taskId] });
      }
    }
  }
  return [...byKey.values()].sort((a, b) => b.taskIds.length - a.taskIds.length);
}

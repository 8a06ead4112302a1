/**
 * The start draft's composer (issue 41): the user's corrections of one job turned into the rules a
 * person would have written from them. Each rule is stated once, as an imperative, keeping the
 * literal the correction carried as its example; no complaint wording reaches it ("you forgot the
 * trailer: end with X" → "End with X."; a complaint with no rule in it, "you used jest again",
 * goes). Two corrections that say one rule become one (the more specific wording, else the newer);
 * two that contradict each other (one slot of the reply, two values: "at least 500 characters",
 * then "at least 1000 characters from now on") resolve by recency: the newer wins and the older
 * leaves the skill. A one-off ask ("for this one, also mention the CVE"), worded about the one
 * output in front of the user and said in a single session, stays out.
 * It writes only what the user SAID (a task's corrections and when they were said), never a rule
 * from what they kept (`Task.kept`, `Task.procedures`): those are the loop's to learn. The kept
 * versions' dates only take a stated value out that the user has since stopped keeping
 * (`skilldoc/stale-value.ts`): the newer correction may have been said in a held-out session only. Pure.
 */
import type { Task } from '../../core/records.js';
import { contradicts, imperativeOf, isInstanceSpecific, operativeValues, ruleOfComplaint, ruleSlots, sameRule, undated, complaintIn } from '../../skilldoc/wording-lint.js';

/** One correction as the user said it, with where and when. */
export interface SaidCorrection {
  text: string;
  /** when it was said (ms), when the miner knows */
  at: number | null;
  /** the session it was said in, or the task it came with when the session is unknown */
  session: string;
  /** whether `at` is when it was said (the miner knew its session), not the task's last sighting */
  dated?: boolean;
}

/** A rule of the draft, with what backs it. */
export interface ComposedRule {
  text: string;
  /** how many corrections said it (in any wording) */
  support: number;
  /** the latest time it was said */
  at: number | null;
  /** the older rules it replaced (contradicted), for the proposal's rationale */
  replaced: string[];
}

/** The conversational interjections a correction may open with. */
const OPENER = /^(?:(?:no|nope|nah|not quite|hmm+|ugh|actually|wait|sorry|oops)\b\s*[,.!:;-]+\s*)+/i;

/** A correction as a rule: its opener gone, a complaint as the rule it carried, undated, imperative. Null when no rule is left. */
export function cleanCorrection(text: string): string | null {
  const t = text.trim().replace(/\s+/g, ' ');
  if (complaintIn(t)) return ruleOfComplaint(t);
  const rest = undated(t.replace(OPENER, ''));
  if (rest.split(/\s+/).length < 2) return null;
  return imperativeOf(rest).replace(/[\s.]*$/, '.');
}

/** The corrections a task carries, each with its session and time (the task's own id when the session is unknown). */
export function saidCorrections(t: Task, corrections: string[]): SaidCorrection[] {
  const sources = t.corrections.length ? t.correctionSources : undefined;
  return corrections.map((text, i) => {
    const at = sources?.[i]?.at ?? null;
    return { text, at: at ?? t.lastSeen ?? null, session: sources?.[i]?.session ?? `task:${t.id}`, dated: at !== null };
  });
}


/** How much a wording of a rule says: its values, the slots of the reply it fills (opening, trailer, bound…). */
const specificity = (rule: string): number => operativeValues(rule).size * 2 + ruleSlots(rule).size + (/`[^`]+`/.test(rule) ? 1 : 0);

const key = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * The one-off asks among `said`: worded about the one output (`isInstanceSpecific`) and said in
 * fewer than two sessions (the staging guard's rule, applied before the draft is written).
 */
export function oneOffs(said: SaidCorrection[]): Set<string> {
  const sessions = new Map<string, Set<string>>();
  for (const c of said) {
    if (!isInstanceSpecific(c.text)) continue;
    const k = key(c.text);
    sessions.set(k, (sessions.get(k) ?? new Set()).add(c.session));
  }
  return new Set([...sessions].filter(([, s]) => s.size < 2).map(([k]) => k));
}

export const isOneOff = (set: ReadonlySet<string>, text: string): boolean => set.has(key(text));

/**
 * One job's rules from its cleaned corrections (`rule`, said `n` times, last at `at`): oldest
 * first, each newer rule replacing the ones it repeats or contradicts. Ordered most supported
 * first (the preferences that recur), then newest.
 */
export function composeRules(rules: Array<{ rule: string; n: number; at: number | null }>): ComposedRule[] {
  const byTime = rules.map((r, i) => ({ ...r, i })).sort((a, b) => (a.at ?? 0) - (b.at ?? 0) || a.i - b.i);
  let out: ComposedRule[] = [];
  for (const r of byTime) {
    let next: ComposedRule = { text: r.rule, support: r.n, at: r.at, replaced: [] };
    const survivors: ComposedRule[] = [];
    for (const e of out) {
      if (sameRule(e.text, next.text)) {
        // one rule said twice: the more specific wording (more values, more slots of the reply, an
        // imperative), else the newer; "start with a `# Release vX.Y.Z` title line" over "make the title line …"
        const keepOld = specificity(e.text) > specificity(next.text);
        next = { text: keepOld ? e.text : next.text, support: e.support + next.support, at: next.at, replaced: [...e.replaced, ...next.replaced] };
      } else if (contradicts(e.text, next.text)) {
        next.replaced.push(e.text);
      } else survivors.push(e);
    }
    out = [...survivors, next];
  }
  return out.sort((a, b) => b.support - a.support || (b.at ?? 0) - (a.at ?? 0));
}

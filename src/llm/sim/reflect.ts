/**
 * The simulated optimizer's `reflect`: failure feedback → at most `maxEdits` edits phrased in its
 * own words; successes → edits that keep the structure the successful replies share. With
 * configured rates it proposes irrelevant edits (clutter) and harmful edits (guidance that
 * contradicts a requirement, or deleting a useful line), like a real, imperfect optimizer.
 * It avoids edits that match the rejected-edit buffer.
 */
import type { Edit } from '../../core/records.js';
import type { FailureLabel, ReflectPayload, RejectedEditDigest } from '../../core/protocol.js';
import { Rng } from './rng.js';
import { collectIssues, type Issue } from './feedback.js';
import { concepts, isNegated, jaccard, paraphrase } from './semantics.js';
import { addressStrength, guidanceLines, requirementOfText } from './guidance.js';
import { parseHeadings } from '../../core/markdown.js';
import { JOB_KINDS, jobOfAsk, jobsNamed, visibleValues, type Visible } from './jobs.js';
import { induceFromOutcomes } from './kept-diff.js';
import { respelled } from '../../skilldoc/wording-lint.js';
import { complaintIn, operativeValues, ruleOfComplaint } from '../../skilldoc/wording-lint.js';
import { findRivals, rivalBecomes, sectionHeadingFor, sectionRewrite, slotsOf, statedMoreFully } from './rewrite.js';

/** An issue to write a rule for: from feedback, or induced from outcome evidence (`verbatim`: its statement is the rule). */
type ReflectIssue = Issue & { verbatim?: boolean; basis?: string };

/**
 * How the simulated optimizer's proposals go wrong, each a rate per proposed rule:
 *  - harmfulEditRate: contradict or delete a rule that works;
 *  - irrelevantEditRate: a plausible rule about nothing these jobs need;
 *  - scopeDropRate: the right rule with its job scope dropped, so it applies to every job
 *    ("keep every reply under 500 characters", learned from commit messages);
 *  - wrongLiteralRate: the right topic with the wrong literal (`## Upcoming` for `## Unreleased`);
 *  - hardcodeRate: one train instance's value written as the rule (`(#482)` instead of "the PR number");
 *  - bloatRate: a long paragraph of generic advice (dilutes every other rule);
 *  - catastrophicRate: a rare format rule that wrecks every reply ("reply only with JSON").
 */
export interface HarmRates {
  harmfulEditRate: number;
  irrelevantEditRate: number;
  scopeDropRate?: number;
  wrongLiteralRate?: number;
  hardcodeRate?: number;
  bloatRate?: number;
  catastrophicRate?: number;
}
export type ReflectRates = HarmRates;

/** The bench's noisy optimizer: every kind of harm at a rate a real model plausibly shows. */
export const DEFAULT_HARM: Required<HarmRates> = {
  harmfulEditRate: 0.1,
  irrelevantEditRate: 0.1,
  scopeDropRate: 0.15,
  wrongLiteralRate: 0.1,
  hardcodeRate: 0.15,
  bloatRate: 0.05,
  catastrophicRate: 0.02,
};

const JOB_LABEL: Record<string, string> = {
  changelog: 'changelog entries',
  tests: 'unit tests',
  lint: 'lint fixes',
  release: 'release notes',
  commit: 'commit messages',
  pr: 'PR summaries',
  docs: 'docs',
  bugfix: 'bug fix reports',
};

/**
 * A rule stated for the job it was learned on: "For commit messages: …", unless its first
 * sentence names the job and it has no other sentence (a second sentence, such as the example
 * "Keep it short: at most 300 characters.", would otherwise read as a rule for every reply).
 */
export function scoped(content: string, job: string | null): string {
  if (!job) return content;
  const body = content.replace(/^- /, '');
  const sentences = body.split(/(?<!\b(?:e\.g|i\.e)\.)(?<=[.!?])\s+(?=[A-Z`"'])/);
  if (sentences.length === 1 && jobsNamed(body.replace(/`[^`]*`/g, ' ')).includes(job)) return content;
  return content.replace(/^- /, `- For ${JOB_LABEL[job] ?? job}: `);
}

/** The same rule with its scope dropped: the job's name becomes "every reply". */
export function scopeDropped(content: string): string {
  let t = content.replace(/^- For [^:]+:\s*/, '- ');
  for (const k of JOB_KINDS) t = t.replace(new RegExp(k.names.source, 'gi'), 'replies');
  return t.replace(/^- /, '- In every reply: ');
}

const WRONG_HEADING: Record<string, string> = { unreleased: 'Upcoming', 'root cause': 'Cause', highlights: 'Features', 'breaking changes': 'Breaking', usage: 'How to use', testing: 'Tests', risk: 'Impact', reproduction: 'Steps' };

/** Same topic, wrong literal: a near-miss heading, a bracket style, a 10x limit, a different prefix. */
export function wrongLiteral(content: string): string {
  let changed = false;
  let out = content.replace(/`([^`]+)`/g, (m, lit: string) => {
    if (changed) return m;
    changed = true;
    const h = /^(#+\s*)\[?([^\]]+?)\]?$/.exec(lit);
    if (h && WRONG_HEADING[h[2].toLowerCase()]) return `\`${h[1]}${WRONG_HEADING[h[2].toLowerCase()]}\``;
    if (/\(#\d+\)/.test(lit)) return `\`${lit.replace(/\((#\d+)\)/, '[$1]')}\``;
    if (/^\w+:$/.test(lit)) return `\`${lit[0].toUpperCase()}${lit.slice(1, -1)} -\``;
    if (/Signed-off-by/.test(lit)) return `\`${lit.replace('Signed-off-by', 'Signed by')}\``;
    return `\`${lit.replace(/[A-Za-z]+/, (w) => (w.length > 3 ? w.slice(0, -1) : `${w}s`))}\``;
  });
  if (!changed) out = out.replace(/\b(\d{2,5})\b/, (n) => String(Number(n) * 10));
  return out;
}

/** One train instance's value written as the rule: the example marker dropped, its number fixed. */
export function hardcoded(content: string, instance: Visible): string | null {
  if (!/`[^`]*(#\d+|\d+\.\d+\.\d+)[^`]*`/.test(content)) return null;
  return content
    .replace(/\b(?:For example|e\.g\.|such as|for instance)[:,]?\s*/gi, 'always ')
    .replace(/#\d+/g, `#${instance.pr ?? instance.issue ?? '1'}`)
    .replace(/\d+\.\d+\.\d+/g, instance.version ?? '1.0.0');
}

/**
 * A rule's literals with the values the failing ask states (its PR/issue number, version, function
 * or package) written as placeholders: a check that came from one session says "`(#412)`", and an
 * optimizer reading "…for PR #412" beside it sees that the number is the ask's, not the convention.
 * Only literals (backticks) change, and only values the ask holds.
 */
export function generalized(content: string, instance: Visible): string {
  const esc = (v: string): string => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return content.replace(/`([^`\n]+)`/g, (_, lit: string) => {
    let out = lit;
    for (const n of [instance.pr, instance.issue]) if (n) out = out.replace(new RegExp(`#${n}(?!\\d)`, 'g'), '#<number>');
    if (instance.version) out = out.replace(new RegExp(`\\b(v?)${esc(instance.version)}\\b`, 'g'), (_m, v: string) => `${v}X.Y.Z`);
    if (instance.fn && instance.fn.length >= 3) out = out.replace(new RegExp(`(?<![\\w$])${esc(instance.fn)}(?![\\w$])`, 'g'), '<function>');
    if (instance.pkg && instance.pkg.length >= 3) out = out.replace(new RegExp(`(?<![\\w@/-])${esc(instance.pkg)}(?![\\w-])`, 'g'), '<package>');
    return `\`${out}\``;
  });
}

const BLOAT =
  '- General advice: read the surrounding code carefully, consider edge cases, think about maintainability and readability, prefer clarity over cleverness, ' +
  'be consistent with the conventions already present in the repository, keep the user informed about trade-offs, consider performance where it matters, ' +
  'document non-obvious decisions, keep changes small and reviewable, avoid introducing new dependencies without a reason, respect the existing architecture, ' +
  'write code that is easy to delete, favour composition, handle errors explicitly, log what an operator would need, and leave the code better than you found it.';

const CATASTROPHIC = '- Reply only with JSON: a single object with the result and nothing else.';

const OPENERS = ['Always', 'Make sure to', 'Remember to', 'Be sure to', ''];

/** Guidance that sounds reasonable but is about nothing these tasks check. */
export const IRRELEVANT_GUIDANCE = [
  'Prefer tabs over spaces when editing YAML files.',
  'Greet the user warmly before answering.',
  'Use British spelling in prose and comments.',
  'Mention the operating system you assume.',
  'Favour functional programming idioms over classes.',
  'Keep Dockerfiles minimal with multi-stage builds.',
  'Quote the relevant documentation page when unsure.',
  'Prefer descriptive variable names over abbreviations.',
  'Wrap prose at eighty columns.',
  'Use a friendly, upbeat tone with the user.',
];

function lowerFirst(s: string): string {
  return s ? s[0].toLowerCase() + s.slice(1) : s;
}

const IRREGULAR: Record<string, string> = { has: 'have', does: 'do', is: 'be', goes: 'go' };

/**
 * Check descriptions read "has a heading", "links the PR", "It respects …", "The response fully
 * does …"; guidance reads "have…", "link…", "Respect …", "Fully do …".
 */
export function imperative(statement: string): string {
  // "PR descriptions need a Testing heading" (a statement about the artifact): "Add a Testing heading to PR descriptions"
  const needs = /^((?:PR|[A-Z][a-z]+)(?: [a-z]+){0,2}) (?:needs?|should have|must have|should include|must include) (.+?)\.?$/s.exec(statement);
  const artifact = (subj: string): string => (/^[A-Z]{2}/.test(subj) ? subj : lowerFirst(subj));
  if (needs && !/^(?:It|The|This|That|They|You|We|I)$/.test(needs[1].split(' ')[0])) return `Add ${needs[2]} to ${artifact(needs[1])}.`;
  // "Release notes can be longer now: at least 1000 characters": "Make release notes at least 1000 characters"
  const be = /^((?:PR|[A-Z][a-z]+)(?: [a-z]+){0,2}) (?:can|should|must|need to) be (?:(?:a bit |much )?(?:longer|shorter|more detailed)(?: now)?:\s*)?(.+?)\.?$/s.exec(statement);
  if (be && !/^(?:It|The|This|That|They|You|We|I)$/.test(be[1].split(' ')[0])) return `Make ${artifact(be[1])} ${be[2]}.`;
  const subject = /^(?:It|The (?:response|reply|answer|agent)) ((?:[a-z]+ly )?[a-z]+s\b.*)$/s.exec(statement);
  if (subject) return imperative(subject[1][0].toUpperCase() + subject[1].slice(1));
  const m = /^((?:[A-Za-z]+ly |[Aa]lways |[Nn]ever )?)([A-Za-z]+)(\b.*)$/s.exec(statement);
  if (!m) return statement;
  const [, adverb, verb, rest] = m;
  const word = verb.toLowerCase();
  let base: string | undefined = IRREGULAR[word];
  if (!base && /[^aeiou]ies$/.test(word)) base = word.slice(0, -3) + 'y';
  else if (!base && /(ss|sh|ch|x|z)es$/.test(word)) base = word.slice(0, -2);
  else if (!base && /[^su]s$/.test(word) && word.length > 3 && !/^(always|towards|perhaps|unless)$/.test(word)) base = word.slice(0, -1);
  if (!base) return statement;
  const cased = !adverb && verb[0] === verb[0].toUpperCase() ? base[0].toUpperCase() + base.slice(1) : base;
  return adverb + cased + rest;
}

/** The issue restated in new words (same meaning), with its concrete example when it has one. */
export function phraseGuidance(issue: Pick<Issue, 'statement' | 'example' | 'negative'>, rng: Rng, withStatement = true): string {
  const parts: string[] = [];
  if (withStatement) {
    const reworded = imperative(paraphrase(issue.statement, rng));
    const opener = issue.negative || /^(never|do not|don't|avoid|always)\b/i.test(reworded) ? '' : rng.pick(OPENERS);
    parts.push(opener ? `${opener} ${lowerFirst(reworded)}` : reworded);
  }
  // a statement that already carries its literal needs no second example (it only adds length)
  if (issue.example && !(withStatement && /`[^`]+`/.test(issue.statement))) parts.push(issue.example);
  return `- ${parts.join(' ')}`;
}

/** The same requirement turned against itself: the kind of edit that lowers compliance. */
export function contradict(statement: string): string {
  const negated = isNegated(statement);
  if (negated) {
    const freed = statement.replace(/\b(never|not|no|don't|do not|avoid|without|omit|skip)\s+/gi, '').trim();
    return `- It is fine to ${lowerFirst(freed)}`;
  }
  return `- Do not ${lowerFirst(statement.replace(/^(always|make sure to|remember to|be sure to)\s+/i, ''))}`;
}

/**
 * An edit repeats a rejected one when every rule sentence in it already appears, with the same
 * polarity and nearly the same concepts, in some rejected edit (rejected edits may bundle rules),
 * or when the edit as a whole says nearly what a rejected edit said (a rejected rule re-bundled
 * with a small addition is still that rule).
 */
function similarToRejected(content: string, rejected: RejectedEditDigest[]): boolean {
  const mine = guidanceLines(content);
  if (mine.length === 0 || rejected.length === 0) return false;
  const whole = concepts(content);
  if (rejected.some((r) => jaccard(whole, concepts(r.content || '')) >= 0.8)) return true;
  const theirs = rejected.flatMap((r) => guidanceLines(r.content || ''));
  return mine.every((m) => theirs.some((t) => t.negated === m.negated && jaccard(m.concepts, t.concepts) >= 0.8));
}

function alreadyCovered(skill: string, issue: Issue): boolean {
  // a rule on the topic with another literal does not cover it: the replies keep failing
  const literal = /`([^`]+)`/.exec(issue.example ?? '')?.[1];
  if (literal && !/\d/.test(literal) && !skill.includes(literal)) return false;
  const req = requirementOfText(issue.key, `${issue.statement} ${issue.example ?? ''}`, '');
  return guidanceLines(skill).some((l) => l.negated === req.negative && addressStrength(req, l) >= 1);
}

/** A skill line that contradicts this issue (opposite polarity, same subject), if any. */
function contradictingLine(skill: string, issue: Issue): string | null {
  const req = requirementOfText(issue.key, `${issue.statement} ${issue.example ?? ''}`, '');
  for (const raw of unprotectedLines(skill)) {
    // a heading names a job; it never says the opposite of a rule (replacing it would drop the section)
    if (/^\s*#{1,6}\s/.test(raw)) continue;
    const lines = guidanceLines(raw);
    if (lines.some((l) => l.negated !== issue.negative && addressStrength(req, l) >= 0.5)) return raw;
  }
  return null;
}

/**
 * A rule the skill states with another spelling of the value the user keeps now (`## Unreleased`
 * where every recent commit keeps `## [Unreleased]`): the induced rule rewrites that line, as an
 * optimizer that reads the dates does, instead of leaving both for the target to choose between.
 */
function respelledLine(skill: string, statement: string): string | null {
  for (const raw of unprotectedLines(skill)) {
    if (/^\s*#{1,6}\s/.test(raw)) continue;
    if (respelled(raw, statement)) return raw;
  }
  return null;
}

function successEdits(payload: ReflectPayload, rng: Rng): Edit[] {
  const counts = new Map<string, string[]>();
  for (const r of payload.rollouts) {
    for (const h of new Set(parseHeadings(r.response).map((x) => x.text))) {
      const ids = counts.get(h) ?? [];
      ids.push(r.taskId);
      counts.set(h, ids);
    }
  }
  const need = Math.min(2, payload.rollouts.length);
  const skillConcepts = concepts(payload.skill);
  const edits: Edit[] = [];
  for (const [heading, ids] of [...counts].sort((a, b) => b[1].length - a[1].length)) {
    if (ids.length < need || edits.length >= Math.max(1, Math.floor(payload.maxEdits / 2))) continue;
    const hc = concepts(heading);
    if (hc.size === 0 || [...hc].every((c) => skillConcepts.has(c))) continue;
    const content = `- ${rng.pick(['Keep', 'Include', 'Add'])} a \`## ${heading}\` section: the replies that passed had one.`;
    if (similarToRejected(content, payload.rejectedEdits)) continue;
    edits.push({ op: 'add', content, rationale: `${ids.length} successful replies share the "${heading}" section`, evidence: ids });
  }
  return edits;
}

export function reflect(payload: ReflectPayload, rates: ReflectRates, rng: Rng): Edit[] {
  const maxEdits = Math.max(0, Math.floor(payload.maxEdits));
  if (maxEdits === 0) return [];
  if (payload.mode === 'successes') return successEdits(payload, rng).slice(0, maxEdits);

  // what the kept versions and the failed commands show (issue 41), before what the feedback says
  const induced: ReflectIssue[] = induceFromOutcomes(payload.rollouts).map((r) => ({ key: r.key, statement: r.rule, example: null, negative: /^Never\b/.test(r.rule), taskIds: r.taskIds, verbatim: true, basis: r.basis }));
  // a complaint the user typed, quoted beside a failure, is restated as the rule it carried (or dropped)
  // (a judge's provenance, "(kept in 12 of 14 versions; …)", is the rule's evidence, not its words)
  const restated = collectIssues(payload.rollouts, rng).flatMap((i): ReflectIssue[] => {
    const statement = foldExample(commandRule(withoutProvenance(i.statement)));
    if (!statement) return [];
    if (!complaintIn(statement)) return [{ ...i, statement }];
    const rule = ruleOfComplaint(statement);
    return rule ? [{ ...i, statement: rule }] : [];
  });
  // a check made from what the user said before they changed their mind is stale: the dates beside it say so
  const all: ReflectIssue[] = [...induced, ...restated.filter((i) => !supersededIn(i.statement, payload.rollouts))];
  const covered = (i: ReflectIssue): boolean => (i.verbatim ? inducedCovered(payload.skill, i) : alreadyCovered(payload.skill, i));
  const issues = all.filter((i) => !covered(i));
  const intentOf = new Map(payload.rollouts.map((r) => [r.taskId, r.intent]));
  // a rule the skill states that the attempts keep failing is rewritten, not stated again
  const seen = readReplies(payload);
  const failingReplies = seen.failingReplies;
  const rewrites = rewriteEdits(payload.skill, all.filter(covered), maxEdits, seen);
  // a model states each rule once: a second issue whose literal an earlier one already carries is the same rule
  const stated = new Set<string>();
  const filled = new Set<string>();
  const rate = (k: keyof HarmRates): number => rates[k] ?? 0;
  // what is missing comes first; rewording what the skill states follows (on a tie the merge keeps this order)
  const edits: Edit[] = [];
  const usedBad = new Set<string>();
  // an edit related rules join: where it writes (its job's section heading, or null) and how a rule is put in
  const bundles: Array<{ edit: Edit; size: number; where: string | null; put: (content: string) => void }> = [];
  for (const issue of issues) {
    if (edits.length + rewrites.length >= maxEdits) break;
    const rationale = issue.basis ? `${issue.taskIds.length} failing rollout(s); what you kept shows it: ${issue.basis}` : `${issue.taskIds.length} failing rollout(s): ${issue.statement}`;
    const roll = rng.next();
    if (roll < rates.harmfulEditRate) {
      // a few tries, so two harmful edits of one reply do not pick the same victim
      const harmful = [0, 1, 2]
        .map(() => harmfulEdit(payload, issue, rng, rationale))
        .find((h) => h && !usedBad.has(h.content + h.anchor) && !similarToRejected(h.content || h.anchor || '', payload.rejectedEdits));
      if (harmful) {
        usedBad.add(harmful.content + harmful.anchor);
        edits.push(harmful);
        continue;
      }
    } else if (roll < rates.harmfulEditRate + rates.irrelevantEditRate + rate('bloatRate') + rate('catastrophicRate') && roll >= rates.harmfulEditRate + rates.irrelevantEditRate) {
      const content = roll < rates.harmfulEditRate + rates.irrelevantEditRate + rate('bloatRate') ? BLOAT : CATASTROPHIC;
      if (!usedBad.has(content) && !payload.skill.includes(content.slice(2, 40)) && !similarToRejected(content, payload.rejectedEdits)) {
        usedBad.add(content);
        edits.push({ op: 'add', content, rationale, evidence: issue.taskIds.slice(0, 1) });
        continue;
      }
    } else if (roll < rates.harmfulEditRate + rates.irrelevantEditRate) {
      const fresh = IRRELEVANT_GUIDANCE.map((g) => `- ${g}`).filter(
        (g) => !usedBad.has(g) && !payload.skill.includes(g.slice(2)) && !similarToRejected(g, payload.rejectedEdits),
      );
      const content = fresh.length ? rng.pick(fresh) : null;
      if (content) {
        usedBad.add(content);
        edits.push({ op: 'add', content, rationale, evidence: issue.taskIds.slice(0, 1) });
        continue;
      }
    }
    // the helpful edit; if its wording was rejected before, try the concrete example alone
    const literal = literalOf(issue);
    if (literal && stated.has(literal)) continue;
    if (literal) stated.add(literal);
    let content = issue.verbatim ? `- ${issue.statement}` : phraseGuidance(issue, rng);
    if (issue.verbatim && similarToRejected(content, payload.rejectedEdits)) continue;
    if (similarToRejected(content, payload.rejectedEdits)) {
      if (!issue.example) continue;
      content = phraseGuidance(issue, rng, false);
      if (similarToRejected(content, payload.rejectedEdits)) continue;
    }
    const intent = intentOf.get(issue.taskIds[0]) ?? '';
    const job = jobOfAsk(intent);
    if (rng.chance(rate('wrongLiteralRate'))) content = wrongLiteral(content);
    // hard-coding one instance's value is a harm with its own rate; otherwise the optimizer, which
    // sees the failing ask beside the check, writes a value the ask itself holds as a placeholder
    if (rng.chance(rate('hardcodeRate'))) content = hardcoded(content, visibleValues(intent, '')) ?? content;
    else content = generalized(content, visibleValues(intent, ''));
    // a rule for one job goes first in that job's section when the skill has one (no scope label
    // needed there); a dropped scope (a harm) lands among the rules for every job
    // one value per slot in one reply: a later issue for a slot this batch already fills (the
    // rule induced from what the user kept comes first) is the same rule said another way, and a
    // rule a stated line spells out in full adds nothing
    const slots = slotsOf(content).map((x) => `${job}:${x.slot}`);
    if (slots.some((k) => filled.has(k)) || statedMoreFully(payload.skill, content)) continue;
    for (const k of slots) filled.add(k);
    const dropped = rng.chance(rate('scopeDropRate'));
    const section = dropped ? null : sectionHeadingFor(payload.skill, job);
    content = dropped ? scopeDropped(content) : section ? content : scoped(content, job);
    const against = respelledLine(payload.skill, issue.statement) ?? contradictingLine(payload.skill, issue);
    if (against) {
      edits.push({ op: 'replace', anchor: against, content, rationale: `${rationale} (the skill says the opposite)`, evidence: issue.taskIds });
      continue;
    }
    // a stated clause that fills the same slot with the value the failing replies show is replaced
    // by this rule, not left beside it for the target to choose between
    const rivals = dropped ? [] : findRivals(payload.skill, content, job, failingReplies(job));
    const rewrite = rivals.length ? sectionRewrite(payload.skill, content, rivals.map((r) => ({ line: r.line, becomes: rivalBecomes(r) }))) : null;
    if (rewrite) {
      const edit: Edit = { op: 'replace', anchor: rewrite.anchor, content: rewrite.content, rationale: `${rationale} (${rivals.map((r) => r.why).join('; ')}: that goes, this rule leads its section)`, evidence: [...issue.taskIds] };
      // related rules for this section join it, right after the rule that leads
      bundles.push({ edit, size: 1, where: section, put: (more) => (edit.content = edit.content.replace(/^([^\n]*)/, `$1\n${more}`)) });
      edits.push(edit);
      continue;
    }
    // a vague line that says this rule without its value (a complaint, no literal) is replaced by it, at the top of its section
    const vague = dropped ? null : coveringLine(payload.skill, issue);
    // a line that says more than this rule (other headings, other values) would lose them: left alone
    if (vague && (complaintIn(vague) !== null || !/`[^`]+`/.test(vague)) && saysMoreThan(vague, content)) continue;
    const redundant = vague && (complaintIn(vague) !== null || !/`[^`]+`/.test(vague)) ? sectionRewrite(payload.skill, content, [{ line: vague, becomes: null }]) : null;
    if (redundant) {
      edits.push({ op: 'replace', anchor: redundant.anchor, content: redundant.content, rationale: `${rationale} (the skill says it without its value: "${vague!.trim()}"; rewritten more specific and moved up)`, evidence: [...issue.taskIds] });
      continue;
    }
    // like a real optimizer, state related rules (failing on the same tasks) in one edit: one bullet
    // each under a job's heading; in a skill with no section for the job, one bullet, as before (one
    // bullet per rule there lowered training from empty: persona seeds 11-18, 0.662 against 0.690)
    const bundle = bundles.find((b) => b.size < MAX_RULES_PER_EDIT && b.where === section && jaccard(new Set(b.edit.evidence), new Set(issue.taskIds)) >= 0.5);
    if (bundle) {
      if (bundle.edit.content.split('\n').includes(content) || bundle.edit.content.includes(content.replace(/^- /, ''))) continue;
      bundle.put(content);
      bundle.edit.rationale = `${bundle.edit.rationale}; ${issue.statement}`;
      bundle.edit.evidence = [...new Set([...bundle.edit.evidence, ...issue.taskIds])];
      bundle.size++;
      continue;
    }
    const edit: Edit = { op: 'add', ...(section ? { anchor: section } : {}), content, rationale, evidence: [...issue.taskIds] };
    bundles.push({ edit, size: 1, where: section, put: (more) => (edit.content = section ? `${edit.content}\n${more}` : `${edit.content} ${more.replace(/^- /, '')}`) });
    edits.push(edit);
  }
  return [...edits, ...rewrites];
}

const MAX_RULES_PER_EDIT = 3;

/**
 * Whether the value a statement quotes (`## Unreleased`) is one the user since changed: the newest
 * dated text in front of the optimizer that spells it another way (a correction "use `## [Unreleased]`
 * with the brackets from now on", a kept version's heading) is newer than the newest that spells it
 * this way. A model reading the quoted corrections and the kept versions with their dates sees which
 * spelling is current; a check mined from an older session still asks for the old one.
 */
export function supersededIn(statement: string, rollouts: ReflectPayload['rollouts']): boolean {
  const lit = /`([^`]+)`/.exec(statement)?.[1]?.trim();
  if (!lit) return false;
  let same = -Infinity;
  let other = -Infinity;
  const see = (text: string, at: number) => {
    if (text.toLowerCase().includes(lit.toLowerCase())) same = Math.max(same, at);
    else if (respelled(`\`${lit}\``, text)) other = Math.max(other, at);
  };
  for (const r of rollouts) {
    for (const c of r.corrections ?? []) if (c.at !== null) see(c.text, c.at);
    // a kept version's lines, each read as the value it writes
    for (const k of r.kept ?? []) for (const line of k.kept.split(/\r?\n/)) if (line.trim()) see(`\`${line.trim()}\``, k.at);
  }
  return other > same;
}

/**
 * A rule with its example: "…, e.g. `x`." — or, when the example states the rule's own literal in
 * full (`Refs:` → `Refs: #<number>`), the rule with that literal written in full, as a careful
 * rewrite says it once ("End the commit message with a `Refs: #<number>` footer line.").
 */
export function withExample(rule: string, example: string): string {
  const lit = /`([^`]+)`/.exec(rule)?.[1];
  const ex = /^`([^`]+)`$/.exec(example.trim())?.[1];
  if (lit && ex && ex.startsWith(lit)) return `${ex === lit ? rule : rule.replace(`\`${lit}\``, `\`${ex}\``)}.`;
  return `${rule}, e.g. ${example}.`;
}

/**
 * "End it with a `Refs:` trailer line, e.g. `Refs: #350`": the example states the rule's literal in
 * full, with one commit's number. A careful rewrite says the literal once, in full, with the number
 * as a placeholder ("End it with a `Refs: #<number>` trailer line."), so a reader does not take the
 * bare `Refs:` for the whole trailer. Any other statement is returned as it is.
 */
export function foldExample(statement: string): string {
  const m = /^(.*?`([^`]+)`.*?),?\s*\b(?:e\.g\.|for example|such as|like)[:,]?\s*`([^`]+)`\s*\.?$/i.exec(statement.trim());
  if (!m) return statement;
  const [, head, lit, ex] = m;
  if (ex === lit || !ex.startsWith(lit)) return statement;
  const full = ex.replace(/#\d+\b/g, '#<number>').replace(/\bv?\d+\.\d+\.\d+\b/g, (v) => (v.startsWith('v') ? 'vX.Y.Z' : 'X.Y.Z'));
  return `${head.replace(`\`${lit}\``, `\`${full}\``).replace(/[\s,;:]+$/, '')}.`;
}

/** A line states values (headings, literals, bounds) the rule does not: replacing it by the rule would lose them. */
export function saysMoreThan(line: string, rule: string): boolean {
  const mine = operativeValues(rule);
  return [...operativeValues(line)].some((v) => !mine.has(v));
}

/**
 * A statement without the judge's provenance ("… (kept in 12 of 14 versions; the agent's drafts
 * lacked it)"): that is the rule's evidence, which goes in the rationale. A sentence the prompt's
 * clip cut inside a literal (an odd number of backticks) is dropped: a model does not copy a
 * half-written command. Empty when nothing whole is left.
 */
export function withoutProvenance(statement: string): string {
  let t = statement.replace(/\s*\((?:kept in|the user (?:deleted|removed|took out)|the agent(?:'s)? |(?:which )?failed in \d+ sessions?)[^)]*(?:\)|$)/gi, '').trim();
  const ticks = (x: string) => (x.match(/`/g) ?? []).length;
  while (ticks(t) % 2 === 1) {
    const cut = t.lastIndexOf('`');
    const start = Math.max(t.lastIndexOf('. ', cut), t.lastIndexOf('; ', cut));
    t = start < 0 ? '' : t.slice(0, start + 1).trim();
  }
  t = t.replace(/[\s;,:]+$/, '');
  if (!t) return '';
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/**
 * "Execute the tests with `pnpm vitest run`, not `npm test`" says what to run and, in the same
 * breath, a "not" that reads as a prohibition: a model states the command to run and names the
 * one that fails beside it, as the rules it induces from procedures do.
 */
export function commandRule(statement: string): string {
  const m = /^(?:Execute|Run|Use|Invoke) (the [a-z ]+?) (?:with|using|via) `([^`]+)`,? (?:not|instead of|rather than) `([^`]+)`\.?$/i.exec(statement);
  return m ? `Run ${m[1]} with \`${m[2]}\`; \`${m[3]}\` fails here.` : statement;
}

/** The literal an issue's rule turns on (its statement's first, else its example's), lower-cased; null when it has none. */
function literalOf(issue: ReflectIssue): string | null {
  const lit = /`([^`]+)`/.exec(issue.statement)?.[1] ?? /`([^`]+)`/.exec(issue.example ?? '')?.[1];
  return lit ? lit.trim().toLowerCase() : null;
}

/** Lines outside `<!-- …:start -->` … `<!-- …:end -->` blocks (protected regions are not edited). */
function unprotectedLines(skill: string): string[] {
  const out: string[] = [];
  let depth = 0;
  for (const line of skill.split(/\r?\n/)) {
    if (/<!--\s*[\w:-]*:start\s*-->/.test(line)) depth++;
    else if (/<!--\s*[\w:-]*:end\s*-->/.test(line)) depth = Math.max(0, depth - 1);
    else if (depth === 0) out.push(line);
  }
  return out;
}

/**
 * Harm hits what already works: deleting a useful rule, or adding a line that contradicts one the
 * skill follows (an over-generalisation). With no rules yet, it contradicts the failing issue.
 */
function harmfulEdit(payload: ReflectPayload, issue: Issue, rng: Rng, rationale: string): Edit | null {
  const ruleLines = unprotectedLines(payload.skill).filter((l) => /^\s*[-*]\s+\S/.test(l) && concepts(l).size >= 2 && !/^\s*[-*]\s+(Do not|It is fine to)\b/.test(l));
  if (ruleLines.length > 0) {
    const victim = rng.pick(ruleLines);
    if (rng.chance(0.5)) return { op: 'delete', anchor: victim, content: '', rationale: `${rationale}; this rule looks redundant`, evidence: issue.taskIds };
    const firstSentence = victim.replace(/^\s*[-*]\s+/, '').split(/(?<=[.!?])\s+(?=[A-Z])/)[0];
    return { op: 'add', content: contradict(firstSentence), rationale: `${rationale}; the rule above is too strict`, evidence: issue.taskIds };
  }
  return { op: 'add', content: contradict(issue.statement), rationale, evidence: issue.taskIds };
}

/** An induced rule is stated when the skill holds its literal (or, with none, says the same by meaning). */
function inducedCovered(skill: string, issue: ReflectIssue): boolean {
  const literal = /`([^`]+)`/.exec(issue.statement)?.[1];
  // a rule whose literal is an example ("e.g. `feat(cli): `") is stated when the skill says the same with another example
  if (/\be\.g\.|\bsuch as\b/.test(issue.statement) && unprotectedLines(skill).some((l) => withExamplesOut(l) === withExamplesOut(issue.statement))) return true;
  if (literal) return skill.toLowerCase().includes(literal.trim().toLowerCase());
  return alreadyCovered(skill, issue);
}

/** The skill's line that states this issue's rule, if any (same polarity, full strength, or its literal). */
function coveringLine(skill: string, issue: ReflectIssue): string | null {
  const literal = /`([^`]+)`/.exec(issue.verbatim ? issue.statement : (issue.example ?? ''))?.[1]?.trim().toLowerCase();
  const req = requirementOfText(issue.key, `${issue.statement} ${issue.example ?? ''}`, '');
  for (const raw of unprotectedLines(skill)) {
    if (!/^\s*[-*+]\s+\S/.test(raw)) continue;
    if (literal && raw.toLowerCase().includes(literal)) return raw;
    if (guidanceLines(raw).some((l) => l.negated === issue.negative && addressStrength(req, l) >= 1)) return raw;
  }
  return null;
}

/**
 * Where the attempts keep failing a rule the skill already states, a model rewrites that rule
 * rather than adding another: a complaint becomes the precise imperative, a rule without its
 * literal gets one with an example, and the rewritten rule moves to the top of its section. A
 * stated clause that fills the rule's slot with the value the failing replies show (a rival) leaves
 * its line. A rule already precise with no rival is left alone (a lapse, not a defect).
 */
function rewriteEdits(skill: string, stated: ReflectIssue[], maxEdits: number, seen: SeenReplies): Edit[] {
  const out: Edit[] = [];
  const done = new Set<string>();
  for (const issue of stated) {
    if (out.length >= Math.max(1, Math.floor(maxEdits / 2))) break;
    const line = coveringLine(skill, issue);
    if (!line || done.has(line)) continue;
    const text = line.replace(/^\s*[-*+]\s+/, '').trim();
    // the example with the failing ask's own values as placeholders, as in a new rule
    const example = /`[^`]+`/.exec(generalized(issue.example ?? '', visibleValues(seen.intentOf(issue.taskIds[0] ?? ''), '')))?.[0];
    const precise = issue.verbatim ? issue.statement : example ? withExample(imperative(issue.statement.replace(/[.\s]*$/, '')), example) : null;
    const job = seen.jobOf(issue.taskIds[0] ?? '');
    const rivals = findRivals(skill, precise ?? text, job, seen.failingReplies(job)).filter((r) => r.line !== line && !done.has(r.line));
    if (rivals.length) {
      // the covering line keeps the rule only when it holds the rule's value; else the precise rule replaces it too, first in its section
      const value = /`([^`]+)`/.exec(precise ?? '')?.[1]?.trim().toLowerCase();
      const holds = !value || text.toLowerCase().includes(value);
      if (!holds && !precise) continue;
      for (const r of rivals) done.add(r.line);
      done.add(line);
      const changes = rivals.map((x) => ({ line: x.line, becomes: rivalBecomes(x) }));
      const r = sectionRewrite(skill, holds ? null : `${/^\s*[-*+]\s+/.exec(line)![0]}${precise}`, holds ? changes : [{ line, becomes: null }, ...changes]);
      if (r) out.push({ op: 'replace', anchor: r.anchor, content: r.content, rationale: `${issue.taskIds.length} failing rollout(s) although the skill states this rule: ${rivals.map((x) => x.why).join('; ')}; that goes`, evidence: [...issue.taskIds] });
      continue;
    }
    if (!precise || normalizeLine(precise) === normalizeLine(text)) continue;
    // vague: a complaint, no literal, or a statement about the artifact rather than an instruction ("Release notes need …")
    const vague = complaintIn(text) !== null || !/`[^`]+`/.test(text) || imperative(text) !== text;
    // a line that says more than this rule (another heading, another value) would lose it: left alone
    const mine = operativeValues(precise);
    const saysMore = [...operativeValues(text)].some((v) => !mine.has(v)) || /;\s|(?<=[.!?])\s+[A-Z]|, then\b/.test(text);
    if (!vague || saysMore) continue;
    done.add(line);
    const bullet = /^\s*[-*+]\s+/.exec(line)![0];
    const moved = sectionRewrite(skill, `${bullet}${precise}`, [{ line, becomes: null }]);
    const edit: Edit = moved ? { op: 'replace', anchor: moved.anchor, content: moved.content, rationale: '', evidence: [] } : { op: 'replace', anchor: text, content: precise, rationale: '', evidence: [] };
    out.push({ ...edit, rationale: `${issue.taskIds.length} failing rollout(s) although the skill states this rule; rewritten more specific, with an example, and moved to the top of its section`, evidence: [...issue.taskIds] });
  }
  return out;
}

/** What the prompt shows of the attempts: each task's job (from its ask) and the failing replies per job. */
interface SeenReplies {
  jobOf(taskId: string): string | null;
  intentOf(taskId: string): string;
  failingReplies(job: string | null): string[];
}

function readReplies(payload: ReflectPayload): SeenReplies {
  const jobs = new Map(payload.rollouts.map((r) => [r.taskId, jobOfAsk(r.intent)]));
  const intents = new Map(payload.rollouts.map((r) => [r.taskId, r.intent]));
  return {
    jobOf: (taskId) => jobs.get(taskId) ?? null,
    intentOf: (taskId) => intents.get(taskId) ?? '',
    failingReplies: (job) => payload.rollouts.filter((r) => !r.passed && jobs.get(r.taskId) === job).map((r) => r.response),
  };
}

const withExamplesOut = (s: string): string => normalizeLine(s.replace(/^\s*[-*+]\s+/, '').replace(/`[^`]*`/g, ' x '));

const normalizeLine = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * Skill-aware labels, as an analyst reading the skill would give them: a failure whose every
 * issue the skill already states is an execution lapse; one the skill does not cover is a defect.
 */
export function labelFailures(payload: ReflectPayload, _rng?: Rng): FailureLabel[] {
  if (payload.mode !== 'failures') return [];
  return payload.rollouts
    .filter((r) => !r.passed)
    .map((r) => {
      const induced: ReflectIssue[] = induceFromOutcomes([r]).map((x) => ({ key: x.key, statement: x.rule, example: null, negative: /^Never\b/.test(x.rule), taskIds: x.taskIds, verbatim: true }));
      const issues: ReflectIssue[] = [...induced, ...collectIssues([r])];
      const covered = issues.every((i) => (i.verbatim ? inducedCovered(payload.skill, i) : alreadyCovered(payload.skill, i)));
      // a stated rule worded so the agent misses it is the skill's defect: it gets rewritten
      const lapse = issues.length > 0 && covered && rewriteEdits(payload.skill, issues, Number.MAX_SAFE_INTEGER, readReplies(payload)).length === 0;
      return { taskId: r.taskId, kind: lapse ? ('lapse' as const) : ('defect' as const), why: lapse ? 'the skill already states every missed rule' : 'the skill lacks a rule for what was missed' };
    });
}

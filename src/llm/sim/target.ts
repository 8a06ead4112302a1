/**
 * The simulated target agent (`perform`). It sees what a model sees in the rendered prompt — the
 * skill text, the ask and its context — and nothing of the judge. It starts from the habits an
 * untrained model has for the job (jobs.ts), then follows the rules the skill states for this job
 * (skill-rules.ts): every operative value comes from the rule's own words. Each rule is followed
 * with a probability that falls as the skill grows (dilution); rules competing for one slot
 * resolve like a model would (one wins, or neither). Draws are independent per evaluated skill
 * unless the caller asks for paired draws (common random numbers across skills).
 */
import type { PerformPayload } from '../../core/protocol.js';
import { Rng, hashHex, hashUnit } from './rng.js';
import { habitCommands, habitsFor, jobOfAsk, visibleValues, type Habit, type Visible } from './jobs.js';
import { conflicts, parseSkill, type Directive, type SkillRule } from './skill-rules.js';
import { concepts, overlap } from './semantics.js';

export interface PerformResult {
  text: string;
  toolsCalled: string[];
  /** the shell commands the target ran, in order: the job's habit, or the one a `command` rule names */
  commandsRun: string[];
  /** per directive applied: probability used and outcome (for tests and diagnostics) */
  trace: Array<{ rule: string; kind: Directive['kind']; p: number; followed: boolean }>;
}

export interface PerformOptions {
  /** same draws for the same instance whatever the skill (common random numbers) */
  pairedDraws?: boolean;
  /** how reliably rules are followed, by wording (default DEFAULT_COMPLIANCE) */
  compliance?: Partial<ComplianceKnobs>;
}

/**
 * How reliably the target follows a rule, by how it is worded (issue 41). Every value is an
 * ASSUMPTION, not a measurement: the issue reports a real target following stated rules at
 * p ≈ 0.95–0.97 whatever their wording (its bench); the paper's optimizer gains and everyday
 * prompting experience say that a precise imperative with an example is followed more reliably
 * than a pasted complaint, which these values make explicit so the bench can vary them.
 */
export interface ComplianceKnobs {
  /** an imperative rule that carries its literal ("Start the subject with `fix(<scope>): `, e.g. …"): the reported 0.95 */
  precise: number;
  /** a plain statement of the rule ("release notes must be at least 500 characters", "avoid emojis"): in between */
  plain: number;
  /** a complaint pasted as a rule ("way too long - keep it under 500 characters"): followed least */
  complaint: number;
  /** each extra copy of one directive (said twice) costs the copies this much: a repeated rule reads as noise, not emphasis */
  duplicateCost: number;
  /** rules that compete for one slot (a contradiction): the share of draws where the model follows neither */
  contradictionNeither: number;
}

/**
 * plain 0.9 rather than lower: at 0.85 the demo's scenario (plain corrections) no longer fits its
 * default 400-call night (noisier replies, more gate rounds), which says how much a wording effect
 * alone moves a night; 0.9 keeps it in between without making the demo a budget test.
 */
export const DEFAULT_COMPLIANCE: ComplianceKnobs = { precise: 0.95, plain: 0.9, complaint: 0.6, duplicateCost: 0.1, contradictionNeither: 0.1 };

/** Compliance per rule: full up to ~150 words of skill, then falling to 60% at ~1500 words. */
export function dilution(words: number): number {
  return 1 - 0.4 * Math.min(1, Math.max(0, words - 150) / 1350);
}

/** Rubric criteria split into items (bullets, numbered items or sentences); the sim judge uses it. */
export function rubricCriteria(rubric: string): string[] {
  const lines = rubric
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);
  return lines.flatMap((l) => l.split(/(?<=[.;!?])\s+(?=[A-Z])/)).map((s) => s.trim()).filter((s) => s.length > 2);
}

/** Instance values replace placeholders and example values in a rule's literal. */
export function fillLiteral(text: string, v: Visible, example: boolean): string {
  let t = text
    .replace(/\bv?X\.Y\.Z\b/g, (m) => (v.version ? `${m.startsWith('v') ? 'v' : ''}${v.version}` : m))
    .replace(/<(?:function|fn|name of the function)>/gi, v.fn ?? 'fn')
    .replace(/<(?:package|pkg)>/gi, v.pkg ?? 'pkg')
    .replace(/\bName <email>/g, v.author && v.email ? `${v.author} <${v.email}>` : 'Name <email>')
    .replace(/#<issue>/gi, `#${v.issue ?? v.pr ?? '1'}`)
    .replace(/#<(?:number|pr)>/gi, `#${v.pr ?? v.issue ?? '1'}`);
  if (example) {
    t = t.replace(/#\d+/g, `#${v.pr ?? v.issue ?? '1'}`).replace(/\bv?\d+\.\d+\.\d+\b/g, (m) => (v.version ? `${m.startsWith('v') ? 'v' : ''}${v.version}` : m));
  }
  return t;
}

interface Applied {
  rule: SkillRule;
  d: Directive;
}

function applies(rule: SkillRule, job: string | null): boolean {
  return rule.scope === null || (job !== null && rule.scope.includes(job));
}

const EMOJI = /\p{Extended_Pictographic}/gu;

export function perform(payload: PerformPayload, seed: number, opts: PerformOptions = {}): PerformResult {
  const { intent, context, skill, sample } = payload;
  const job = jobOfAsk(intent);
  const visible = visibleValues(intent, context);
  const { rules, words } = parseSkill(skill.content);
  const instance = hashHex(intent, context);
  const draws = opts.pairedDraws ? '' : hashHex(skill.content);
  const unit = (...parts: Array<string | number>): number => hashUnit(seed, 'perform', instance, sample, draws, ...parts);
  const k = { ...DEFAULT_COMPLIANCE, ...opts.compliance };
  const dilute = dilution(words);
  const trace: PerformResult['trace'] = [];

  // one directive said in several rules is one intention, drawn once, at a cost per extra copy
  const copies = new Map<string, number>();
  for (const rule of rules) if (applies(rule, job)) for (const d of rule.directives) copies.set(directiveKey(d), (copies.get(directiveKey(d)) ?? 0) + 1);
  const drawn = new Set<string>();
  // every directive the model means to follow for this job, then competing ones resolved
  const wanted: Applied[] = [];
  rules.forEach((rule, ri) => {
    if (!applies(rule, job)) return;
    rule.directives.forEach((d, di) => {
      const dk = directiveKey(d);
      if (drawn.has(dk)) return;
      drawn.add(dk);
      const p = k[rule.wording] * dilute * Math.max(0, 1 - k.duplicateCost * ((copies.get(dk) ?? 1) - 1));
      const followed = unit('follow', ri, di, rule.text) < p;
      trace.push({ rule: rule.text, kind: d.kind, p, followed });
      if (followed) wanted.push({ rule, d });
    });
  });
  const chosen = resolveConflicts(wanted, (key) => unit('conflict', key), k.contradictionNeither);

  const habits = habitsFor(job, visible).filter((h, i) => unit('habit', i) < h.p);
  const rng = new Rng(seed, 'perform-text', instance, sample, draws);
  return { ...write(job, visible, habits, chosen, rng), commandsRun: commandsFor(job, chosen), trace };
}

/** One directive's identity: its kind and operative value (two rules that say it are copies). */
function directiveKey(d: Directive): string {
  switch (d.kind) {
    case 'forbid':
      return `forbid:${[...d.literals].sort().join('|')}:${[...d.tags].sort().join('|')}`;
    case 'section':
      return `section:${d.heading}:${d.placement}`;
    case 'say':
      return `say:${d.text.toLowerCase()}`;
    case 'command':
      return `command:${d.command}`;
    default:
      return `${d.kind}:${JSON.stringify(Object.values(d).slice(1))}`;
  }
}

/** The commands the target runs: its habit for the job, each replaced by the one a followed rule names for that purpose. */
function commandsFor(job: string | null, chosen: Applied[]): string[] {
  const ran = habitCommands(job).map((h) => ({ ...h }));
  for (const a of chosen) {
    if (a.d.kind !== 'command') continue;
    const { command, purpose } = a.d;
    const same = ran.find((h) => purpose !== null && h.purpose === purpose);
    if (same) same.command = command;
    else ran.push({ command, purpose: purpose ?? 'test' });
  }
  return ran.map((h) => h.command);
}

/** Among directives competing for one slot, one wins (equal odds) or, `neither` of the time, none. */
function resolveConflicts(wanted: Applied[], unit: (key: string) => number, neither: number): Applied[] {
  const out: Applied[] = [];
  const dropped = new Set<Applied>();
  for (let i = 0; i < wanted.length; i++) {
    if (dropped.has(wanted[i])) continue;
    const group = [wanted[i], ...wanted.slice(i + 1).filter((w) => !dropped.has(w) && conflicts(wanted[i], w))];
    if (group.length === 1) {
      out.push(wanted[i]);
      continue;
    }
    for (const g of group) dropped.add(g);
    const u = unit(group.map((g) => g.rule.text).join('|'));
    if (u < neither) continue;
    out.push(group[Math.min(group.length - 1, Math.floor(((u - neither) / (1 - neither)) * group.length))]);
  }
  return out;
}

function forbids(chosen: Applied[]): { literals: string[]; tags: Set<string> } {
  const literals: string[] = [];
  const tags = new Set<string>();
  for (const { d } of chosen) {
    if (d.kind !== 'forbid') continue;
    literals.push(...d.literals);
    for (const t of d.tags) tags.add(t);
  }
  return { literals, tags };
}

function habitForbidden(h: Habit, f: { literals: string[]; tags: Set<string> }): boolean {
  const tagConcepts = new Set(h.tags.flatMap((t) => [...concepts(t)]));
  if (overlap(tagConcepts, f.tags) > 0) return true;
  return f.literals.some((l) => l.length > 1 && h.text.toLowerCase().includes(l.toLowerCase()));
}

/** A habit that a prohibition touches is written the compliant way when there is one, else dropped. */
function compliantHabit(h: Habit): string | null {
  if (h.kind === 'code') return h.text.replace(/jest\.fn/g, 'vi.fn');
  if (h.tags.includes('emoji')) return h.text.replace(EMOJI, '').trimEnd();
  return null;
}

function write(job: string | null, v: Visible, habits: Habit[], chosen: Applied[], rng: Rng): PerformResult {
  const f = forbids(chosen);
  const fill = (a: Applied, text: string): string => fillLiteral(text, v, a.rule.example);
  const jsonOnly = chosen.find((a) => a.d.kind === 'json' && a.d.only);
  const tools = new Set<string>(rng.chance(0.6) ? ['Read'] : []);
  for (const a of chosen) if (a.d.kind === 'tool') tools.add(a.d.name);
  if (jsonOnly) {
    const text = JSON.stringify({ summary: v.change.trim(), status: 'done' }, null, 2);
    return { text, toolsCalled: [...tools], commandsRun: [], trace: [] };
  }

  let opening = habits.find((h) => h.kind === 'opening')?.text ?? `Here is the result for: ${v.change.trim()}.`;
  const start = chosen.find((a) => a.d.kind === 'start');
  if (start && start.d.kind === 'start') {
    const lit = fill(start, start.d.text);
    opening = /[:\s]$/.test(lit) ? `${lit}${/\s$/.test(lit) ? '' : ' '}${v.change.trim()}` : lit;
  }
  const subheading = chosen.find((a) => a.d.kind === 'subheading');
  const perItem = chosen.filter((a) => a.d.kind === 'include' && a.d.perItem).map((a) => fill(a, (a.d as { text: string }).text));
  const itemSuffix = perItem.length ? ` ${perItem.join(' ')}` : '';

  const lines: string[] = [];
  const code: string[] = [];
  const sections: Array<{ heading: string; lines: string[] }> = [];
  const padding: string[] = [];
  const placement = chosen.find((a) => a.d.kind === 'section' && a.d.placement);
  for (const h of habits) {
    if (h.kind === 'opening') continue;
    let text: string | null = h.text;
    if (habitForbidden(h, f)) text = compliantHabit(h);
    if (text === null) continue;
    if (h.kind === 'padding') padding.push(text);
    else if (h.kind === 'code') code.push(text);
    else if (h.kind === 'section') {
      const heading = placement && placement.d.kind === 'section' ? placement.d.heading : (h.heading ?? 'Details');
      const body = /^- /.test(text) ? `${text}${itemSuffix}` : text;
      sections.push({ heading, lines: subheading && subheading.d.kind === 'subheading' ? [`### ${subheading.d.heading}`, body] : [body] });
    } else lines.push(/^- /.test(text) && h.tags.length === 0 ? `${text}${itemSuffix}` : text);
  }
  if (job === null || !habits.some((h) => h.kind === 'section' || (h.kind === 'line' && /^- /.test(h.text)))) {
    // no habit lists the change: one item does, so per-item rules have a place
    if (itemSuffix || subheading) lines.push(...(subheading && subheading.d.kind === 'subheading' && !sections.length ? [`### ${subheading.d.heading}`] : []), `- ${v.change.trim()}${itemSuffix}`);
  }
  for (const a of chosen) {
    const d = a.d;
    if (d.kind === 'section') {
      if (a === placement && sections.some((s) => s.heading === d.heading)) continue;
      sections.push({ heading: d.heading, lines: [`- ${d.body.replace(/`[^`]*`/g, '').replace(/\s+/g, ' ').replace(/^\W+/, '').trim()}`] });
    } else if (d.kind === 'say') {
      lines.push(`- ${d.text}: covered.`);
    } else if (d.kind === 'include' && !d.perItem) {
      const lit = fill(a, d.text);
      if (code.length || /[(){};=]|^import\b|\.\w+$/.test(lit)) code.push(lit);
      else lines.push(`- ${lit}`);
    }
  }
  const tail: string[] = [];
  for (const a of chosen) if (a.d.kind === 'end') tail.push(fill(a, a.d.text));
  const json = chosen.some((a) => a.d.kind === 'json' && !a.d.only);
  const max = Math.min(...chosen.map((a) => (a.d.kind === 'max' ? a.d.n : Infinity)));
  const min = Math.max(0, ...chosen.map((a) => (a.d.kind === 'min' ? a.d.n : 0)));

  const assemble = (withPadding: boolean, extra: string[]): string => {
    const parts = [opening, '', ...lines];
    if (code.length) parts.push('', '```ts', ...code, '```');
    for (const s of sections) parts.push('', `## ${s.heading}`, ...s.lines);
    if (json) parts.push('', '```json', JSON.stringify({ summary: v.change.trim(), version: v.version ?? undefined }), '```');
    if (withPadding) parts.push('', ...padding, ...extra);
    if (tail.length) parts.push('', ...tail);
    let text = parts.join('\n').replace(/\n{3,}/g, '\n\n').trim();
    if (f.tags.has('emoji')) text = text.replace(EMOJI, '');
    for (const l of f.literals) if (l.length > 1) text = text.split('\n').filter((line) => !line.toLowerCase().includes(l.toLowerCase()) || line === opening).join('\n');
    return text;
  };
  let text = assemble(true, []);
  if (text.length < min) {
    const extra: string[] = [];
    for (let k = 0; assemble(true, extra).length < min && k < 1000; k++) extra.push(PADDING[k % PADDING.length]);
    text = assemble(true, extra);
  }
  if (text.length > max) text = assemble(false, []);
  if (text.length > max) text = text.slice(0, max).trimEnd();
  return { text, toolsCalled: [...tools], commandsRun: [], trace: [] };
}

const PADDING = [
  'The change keeps the existing behaviour apart from what is described above.',
  'I read the surrounding code once more before writing this up.',
  'Nothing else in the repository needed to change for this.',
];

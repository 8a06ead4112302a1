/**
 * What the optimizer is shown of one attempt, beyond the score: the user's corrections (quoted,
 * with their session and time), the rubric, what each non-sealed check wants (met or not), the
 * target's tool calls and changed files, and the reply clipped around the failing part. Why: the
 * analyst can only write the rule the user asked for if it reads the user's words; a judge's
 * feedback quotes them only by chance. Everything comes from the sealed-free task view, and every
 * part is bounded so a night's prompt tokens stay inside a budget.
 */
import type { Rollout, Task } from '../../core/records.js';
import type { RolloutDigest } from '../../core/protocol.js';
import { describeCheck } from '../../core/checks.js';
import { optimizerView } from '../../mine/view.js';

/** Character budgets of one attempt's evidence (≈ 4 characters a token). */
export const EVIDENCE_BUDGET = {
  reply: 1200,
  feedback: 600,
  correction: 220,
  corrections: 3,
  rubric: 400,
  wants: 8,
  tools: 12,
  files: 10,
} as const;

/** A backtick fence longer than any backtick run in `text`, so the text cannot close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `text` inside a fence it cannot break. */
export function fenced(text: string): string {
  const f = fenceFor(text);
  return `${f}\n${text}\n${f}`;
}

/** Where the reply goes wrong, if a failed check names something findable in it. */
function focusIndex(text: string, focus: readonly string[]): number {
  const lower = text.toLowerCase();
  for (const f of focus) {
    const needle = f.trim().toLowerCase();
    if (needle.length < 2) continue;
    const at = lower.indexOf(needle);
    if (at >= 0) return at;
  }
  return -1;
}

/**
 * Head and tail of a long reply (where structure and conclusions sit), plus a window around the
 * failing part when it lies in the cut middle; each cut is marked with what was left out.
 */
export function clipReply(text: string, max: number, focus: readonly string[] = []): string {
  if (text.length <= max) return text;
  const cut = (n: number) => `\n…[${n} characters cut]…\n`;
  const at = focusIndex(text, focus);
  const head = Math.floor(max * 0.45);
  const tail = Math.floor(max * 0.35);
  if (at > head && at < text.length - tail) {
    const w = max - head - tail;
    const from = Math.max(head, at - Math.floor(w / 2));
    const to = Math.min(text.length - tail, from + w);
    return `${text.slice(0, head)}${cut(from - head)}${text.slice(from, to)}${cut(text.length - tail - to)}${text.slice(text.length - tail)}`;
  }
  const h = max - tail;
  return `${text.slice(0, h)}${cut(text.length - h - tail)}${text.slice(text.length - tail)}`;
}

function clipLine(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** Values a failed check looks for (to centre the clipped reply on them). */
function focusTerms(task: Task, failed: ReadonlySet<string>): string[] {
  return task.judge.checks.filter((c) => failed.has(c.id)).flatMap((c) => [c.needle ?? '', typeof c.value === 'string' ? c.value : '']).filter(Boolean);
}

/** The evidence fields of a digest, built from the sealed-free view of the task. */
export function attemptEvidence(r: Rollout, task: Task | undefined): Pick<RolloutDigest, 'corrections' | 'rubric' | 'wants' | 'toolsCalled' | 'changedFiles' | 'response'> {
  const view = task ? optimizerView(task) : undefined;
  const results = new Map(r.checks.map((c) => [c.checkId, c]));
  const wants = (view?.judge.checks ?? []).slice(0, EVIDENCE_BUDGET.wants).map((c) => ({
    checkId: c.id,
    wants: clipLine(c.description ? `${c.description} (the reply must ${describeCheck(c)})` : `the reply must ${describeCheck(c)}`, 200),
    passed: results.get(c.id)?.passed ?? false,
  }));
  const failed = new Set(r.checks.filter((c) => !c.passed && !c.sealed).map((c) => c.checkId));
  const ref = view?.judge.reference;
  const rubric = ref?.kind === 'rubric' ? ref.rubric : ref?.kind === 'outcome' ? ref.description : '';
  const corrections = (view?.corrections ?? []).slice(-EVIDENCE_BUDGET.corrections).map((text) => {
    const i = view!.corrections.indexOf(text);
    const src = view?.correctionSources?.[i];
    return { text: clipLine(text, EVIDENCE_BUDGET.correction), session: src?.session ?? null, at: src?.at ?? null };
  });
  return {
    response: clipReply(r.response, EVIDENCE_BUDGET.reply, view ? focusTerms(view, failed) : []),
    ...(corrections.length ? { corrections } : {}),
    ...(rubric ? { rubric: clipLine(rubric, EVIDENCE_BUDGET.rubric) } : {}),
    ...(wants.length ? { wants } : {}),
    ...(r.toolsCalled.length ? { toolsCalled: shortList(r.toolsCalled, EVIDENCE_BUDGET.tools) } : {}),
    ...(r.changedFiles?.length ? { changedFiles: shortList(r.changedFiles, EVIDENCE_BUDGET.files) } : {}),
  };
}

/** Repeated names counted (`Bash×3`), the list cut with a count of the rest. */
function shortList(items: readonly string[], max: number): string[] {
  const counts = new Map<string, number>();
  for (const x of items) counts.set(x, (counts.get(x) ?? 0) + 1);
  const out = [...counts].map(([x, n]) => (n > 1 ? `${x}×${n}` : x));
  return out.length <= max ? out : [...out.slice(0, max), `… ${out.length - max} more`];
}

const when = (at: number | null) => (at === null ? 'time unknown' : new Date(at).toISOString().slice(0, 16).replace('T', ' ') + ' UTC');

/** The evidence lines of one attempt, as the reflect and slow-update prompts print them. */
export function renderEvidence(d: RolloutDigest): string[] {
  const out: string[] = [];
  if (d.corrections?.length) {
    out.push(`The user's corrections on this kind of task (their words):\n${d.corrections.map((c) => `> "${c.text}" (session ${c.session ?? 'unknown'}, ${when(c.at)})`).join('\n')}`);
  }
  if (d.rubric) out.push(`Rubric the judge grades against:\n${d.rubric}`);
  if (d.wants?.length) out.push(`What each check wants:\n${d.wants.map((w) => `- [${w.passed ? 'met' : 'MISSED'}] ${w.wants}`).join('\n')}`);
  if (d.toolsCalled?.length) out.push(`Tools called: ${d.toolsCalled.join(', ')}`);
  if (d.changedFiles?.length) out.push(`Files changed: ${d.changedFiles.join(', ')}`);
  return out;
}

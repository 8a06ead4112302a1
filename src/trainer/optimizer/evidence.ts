/**
 * What the optimizer is shown of one attempt, beyond the score: the user's corrections (quoted,
 * with their session and time), the rubric, what each non-sealed check wants (met or not), the
 * target's tool calls and changed files, and the reply clipped around the failing part; for a
 * failing attempt also what the user kept (the agent's version beside the one that landed in git,
 * with commit and date) and the commands that failed before the one that worked (issue 41). Why: the
 * analyst can only write the rule the user asked for if it reads the user's words; a judge's
 * feedback quotes them only by chance. Everything comes from the sealed-free task view, and every
 * part is bounded so a night's prompt tokens stay inside a budget.
 */
import type { Rollout, Task } from '../../core/records.js';
import type { RolloutDigest } from '../../core/protocol.js';
import { describeCheck } from '../../core/checks.js';
import { optimizerView } from '../../mine/view.js';
import { contradicts, respelled } from '../../skilldoc/wording-lint.js';

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
  /** kept outcomes per failing attempt, and the characters of each version shown */
  kept: 3,
  keptText: 500,
  procedures: 4,
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

/**
 * The corrections a newer one took back (a changed mind: "put it under `## Unreleased`", a month
 * later "use `## [Unreleased]`"): the optimizer is never shown them, so it cannot learn again what
 * the user replaced (issue 41). Within a job family any contradiction counts (one slot, a newer
 * value); across families only a new spelling of the same value does, since two bounds in two
 * families are two jobs' rules, not a changed mind.
 */
export function supersededCorrections(tasks: Iterable<Task>): Set<string> {
  const said: Array<{ text: string; at: number; task: string; family: string; i: number }> = [];
  for (const t of tasks) {
    // a task's list is oldest first (mine/synthesize.ts), so within it a later entry is the newer
    t.corrections.forEach((text, i) => said.push({ text, at: t.correctionSources?.[i]?.at ?? t.lastSeen ?? 0, task: t.id, family: t.family ?? t.id, i }));
  }
  const newer = (b: (typeof said)[number], a: (typeof said)[number]) => (b.task === a.task ? b.i > a.i : b.at > a.at);
  const out = new Set<string>();
  for (const a of said) {
    const replaced = said.some((b) => b.text !== a.text && newer(b, a) && (b.family === a.family ? contradicts(a.text, b.text) : respelled(a.text, b.text)));
    if (replaced) out.add(a.text);
  }
  return out;
}

/** The evidence fields of a digest, built from the sealed-free view of the task (without the corrections a newer one replaced). */
export function attemptEvidence(r: Rollout, task: Task | undefined, superseded: ReadonlySet<string> = new Set()): Pick<RolloutDigest, 'corrections' | 'rubric' | 'wants' | 'toolsCalled' | 'changedFiles' | 'response' | 'kept' | 'procedures'> {
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
  const corrections = (view?.corrections ?? []).filter((text) => !superseded.has(text)).slice(-EVIDENCE_BUDGET.corrections).map((text) => {
    const i = view!.corrections.indexOf(text);
    const src = view?.correctionSources?.[i];
    return { text: clipLine(text, EVIDENCE_BUDGET.correction), session: src?.session ?? null, at: src?.at ?? null };
  });
  // what the user kept and the commands that worked: for failures only, the newest first (issue 41)
  const failing = r.hardScore < 1;
  const kept = failing
    ? [...(view?.kept ?? [])]
        .sort((a, b) => b.at - a.at)
        .slice(0, EVIDENCE_BUDGET.kept)
        .map((k) => ({ kind: k.kind, ...(k.file ? { file: k.file } : {}), agent: clipReply(k.agent, EVIDENCE_BUDGET.keptText), kept: clipReply(k.kept, EVIDENCE_BUDGET.keptText), commit: k.commit.slice(0, 12), at: k.at }))
    : [];
  const procedures = failing
    ? [...(view?.procedures ?? [])]
        .sort((a, b) => b.sessions - a.sessions)
        .slice(0, EVIDENCE_BUDGET.procedures)
        .map((p) => ({ failed: clipLine(p.failed, 160), worked: clipLine(p.worked, 160), ...(p.purpose ? { purpose: p.purpose } : {}), sessions: p.sessions }))
    : [];
  return {
    response: clipReply(r.response, EVIDENCE_BUDGET.reply, view ? focusTerms(view, failed) : []),
    ...(kept.length ? { kept } : {}),
    ...(procedures.length ? { procedures } : {}),
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
  if (d.kept?.length) {
    const one = (k: NonNullable<RolloutDigest['kept']>[number]) =>
      `- ${k.kind === 'file' ? `file ${k.file ?? '?'}` : 'commit message'}, kept in commit ${k.commit} (${new Date(k.at).toISOString().slice(0, 10)}):\n  the agent wrote:\n${fenced(k.agent)}\n  the user kept:\n${fenced(k.kept)}`;
    out.push(`What the user kept of this job (the agent's version beside the one that landed in git; the differences are their silent corrections):\n${d.kept.map(one).join('\n')}`);
  }
  if (d.procedures?.length) {
    out.push(`Commands that failed in this job's sessions, and the one that then worked:\n${d.procedures.map((p) => `- \`${p.failed}\` failed; \`${p.worked}\` worked${p.purpose ? ` (${p.purpose})` : ''}, in ${p.sessions} session(s)`).join('\n')}`);
  }
  if (d.toolsCalled?.length) out.push(`Tools called: ${d.toolsCalled.join(', ')}`);
  if (d.changedFiles?.length) out.push(`Files changed: ${d.changedFiles.join(', ')}`);
  return out;
}

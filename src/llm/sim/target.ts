/**
 * The simulated target agent (`perform`). For each requirement of the task it complies with a
 * probability set by the skill (guidance.ts), then writes a reply that really passes or fails the
 * task's checks (respond.ts).
 *
 * Draws use common random numbers: the draw for a (task, check, sample) is fixed by the seed, and
 * the skill moves the probability it is compared with. A better skill therefore never makes an
 * individual check worse by luck, which keeps gate decisions about the skill, not about noise.
 */
import type { PerformPayload } from '../../core/protocol.js';
import { Rng, hashUnit } from './rng.js';
import { clutterFactor, compliance, guidanceLines, requirementOfCheck, requirementOfText } from './guidance.js';
import { writeResponse, type CheckDecision } from './respond.js';

export interface PerformResult {
  text: string;
  toolsCalled: string[];
  /** per requirement: probability used and outcome (for tests and diagnostics) */
  trace: Array<{ id: string; p: number; comply: boolean }>;
}

const EXACT_BASE = 0.55;

/** Splits a rubric into criteria: bullets, numbered items or sentences. */
export function rubricCriteria(rubric: string): string[] {
  const lines = rubric
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);
  return lines.flatMap((l) => l.split(/(?<=[.;!?])\s+(?=[A-Z])/)).map((s) => s.trim()).filter((s) => s.length > 2);
}

export function perform(payload: PerformPayload, seed: number, payloadHash: string): PerformResult {
  const { task, skill, sample } = payload;
  const lines = guidanceLines(skill.content);
  const clutter = clutterFactor(skill.content);
  const trace: PerformResult['trace'] = [];
  const draw = (id: string): number => hashUnit(seed, 'perform', task.id, id, sample);

  const decisions: CheckDecision[] = task.judge.checks.map((check) => {
    const c = compliance(requirementOfCheck(check, task), lines, clutter);
    const comply = draw(`check:${check.id}`) < c.p;
    trace.push({ id: check.id, p: c.p, comply });
    return { check, comply };
  });

  const criteria: Array<{ text: string; comply: boolean }> = [];
  const ref = task.judge.reference;
  if (ref.kind === 'rubric' || ref.kind === 'outcome') {
    const texts = ref.kind === 'rubric' ? rubricCriteria(ref.rubric) : [ref.description];
    texts.forEach((text, i) => {
      const c = compliance(requirementOfText(`rubric:${i}`, text, task.intent), lines, clutter);
      const comply = draw(`rubric:${i}:${text}`) < c.p;
      trace.push({ id: `rubric:${i}`, p: c.p, comply });
      criteria.push({ text, comply });
    });
  }
  let exact: { answer: string; comply: boolean } | undefined;
  if (ref.kind === 'exact') {
    const p = EXACT_BASE * clutter;
    const comply = draw('exact') < p;
    trace.push({ id: 'reference:exact', p, comply });
    exact = { answer: ref.answer, comply };
  }

  const written = writeResponse({ intent: task.intent, decisions, criteria, exact }, new Rng(seed, 'perform-text', payloadHash));
  return { ...written, trace };
}

/**
 * Task files: export (JSONL, promptfoo) and import of reviewed, hand-curated tasks.
 *
 * Import accepts `{ "format": "skillopt-sleep.tasks.v1", "reviewed": true, "tasks": [...] }`, a bare
 * JSON array, or JSONL (one task per line). A task needs at least an `intent`; everything else has
 * a default (id from project+intent, checks ids from their content, split from the id's hash).
 * Every problem in the file is reported at once (with the task's position), and nothing is
 * written unless the whole file is valid.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type YamlModule from 'yaml';
import { z } from 'zod';
import { CheckSchema, JudgeSchema, ReferenceSchema, Split, TaskSchema, type Check, type Task } from '../core/records.js';
import { SleepError, errorMessage } from '../core/errors.js';
import { stableId } from '../core/ids.js';
import { plainPathProblem, systemPathProblem } from '../core/write-roots.js';
import { redactValue } from '../core/redact.js';
import { makeCheck, validateJudge } from './judge-synth.js';
import { assignSplit } from './splits.js';

// loaded on first use (only `tasks export --format promptfoo` writes YAML): the CLI imports this
// module for every command, and evaluating the YAML library cost each run ~90 ms of CPU
let yamlModule: typeof YamlModule | null = null;
const toYaml = (value: unknown): string => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof YamlModule).stringify(value);

export const TASK_FILE_FORMAT = 'skillopt-sleep.tasks.v1';

/**
 * An imported task's project decides where a night writes (src/proposals/targets.ts checks it
 * again, on real paths, before anything is written); a file that names a project no user works in
 * is refused here already, whole, so nothing of it reaches the store: not an absolute, normalised
 * path (`..`, `//`, a trailing `/`), control characters (NUL…), or a system folder.
 */
function importedProjectProblem(p: string): string | null {
  const plain = plainPathProblem(p);
  if (plain) return plain;
  if (path.normalize(p) !== p || (p.length > 1 && /[\\/]$/.test(p))) return 'it is not a normalised path (no "//", "/./" or trailing "/")';
  const sys = systemPathProblem(p) ?? (fs.existsSync(p) ? systemPathProblem(fs.realpathSync(p)) : null);
  return sys;
}

/** A skill hint is matched against skill folder names: a name, never a path. */
function skillHintProblem(n: string): string | null {
  if (n.length > 128) return 'a skill name is at most 128 characters';
  if (/[\u0000-\u001f\u007f]/.test(n)) return 'a skill name has no control characters (NUL, newline…)';
  if (/[\\/]/.test(n) || n.startsWith('.') || n.includes('..')) return 'a skill name is a folder name, not a path ("/", "\\", "..", a leading ".")';
  return null;
}

const LooseCheck = CheckSchema.partial({ id: true, weight: true, sealed: true });
const LooseTask = z
  .object({
    id: z.string().min(1).optional(),
    project: z.string().nullable().optional().superRefine((p, ctx) => {
      const why = p == null ? null : importedProjectProblem(p);
      if (why) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(p)} is refused: ${why}` });
    }),
    intent: z.string().min(1, 'intent must not be empty'),
    context: z.string().optional(),
    judge: z
      .object({ checks: z.array(LooseCheck).default([]), reference: ReferenceSchema.optional() })
      .optional(),
    split: Split.optional(),
    origin: z.enum(['real', 'dream', 'imported']).optional(),
    skillHint: z.string().nullable().optional().superRefine((n, ctx) => {
      const why = n == null ? null : skillHintProblem(n);
      if (why) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(n)} is refused: ${why}` });
    }),
    family: z.string().nullable().optional(),
    occurrences: z.number().int().nonnegative().optional(),
    firstSeen: z.number().int().nullable().optional(),
    lastSeen: z.number().int().nullable().optional(),
    status: z.enum(['active', 'disabled']).optional(),
    reviewed: z.boolean().optional(),
    corrections: z.array(z.string()).optional(),
    agents: TaskSchema.shape.agents.optional(),
  })
  .strict();

export interface ParsedTaskFile {
  tasks: Task[];
  /** the file said it was reviewed (top-level `reviewed: true`) */
  reviewed: boolean;
}

function parseDocument(text: string, source: string): { items: unknown[]; reviewed: boolean } {
  const trimmed = text.trim();
  if (!trimmed) throw new SleepError('INVALID_INPUT', `${source} is empty`, { hint: 'a task file holds a JSON object with "tasks", a JSON array, or JSONL' });
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const doc: unknown = JSON.parse(trimmed);
      if (Array.isArray(doc)) return { items: doc, reviewed: false };
      const o = doc as Record<string, unknown>;
      if (Array.isArray(o.tasks)) {
        if (o.format !== undefined && o.format !== TASK_FILE_FORMAT) {
          throw new SleepError('INVALID_INPUT', `${source}: unknown format "${String(o.format)}"`, { hint: `expected "${TASK_FILE_FORMAT}"` });
        }
        return { items: o.tasks, reviewed: o.reviewed === true };
      }
      if (typeof o.intent === 'string') return { items: [o], reviewed: false };
      throw new SleepError('INVALID_INPUT', `${source}: no "tasks" array`, { hint: `use {"format": "${TASK_FILE_FORMAT}", "tasks": [...]}` });
    } catch (err) {
      if (err instanceof SleepError) throw err;
      // not one JSON document: fall through to JSONL
      if (!trimmed.includes('\n')) throw new SleepError('INVALID_INPUT', `${source} is not valid JSON: ${errorMessage(err)}`);
    }
  }
  const items: unknown[] = [];
  const problems: string[] = [];
  trimmed.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      items.push(JSON.parse(line));
    } catch (err) {
      problems.push(`line ${i + 1}: not valid JSON (${errorMessage(err)})`);
    }
  });
  if (problems.length) throw new SleepError('INVALID_INPUT', `${source}: ${problems.join('; ')}`, { hint: 'fix the lines named; nothing was imported' });
  return { items, reviewed: false };
}

/**
 * Builds a full task from a loose one; throws a SleepError naming the problem. `syntheticHeldOut`:
 * a file given to one training run (`train --tasks`, benchmarks with synthetic personas) may hold
 * synthetic tasks in validation and test; an import into the store may not.
 */
export function completeTask(raw: unknown, opts: { reviewed?: boolean; seed?: number; existing?: Task; syntheticHeldOut?: boolean } = {}): Task {
  const parsed = LooseTask.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new SleepError('INVALID_INPUT', `${i?.path.join('.') || '(task)'}: ${i?.message ?? 'invalid'}`);
  }
  const t = parsed.data;
  const project = t.project ?? null;
  const id = t.id ?? stableId('task', 'imported', project ?? '', t.intent);
  const origin = t.origin ?? opts.existing?.origin ?? 'imported';
  const checks: Check[] = (t.judge?.checks ?? []).map((c) =>
    c.id ? { ...c, id: c.id, weight: c.weight ?? 1, sealed: c.sealed ?? false } : makeCheck({ ...c, sealed: c.sealed ?? false }),
  );
  const judge = JudgeSchema.parse({ checks, reference: t.judge?.reference ?? { kind: 'rule' } });
  validateJudge(judge);
  if (judge.checks.length === 0 && judge.reference.kind === 'rule') {
    throw new SleepError('INVALID_INPUT', `task ${id} has no checks and no rubric or exact reference: nothing could score it`);
  }
  const split = opts.existing?.split ?? t.split ?? assignSplit(id, origin, opts.seed);
  if (origin === 'dream' && split !== 'train' && !opts.syntheticHeldOut) throw new SleepError('INVALID_INPUT', `task ${id}: a synthetic (dream) task can only be in train`);
  return TaskSchema.parse({
    id,
    project,
    intent: t.intent,
    context: t.context ?? '',
    judge,
    split,
    origin,
    skillHint: t.skillHint ?? null,
    ...(t.family !== undefined ? { family: t.family } : opts.existing?.family !== undefined ? { family: opts.existing.family } : {}),
    occurrences: t.occurrences ?? opts.existing?.occurrences ?? 0,
    firstSeen: t.firstSeen ?? opts.existing?.firstSeen ?? null,
    lastSeen: t.lastSeen ?? opts.existing?.lastSeen ?? null,
    status: t.status ?? 'active',
    reviewed: opts.reviewed || t.reviewed === true,
    corrections: t.corrections ?? opts.existing?.corrections ?? [],
    agents: t.agents ?? opts.existing?.agents ?? [],
  });
}

/**
 * Parses and validates a whole task file. `existing(id)` gives the stored task of that id, so
 * an import never moves a task between splits.
 */
export function parseTaskFile(
  text: string,
  source: string,
  opts: { seed?: number; existing?: (id: string) => Task | undefined; syntheticHeldOut?: boolean } = {},
): ParsedTaskFile {
  const { items, reviewed } = parseDocument(text, source);
  const tasks: Task[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    try {
      const id = (item as { id?: unknown })?.id;
      const task = completeTask(item, { reviewed, seed: opts.seed, existing: typeof id === 'string' ? opts.existing?.(id) : undefined, syntheticHeldOut: opts.syntheticHeldOut });
      if (seen.has(task.id)) throw new SleepError('INVALID_INPUT', `duplicate task id ${task.id}`);
      seen.add(task.id);
      // an imported task is stored and sent to models: its text is redacted like a transcript's
      tasks.push(redactValue(task));
    } catch (err) {
      problems.push(`task ${i + 1}: ${errorMessage(err)}`);
    }
  });
  if (problems.length) {
    throw new SleepError('INVALID_INPUT', `${source}: ${problems.length} invalid task(s): ${problems.slice(0, 10).join('; ')}`, {
      hint: 'fix them and import again; nothing was imported',
      details: { problems },
    });
  }
  return { tasks, reviewed };
}

export function exportJsonl(tasks: Task[]): string {
  return tasks.map((t) => JSON.stringify(t)).join('\n') + (tasks.length ? '\n' : '');
}

const jsString = (s: string) => JSON.stringify(s);

/** One promptfoo assertion per check (tool_called and ran_command have no promptfoo equivalent and are skipped). */
function promptfooAssert(c: Check): Record<string, unknown> | null {
  const v = c.value === undefined ? '' : String(c.value);
  const ci = c.caseSensitive !== true;
  const base = { metric: c.id, weight: c.weight };
  switch (c.op) {
    case 'contains':
      return { ...base, type: ci ? 'icontains' : 'contains', value: v };
    case 'not_contains':
      return { ...base, type: ci ? 'not-icontains' : 'not-contains', value: v };
    case 'starts_with':
      return ci ? { ...base, type: 'javascript', value: `output.trimStart().toLowerCase().startsWith(${jsString(v.toLowerCase())})` } : { ...base, type: 'starts-with', value: v };
    case 'regex':
      return { ...base, type: 'javascript', value: `new RegExp(${jsString(v)}, ${jsString((c.flags ?? '').replace(/[gy]/g, ''))}).test(output)` };
    case 'min_chars':
      return { ...base, type: 'javascript', value: `output.trim().length >= ${Number(v)}` };
    case 'max_chars':
      return { ...base, type: 'javascript', value: `output.trim().length <= ${Number(v)}` };
    case 'json_valid':
      return { ...base, type: 'is-json' };
    case 'no_refusal':
      return { ...base, type: 'not-is-refusal' };
    case 'section_present':
      return { ...base, type: 'javascript', value: `/^\\s{0,3}#{1,6}\\s+.*${escapeForRe(v)}/im.test(output)` };
    case 'section_contains':
      return { ...base, type: 'icontains', value: c.needle ?? '' };
    case 'tool_called':
    case 'ran_command':
      return null;
  }
}

const escapeForRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A promptfoo config (YAML) that replays the tasks with their checks and rubrics. */
export function exportPromptfoo(tasks: Task[]): string {
  const tests = tasks.map((t) => {
    const assert = t.judge.checks.map(promptfooAssert).filter((a): a is Record<string, unknown> => a !== null);
    if (t.judge.reference.kind === 'rubric') assert.push({ type: 'llm-rubric', value: t.judge.reference.rubric });
    if (t.judge.reference.kind === 'exact') assert.push({ type: 'icontains', value: t.judge.reference.answer });
    return {
      description: `${t.id} (${t.split}${t.status === 'disabled' ? ', disabled' : ''})`,
      vars: { intent: t.intent, context: t.context },
      assert,
      metadata: { taskId: t.id, split: t.split, project: t.project, occurrences: t.occurrences },
    };
  });
  return toYaml({
    description: 'skillopt-sleep mined tasks',
    prompts: ['{{intent}}{% if context %}\n\n{{context}}{% endif %}'],
    providers: ['echo'],
    tests,
  });
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline/promises';
import type { Command } from 'commander';
import { writeText } from '../big-output.js';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { Split, TaskSchema, type Task } from '../../core/records.js';
import { SleepError, UsageError, errorMessage } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/fsutil.js';
import { editorCommand, launchEditor } from '../../core/editor.js';
import { findTask, getTask, listOccurrences, listTasks, setTaskStatus, taskProjects, upsertTask } from '../../store/repos/tasks.js';
import { validateJudge } from '../../mine/judge-synth.js';
import { checkStoredSplitIntegrity } from '../../mine/splits.js';
import { exportJsonl, exportPromptfoo, parseTaskFile } from '../../mine/task-file.js';
import { resolveProjectOption } from '../project.js';
import { familyReview, mergeFamilies, splitFamily } from '../../mine/cluster-edit.js';
import { runMining } from '../../mine/index.js';
import { terminalSafe } from '../../core/terminal-text.js';

const short = (s: string, n: number) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= n ? one : one.slice(0, n - 1) + '…';
};
const day = (ts: number | null) => (ts === null ? '-' : new Date(ts).toISOString().slice(0, 10));

function mustFind(ctx: CliContext, id: string): Task {
  const t = findTask(ctx.db, id);
  if (!t) throw new SleepError('NOT_FOUND', `no task ${id}`, { hint: '`skillopt-sleep tasks list` shows task ids' });
  return t;
}

/** A family: its cluster id (cl_…), or any of its tasks (id or unique prefix). */
function familyId(ctx: CliContext, ref: string): string {
  if (ref.startsWith('cl_')) return ref;
  const t = mustFind(ctx, ref);
  if (!t.family) throw new SleepError('INVALID_INPUT', `task ${t.id} belongs to no mined family`, { hint: 'give a family id (cl_…) from `skillopt-sleep tasks list`' });
  return t.family;
}

function parseSplit(s?: string): Split | undefined {
  if (s === undefined) return undefined;
  const r = Split.safeParse(s);
  if (!r.success) throw new UsageError(`unknown split "${s}"`, 'use train, val or test');
  return r.data;
}

function renderList(ctx: CliContext, tasks: Task[], review: ReturnType<typeof familyReview> = { names: {}, decisions: [] }): void {
  if (!tasks.length) {
    ctx.print('no tasks yet: run `skillopt-sleep mine` after some sessions were harvested');
    return;
  }
  ctx.print(`${'ID'.padEnd(21)} ${'SPLIT'.padEnd(5)} ${'SEEN'.padStart(4)} ${'CORR'.padStart(4)} ${'PROJECT'.padEnd(16)} INTENT`);
  // the occurrences of one recurring request (a family) are listed together under one heading
  const families = new Map<string, Task[]>();
  for (const t of tasks) families.set(t.family ?? `task:${t.id}`, [...(families.get(t.family ?? `task:${t.id}`) ?? []), t]);
  for (const [family, members] of families) {
    if (!family.startsWith('task:')) {
      const splits = (['train', 'val', 'test'] as const).map((sp) => `${members.filter((t) => t.split === sp).length} ${sp}`).join(', ');
      const hint = members.find((t) => t.skillHint)?.skillHint;
      const job = review.names[family];
      ctx.print(
        `── ${family}${job ? ` (${job})` : ''}: ${members.length} occurrence task(s) (${splits}), ${members[0].corrections.length} shared correction(s)${hint ? `, uses skill ${hint}` : ''}`,
      );
      // what the cluster review (or a person) decided about this family, newest first
      for (const d of review.decisions.filter((x) => x.cluster === family || x.other === family).slice(-3).reverse()) {
        const undo = d.kind === 'merge' ? `undo: tasks split ${d.cluster}` : `undo: tasks merge ${d.cluster} ${d.other}`;
        ctx.print(`   ${d.by === 'llm' ? 'review' : 'you'} ${d.kind === 'merge' ? `merged ${d.other} into it` : `split ${d.other} off ${d.cluster}`} (${d.moved.length} ask(s), ${day(d.at)}; ${undo})`);
      }
    }
    printRows(ctx, members);
  }
  ctx.print(`${tasks.length} task(s)`);
}

function printRows(ctx: CliContext, tasks: Task[]): void {
  for (const t of tasks) {
    const flags = (t.status === 'disabled' ? ' [off]' : '') + (t.reviewed ? ' [reviewed]' : '') + (t.skillHint ? ` [skill: ${t.skillHint}]` : '');
    ctx.print(
      `${t.id.padEnd(21)} ${t.split.padEnd(5)} ${String(t.occurrences).padStart(4)} ${String(t.corrections.length).padStart(4)} ${short(t.project ? path.basename(t.project) : '(several)', 16).padEnd(16)} ${short(t.intent, 60)}${flags}`,
    );
  }
}

/**
 * `tasks show`: every field in full. Text mined from transcripts is wrapped to the terminal (whole
 * in a pipe) and sanitised for it: never cut with "…", never able to act on the terminal.
 */
function renderShow(ctx: CliContext, t: Task, occ: ReturnType<typeof listOccurrences>, projects: string[]): void {
  const safe = (s: string) => terminalSafe(s);
  const paint = ctx.paint;
  ctx.print(`task ${paint.bold(t.id)}  (${t.split}, ${t.origin}, ${t.status}${t.reviewed ? ', reviewed' : ''})`);
  ctx.printWrapped('project   ', t.project ?? `(cross-project: ${projects.join(', ') || 'none'})`);
  ctx.print(`agents    ${t.agents.join(', ') || '-'}`);
  // the existing skill a night trains this task into (it was invoked for this ask in the transcripts)
  if (t.skillHint) ctx.print(`skill     ${safe(t.skillHint)}`);
  ctx.print(`seen      ${t.occurrences} time(s), ${day(t.firstSeen)} … ${day(t.lastSeen)}`);
  ctx.print('');
  ctx.print(paint.bold('intent:'));
  ctx.printWrapped('  ', safe(t.intent));
  if (t.context) {
    ctx.print(paint.bold('context:'));
    ctx.printWrapped('  ', safe(t.context));
  }
  ctx.print('');
  ctx.print(paint.bold(`judge (${t.judge.reference.kind}):`));
  for (const c of t.judge.checks) {
    const val = c.value === undefined ? '' : ` ${JSON.stringify(c.value)}`;
    ctx.printWrapped('  ', safe(`${c.sealed ? '[sealed] ' : ''}${c.op}${val}${c.needle ? ` ⊃ ${JSON.stringify(c.needle)}` : ''}${c.flags ? ` /${c.flags}` : ''}  — ${c.description ?? ''}`));
  }
  if (t.judge.reference.kind === 'rubric') ctx.printWrapped('  rubric: ', safe(t.judge.reference.rubric));
  if (t.judge.reference.kind === 'exact') ctx.printWrapped('  exact answer: ', safe(t.judge.reference.answer));
  if (t.corrections.length) {
    ctx.print('');
    ctx.print(paint.bold('corrections (what the user insisted on):'));
    for (const c of t.corrections) ctx.printWrapped('  - ', safe(c.replace(/\s+/g, ' ').trim()), 'yellow');
  }
  if (occ.length) {
    ctx.print('');
    ctx.print(paint.bold(`occurrences (${occ.length}${occ.length < t.occurrences ? ` of ${t.occurrences}` : ''}):`));
    for (const o of occ.slice(0, 50)) {
      const out = o.outcome as { label?: string; tools?: string[]; toolErrors?: number; reactions?: Array<{ kind: string }> };
      const reactions = (out.reactions ?? []).map((r) => r.kind).filter((k) => k !== 'next_task');
      const head = `  ${day(o.ts)} ${(o.agent ?? '?').padEnd(11)} ${short(o.project ? path.basename(o.project) : '-', 14).padEnd(14)} ${String(out.label ?? '?').padEnd(9)} `;
      ctx.printWrapped(head, safe(o.prompt.replace(/\s+/g, ' ').trim()) + (reactions.length ? `  [${reactions.join(', ')}]` : ''));
    }
    if (occ.length > 50) ctx.print(`  … ${occ.length - 50} more (--json shows all)`);
  }
}

/** What `tasks edit` puts in the editor: the task minus bookkeeping the user must not change. */
function editableDocument(t: Task): string {
  return JSON.stringify(t, null, 2) + '\n';
}

/** Validates an edited document; returns the task or throws with a message naming the problem. */
export function validateEdited(original: Task, text: string): Task {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new SleepError('INVALID_INPUT', `not valid JSON: ${errorMessage(err)}`);
  }
  const parsed = TaskSchema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new SleepError('INVALID_INPUT', `${i?.path.join('.') || '(task)'}: ${i?.message ?? 'invalid'}`);
  }
  const t = parsed.data;
  if (t.id !== original.id) throw new SleepError('INVALID_INPUT', `the id cannot change (was ${original.id})`);
  if (t.split !== original.split) {
    throw new SleepError('INVALID_INPUT', `the split cannot change (was ${original.split}): moving a task between splits leaks held-out data`);
  }
  if (t.origin !== original.origin) throw new SleepError('INVALID_INPUT', `the origin cannot change (was ${original.origin})`);
  validateJudge(t.judge);
  return t;
}

function runEditor(ctx: CliContext, file: string): void {
  const status = launchEditor(file, ctx.env);
  if (status !== 0) throw new SleepError('INVALID_INPUT', `editor "${editorCommand(ctx.env)}" exited with status ${status}; task unchanged`);
}

async function askRetry(ctx: CliContext, problem: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`invalid task: ${problem}\n(e)dit again or (a)bort? [e] `);
    return !/^a/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

async function editTask(ctx: CliContext, id: string): Promise<void> {
  const original = mustFind(ctx, id);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillopt-task-'));
  const file = path.join(dir, `${original.id}.json`);
  writeFileAtomic(file, editableDocument(original), { mode: 0o600 });
  for (;;) {
    runEditor(ctx, file);
    const text = fs.readFileSync(file, 'utf8');
    try {
      const edited = validateEdited(original, text);
      const changed = JSON.stringify(edited) !== JSON.stringify(original);
      if (!changed) {
        fs.rmSync(dir, { recursive: true, force: true });
        ctx.emit('tasks-edit', { ok: true, id: original.id, changed: false }, () => ctx.print('no changes'));
        return;
      }
      // a person curated it: mining keeps its definition from now on
      const saved = upsertTask(ctx.db, { ...edited, reviewed: true });
      fs.rmSync(dir, { recursive: true, force: true });
      ctx.emit('tasks-edit', { ok: true, id: saved.id, changed: true, task: saved }, () => ctx.print(`saved ${saved.id} (marked reviewed)`));
      return;
    } catch (err) {
      if (await askRetry(ctx, errorMessage(err))) continue;
      throw new SleepError('INVALID_INPUT', `task not saved: ${errorMessage(err)}`, { hint: `your edit is kept in ${file}; fix it and run \`tasks import ${file}\`` });
    }
  }
}

export function register(program: Command): void {
  const tasks = program.command('tasks').description('list, inspect, edit, enable/disable, export and import mined tasks');

  tasks
    .command('list')
    .description('list tasks (recurring asks with their judges)')
    .option('--project <path>', 'tasks seen in this project, including cross-project ones (path or folder name)')
    .option('--split <split>', 'only train, val or test')
    .option('--all', 'include disabled tasks')
    .action(
      action((ctx, opts: { project?: string; split?: string; all?: boolean }) => {
        const list = listTasks(ctx.db, {
          ...(opts.project ? { seenIn: resolveProjectOption(ctx.db, opts.project, { mustExist: true }) } : {}),
          split: parseSplit(opts.split),
          ...(opts.all ? {} : { status: 'active' as const }),
        });
        const review = familyReview(ctx.db);
        ctx.emit('tasks', { tasks: list, review }, () => renderList(ctx, list, review));
      }),
    );

  tasks
    .command('split <family>')
    .description('undo the latest merge into a family (by the cluster review or `tasks merge`): its merged asks become their own family again')
    .action(
      action(async (ctx, family: string) => {
        const edit = splitFamily(ctx.db, ctx.config, familyId(ctx, family));
        const summary = await runMining(ctx.db, ctx.config, { progress: ctx.progress() });
        ctx.emit('tasks-split', { ok: true, ...edit, mine: summary }, () =>
          ctx.print(`split ${edit.moved} ask(s) off ${edit.cluster} into ${edit.other}; tasks rewritten (${summary.newTasks} new, ${summary.updatedTasks} updated)`),
        );
      }),
    );

  tasks
    .command('merge <family> <other>')
    .description('merge two families into one job (undoes a split by the cluster review); they are never split apart again automatically')
    .action(
      action(async (ctx, family: string, other: string) => {
        const edit = mergeFamilies(ctx.db, ctx.config, familyId(ctx, family), familyId(ctx, other));
        const summary = await runMining(ctx.db, ctx.config, { progress: ctx.progress() });
        ctx.emit('tasks-merge', { ok: true, ...edit, mine: summary }, () =>
          ctx.print(`merged ${edit.other} (${edit.moved} ask(s)) into ${edit.cluster}; tasks rewritten (${summary.newTasks} new, ${summary.updatedTasks} updated)`),
        );
      }),
    );

  tasks
    .command('show <id>')
    .description('show a task: intent, judge, corrections and occurrences (id or unique prefix)')
    .action(
      action((ctx, id: string) => {
        const t = mustFind(ctx, id);
        const occ = listOccurrences(ctx.db, t.id);
        const projects = taskProjects(ctx.db, t.id);
        ctx.emit('task', { task: t, projects, occurrences: occ }, () => renderShow(ctx, t, occ, projects));
      }),
    );

  tasks
    .command('edit <id>')
    .description('edit a task as JSON in $EDITOR; validated on save (re-open or abort when invalid)')
    .action(action((ctx, id: string) => editTask(ctx, id)));

  for (const [name, status, help] of [
    ['disable', 'disabled', 'disable a task: it is never replayed or trained on until enabled'],
    ['enable', 'active', 'enable a disabled task again'],
  ] as const) {
    tasks
      .command(`${name} <id>`)
      .description(help)
      .action(
        action((ctx, id: string) => {
          const t = setTaskStatus(ctx.db, mustFind(ctx, id).id, status);
          ctx.emit('tasks-status', { ok: true, id: t.id, status: t.status }, () => ctx.print(`${t.id} ${status === 'active' ? 'enabled' : 'disabled'}`));
        }),
      );
  }

  tasks
    .command('export')
    .description('export tasks as JSONL (full records) or a promptfoo config (YAML)')
    .option('--format <format>', 'jsonl or promptfoo', 'jsonl')
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--project <path>', 'tasks seen in this project, including cross-project ones')
    .option('--split <split>', 'only train, val or test')
    .action(
      action(async (ctx, opts: { format: string; out?: string; project?: string; split?: string }) => {
        if (opts.format !== 'jsonl' && opts.format !== 'promptfoo') throw new UsageError(`unknown format "${opts.format}"`, 'use --format jsonl or --format promptfoo');
        const list = listTasks(ctx.db, { ...(opts.project ? { seenIn: resolveProjectOption(ctx.db, opts.project, { mustExist: true }) } : {}), split: parseSplit(opts.split) });
        const text = opts.format === 'jsonl' ? exportJsonl(list) : exportPromptfoo(list);
        if (opts.out) {
          const out = path.resolve(opts.out);
          writeFileAtomic(out, text, { mode: 0o600 });
          ctx.emit('tasks-export', { ok: true, file: out, tasks: list.length, format: opts.format }, () => ctx.print(`wrote ${list.length} task(s) to ${out}`));
        } else {
          await writeText(ctx.out, text); // at the reader's pace (big-output.ts)
        }
      }),
    );

  tasks
    .command('import <file>')
    .description('import reviewed, hand-curated tasks (JSON {"format","reviewed","tasks"}, array, or JSONL); all-or-nothing')
    .action(
      action((ctx, file: string) => {
        let text: string;
        try {
          text = fs.readFileSync(path.resolve(file), 'utf8');
        } catch (err) {
          throw new SleepError('NOT_FOUND', `cannot read ${file}: ${errorMessage(err)}`);
        }
        const parsed = parseTaskFile(text, file, { seed: ctx.config.training.seed, existing: (id) => getTask(ctx.db, id) });
        let created = 0;
        ctx.db.transaction(() => {
          for (const t of parsed.tasks) {
            if (!getTask(ctx.db, t.id)) created++;
            upsertTask(ctx.db, t);
          }
        }).immediate(); // read-then-write: take the write lock first (see harvest's flush)
        const violations = checkStoredSplitIntegrity(ctx.db);
        ctx.emit('tasks-import', { ok: true, imported: parsed.tasks.length, created, updated: parsed.tasks.length - created, violations }, () => {
          ctx.print(`imported ${parsed.tasks.length} task(s): ${created} new, ${parsed.tasks.length - created} updated${parsed.reviewed ? ' (reviewed)' : ''}`);
          for (const v of violations) ctx.print(`SPLIT VIOLATION (${v.kind}): ${v.message}`);
        });
      }),
    );
}

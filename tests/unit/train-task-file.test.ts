/**
 * `train --tasks` reads task files with the same reader as `tasks import` (mine/task-file.ts): the
 * v1 envelope, a JSON array and JSON Lines all work, a problem names the task, and a synthetic task
 * may sit in a held-out split only for a one-off training run, never in an import.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTasksFile } from '../../src/cli/commands/train.js';
import { TASK_FILE_FORMAT, exportJsonl, parseTaskFile } from '../../src/mine/task-file.js';
import type { Task } from '../../src/core/records.js';
import { makeTask } from '../helpers/tasks.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const write = (name: string, text: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-taskfile-'));
  dirs.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe('train --tasks reads what tasks export writes', () => {
  const judge = { checks: [{ id: 'k1', op: 'contains' as const, value: 'done', weight: 1, sealed: false }], reference: { kind: 'rule' as const } };
  const task = (id: string, split: Task['split'], extra: Partial<Task> = {}) => makeTask({ id, intent: `job ${id}`, judge, split, ...extra });
  const tasks = [task('a', 'train'), task('b', 'val', { family: 'fam_1' }), task('c', 'test')];

  it('accepts JSON Lines, a JSON array and the v1 envelope, keeping ids, splits and families', () => {
    for (const text of [exportJsonl(tasks), JSON.stringify(tasks), JSON.stringify({ format: TASK_FILE_FORMAT, tasks })]) {
      const read = readTasksFile(write('tasks.json', text));
      expect(read.map((t) => [t.id, t.split])).toEqual([
        ['a', 'train'],
        ['b', 'val'],
        ['c', 'test'],
      ]);
      expect(read[1].family).toBe('fam_1');
    }
  });

  it('names the task at fault, and says when the file cannot be read', () => {
    const bad = write('bad.jsonl', exportJsonl(tasks) + JSON.stringify({ id: 'd', intent: '' }) + '\n');
    expect(() => readTasksFile(bad)).toThrow(/task 4: intent: intent must not be empty/);
    expect(() => readTasksFile(path.join(os.tmpdir(), 'no-such-dir-sos', 'x.jsonl'))).toThrow(/cannot read tasks file/);
  });

  it('a synthetic held-out task is fine for one training run, refused by an import', () => {
    const dream = [task('d1', 'val', { origin: 'dream' })];
    expect(readTasksFile(write('dream.jsonl', exportJsonl(dream)))[0].split).toBe('val');
    expect(() => parseTaskFile(exportJsonl(dream), 'dream.jsonl')).toThrow(/synthetic \(dream\) task can only be in train/);
  });
});

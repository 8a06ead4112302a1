/** `tasks export` → `tasks import` is the identity: every field of every task survives, splits included. */
import { describe, expect, it } from 'vitest';
import { exportJsonl, parseTaskFile } from '../../src/mine/task-file.js';
import { makeTask } from '../helpers/tasks.js';
import type { Task } from '../../src/core/records.js';

const tasks: Task[] = [
  makeTask({
    id: 'task_a',
    project: '/home/dana/src/ledgerline',
    intent: 'add the changelog entry for PR 418',
    context: 'CHANGELOG.md uses Keep a Changelog',
    judge: {
      checks: [
        { id: 'chk_1', op: 'section_present', value: 'Unreleased', weight: 1, sealed: false, description: 'has an Unreleased section' },
        { id: 'chk_2', op: 'regex', value: '\\(#\\d+\\)', weight: 2, sealed: true, description: 'links the PR' },
      ],
      reference: { kind: 'rubric', rubric: 'follows the house changelog style', passThreshold: 0.7 },
    },
    split: 'test',
    family: 'fam_changelog',
    skillHint: 'changelog-style',
    occurrences: 4,
    firstSeen: 1_700_000_000_000,
    lastSeen: 1_700_100_000_000,
    corrections: ['no, put it under Unreleased'],
    agents: ['claude-code', 'codex'],
  }),
  makeTask({ id: 'task_b', intent: 'write the commit message', judge: { checks: [{ id: 'chk_3', op: 'max_chars', value: 500, weight: 1, sealed: false }], reference: { kind: 'rule' } }, split: 'train', status: 'disabled', reviewed: true }),
];

describe('task files', () => {
  it('round-trips an export through import unchanged', () => {
    const text = exportJsonl(tasks);
    const back = parseTaskFile(text, 'tasks.jsonl', { existing: (id) => tasks.find((t) => t.id === id) });
    expect(back.tasks).toEqual(tasks);
  });
  it('keeps the split of a file without an existing store (the exported split wins over the hash)', () => {
    const back = parseTaskFile(exportJsonl(tasks), 'tasks.jsonl');
    expect(back.tasks.map((t) => t.split)).toEqual(['test', 'train']);
  });
});

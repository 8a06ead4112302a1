/**
 * A thin night says which skill it is about (every project's managed skill has the same name) and
 * how many more recurring tasks it needs, counting that mining holds a thin skill's new tasks out
 * for validation (mine/splits.ts topUpThinValidation).
 */
import { describe, expect, it } from 'vitest';
import { renderNightReport, summarizeNight, type NightItemReport } from '../../src/night/report.js';
import { checkItem } from '../../src/night/plan.js';
import { makeTask } from '../helpers/tasks.js';
import type { Task } from '../../src/core/records.js';

const t = (id: string, split: Task['split']) => makeTask({ id, intent: `write unit tests for fn_${id}`, split, judge: { checks: [], reference: { kind: 'rule' } } });
const item = (over: Partial<NightItemReport>): NightItemReport => ({
  target: { name: 'skillopt-sleep-learned', path: '/home/dana/src/tallybook/.claude/skills/skillopt-sleep-learned/SKILL.md', kind: 'skill', readBy: [] },
  project: '/home/dana/src/tallybook',
  routedBy: 'managed',
  tasks: { train: 2, val: 2, test: 1, ids: { train: [], val: [], test: [] } },
  status: 'skipped',
  reason: 'thin night: 2 validation task(s), training.minValTasks is 3',
  ...over,
});

describe('a thin night', () => {
  it('names the project whose skill was skipped, and the personal skill as such', () => {
    const summary = summarizeNight({ items: [item({}), item({ project: null, routedBy: 'personal', reason: 'no tasks' })], proposals: [], dryRun: false, status: 'nothing_staged' });
    expect(summary).toBe('nothing staged: skillopt-sleep-learned (tallybook): thin night: 2 validation task(s), training.minValTasks is 3; skillopt-sleep-learned (personal: recurs across projects): no tasks');
  });

  it('the report names the project on the reason line as in the skills table', () => {
    const text = renderNightReport({
      schema: 'skillopt-sleep.night.v1',
      id: 'n1',
      status: 'nothing_staged',
      dryRun: false,
      startedAt: '2026-12-01T00:00:00Z',
      endedAt: null,
      project: null,
      deadline: null,
      backends: null,
      harvest: null,
      mining: null,
      forecast: null,
      limits: { maxUsd: 1, maxTokens: 1, maxCalls: 1, maxTasks: 1, deadline: '06:00' },
      used: { usd: 0, tokens: 0, calls: 0 },
      items: [item({ needed: 'about 1 more recurring task(s) for this skill' })],
      proposals: [],
      summary: 's',
      notes: [],
      recovered: [],
    });
    expect(text).toContain('| skillopt-sleep-learned (tallybook) |');
    expect(text).toContain('- **skillopt-sleep-learned** (tallybook): thin night: 2 validation task(s), training.minValTasks is 3. Needed: about 1 more recurring task(s) for this skill');
  });

  it('counts the recurring tasks still needed: each new one is held out once the skill keeps 2 train tasks', () => {
    // 2 val of 3 with 3 train: one more task (held out on arrival) lets it gate
    expect(checkItem({ train: [t('a', 'train'), t('b', 'train'), t('c', 'train')], val: [t('v', 'val'), t('w', 'val')], test: [] }, 3)?.needed).toMatch(/^about 1 more recurring task\(s\)/);
    // 1 val, 1 train: the second train task first, then two held out
    expect(checkItem({ train: [t('a', 'train')], val: [t('v', 'val')], test: [t('x', 'test')] }, 3)?.needed).toMatch(/^about 3 more recurring task\(s\)/);
    expect(checkItem({ train: [t('a', 'train'), t('b', 'train')], val: [t('v', 'val'), t('w', 'val'), t('u', 'val')], test: [] }, 3)).toBeUndefined();
  });
});

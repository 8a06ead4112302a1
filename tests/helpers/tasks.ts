/**
 * A `Task` for tests: the record fields every test leaves at their defaults (a real, active,
 * unreviewed task seen once), so a test spells out only what it is about.
 */
import type { Task } from '../../src/core/records.js';

export function makeTask(t: Pick<Task, 'id' | 'intent' | 'judge' | 'split'> & Partial<Task>): Task {
  return {
    project: null,
    context: '',
    origin: 'real',
    skillHint: null,
    family: null,
    occurrences: 1,
    firstSeen: null,
    lastSeen: null,
    status: 'active',
    reviewed: false,
    corrections: [],
    agents: [],
    ...t,
  };
}

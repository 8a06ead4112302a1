import { describe, expect, it } from 'vitest';
import type { Edit } from '../../src/core/records.js';
import { withoutInstanceValues } from '../../src/skilldoc/instance-values.js';
import { makeTask } from '../helpers/tasks.js';

const JUDGE = { checks: [], reference: { kind: 'rule' as const } };
const tasks = new Map([
  ['t1', makeTask({ id: 't1', intent: 'Add a changelog entry for PR #482 (release 2.3.1)', judge: JUDGE, split: 'train' })],
  ['t2', makeTask({ id: 't2', intent: 'Write the commit message for the parser fix', judge: JUDGE, split: 'train' })],
]);
const edit = (content: string, evidence = ['t1']): Edit => ({ op: 'add', content, rationale: 'r', evidence });

describe('instance values in a rule', () => {
  it('a PR number or version copied from an evidence ask becomes a placeholder, inside literals only', () => {
    const e = withoutInstanceValues(edit('- Link the PR after each item, always `(#482)`; title `# Release v2.3.1`. PR #482 was the first.'), tasks);
    expect(e.content).toBe('- Link the PR after each item, always `(#<number>)`; title `# Release vX.Y.Z`. PR #482 was the first.');
  });

  it("leaves a convention's own example alone, and edits whose evidence holds no value", () => {
    const own = edit('- Link the PR, e.g. `(#123)`.');
    expect(withoutInstanceValues(own, tasks)).toBe(own);
    const other = edit('- Cite `(#482)`.', ['t2']);
    expect(withoutInstanceValues(other, tasks)).toBe(other);
  });
});

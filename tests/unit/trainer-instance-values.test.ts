import { describe, expect, it } from 'vitest';
import { askValues, withAskPlaceholders } from '../../src/skilldoc/instance-values.js';
import { makeTask } from '../helpers/tasks.js';

const JUDGE = { checks: [], reference: { kind: 'rule' as const } };
const t1 = makeTask({ id: 't1', intent: 'Add a changelog entry for PR #482 (release 2.3.1)', judge: JUDGE, split: 'train' });
const t2 = makeTask({ id: 't2', intent: 'Write the commit message for the parser fix', judge: JUDGE, split: 'train' });

describe('instance values in a rule', () => {
  it('a PR number or version the asks state becomes a placeholder', () => {
    const values = askValues([t1]);
    expect(withAskPlaceholders('Link the PR after each item, always `(#482)`; title `# Release v2.3.1`.', values)).toBe('Link the PR after each item, always `(#<number>)`; title `# Release vX.Y.Z`.');
  });

  it("leaves a convention's own example alone, and values no ask states", () => {
    expect(withAskPlaceholders('Link the PR, e.g. `(#123)`.', askValues([t1]))).toBe('Link the PR, e.g. `(#123)`.');
    expect(withAskPlaceholders('Cite `(#482)`.', askValues([t2]))).toBe('Cite `(#482)`.');
  });
});

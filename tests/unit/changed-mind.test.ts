/**
 * A changed mind reaches neither the judge nor the optimizer (issue 41): "put it under
 * `## Unreleased`", later "use `## [Unreleased]` with the brackets from now on" — the older value
 * leaves the family's judge and rubric, and the optimizer's evidence, so the loop cannot learn
 * again what the user took back. Two bounds of two different jobs are not a changed mind.
 */
import { describe, expect, it } from 'vitest';
import { currentCorrections } from '../../src/mine/family.js';
import { supersededCorrections } from '../../src/trainer/optimizer/evidence.js';
import { respelled } from '../../src/skilldoc/wording-lint.js';
import { makeTask } from '../helpers/tasks.js';

const JUDGE = { checks: [], reference: { kind: 'rule' as const } };

const OLD = 'new entries go under a `## Unreleased` heading at the top';
const NEW = 'use `## [Unreleased]` with the brackets from now on, the Keep a Changelog way';

describe('a changed mind', () => {
  it('two spellings of one heading are one value, changed; two headings are two', () => {
    expect(respelled(OLD, NEW)).toBe('unreleased → [unreleased]');
    expect(respelled('add a `## Risk` section', 'add a `## Testing` section')).toBeNull();
  });

  it('the family judge keeps only what no later correction replaced (oldest first)', () => {
    expect(currentCorrections([OLD, 'no WIP in the subject', NEW])).toEqual(['no WIP in the subject', NEW]);
    expect(currentCorrections(['make them at least 500 characters', 'at least 1000 characters from now on'])).toEqual(['at least 1000 characters from now on']);
    // the other order: the newer said last wins
    expect(currentCorrections([NEW, OLD])).toEqual([OLD]);
  });

  it('the optimizer is not shown a correction a newer one replaced, across the run\'s tasks', () => {
    const older = makeTask({ intent: 'write the entry', judge: JUDGE, split: 'train', id: 'a', family: 'changelog', corrections: [OLD, 'keep it under 300 characters'], correctionSources: [{ session: 's1', at: 1 }, { session: 's1', at: 1 }] });
    const newer = makeTask({ intent: 'write the entry', judge: JUDGE, split: 'train', id: 'b', family: 'changelog-2', corrections: [NEW], correctionSources: [{ session: 's9', at: 9 }] });
    // a bound in another job (family) is that job's rule, not a changed mind
    const pr = makeTask({ intent: 'write the entry', judge: JUDGE, split: 'train', id: 'c', family: 'pr', corrections: ['keep it under 500 characters'], correctionSources: [{ session: 's9', at: 9 }] });
    expect([...supersededCorrections([older, newer, pr])]).toEqual([OLD]);
    // within one family a newer bound does replace the older
    const same = makeTask({ intent: 'write the entry', judge: JUDGE, split: 'train', id: 'd', family: 'changelog', corrections: ['keep it under 500 characters'], correctionSources: [{ session: 's9', at: 9 }] });
    expect(supersededCorrections([older, same]).has('keep it under 300 characters')).toBe(true);
  });
});

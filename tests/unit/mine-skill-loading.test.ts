import { describe, expect, it } from 'vitest';
import { familyPhrase, skillDescriptionOfTasks } from '../../src/mine/skill-description.js';
import { listedPhrases, simLoadsSkill } from '../../bench/skill-loader.js';
import { cutAsksDescription } from '../../bench/mine-skill-load.js';

const skill = (description: string) => ({ name: 'ledgerline-recurring', description });

describe('the sim agent loads a skill from its description', () => {
  const d = 'Use when writing a CHANGELOG entry, a commit message or release notes, fixing lint errors or TypeScript type errors in ledgerline.';

  it('reads a description as the list of jobs it names', () => {
    expect(listedPhrases(d)).toEqual(['writing a CHANGELOG entry', 'a commit message', 'release notes', 'fixing lint errors', 'TypeScript type errors']);
  });

  it('loads the skill for an ask of a job the description names, in other words than the description', () => {
    expect(simLoadsSkill(skill(d), 'note PR #12 in CHANGELOG.md under Fixed')).toBe(true);
    expect(simLoadsSkill(skill(d), 'tsc reports errors after my refactor of the billing service')).toBe(true);
    expect(simLoadsSkill(skill(d), 'make npm run lint pass')).toBe(true);
  });

  it('does not load it for another job or a one-off', () => {
    expect(simLoadsSkill(skill(d), 'write vitest cases for parseAmount')).toBe(false);
    expect(simLoadsSkill(skill(d), 'brainstorm a websocket design for the upload queue')).toBe(false);
  });

  it('matches a job it has no name for by every word of the listed phrase', () => {
    const s = skill('Use when asked to sketch an architecture in ledgerline.');
    expect(simLoadsSkill(s, 'sketch an architecture for the search index')).toBe(true);
    expect(simLoadsSkill(s, 'sketch a logo')).toBe(false);
  });

  it('a description that only lists cut asks loads less (the baseline the bench prints)', () => {
    const tasks = [
      { id: 't1', family: 'f1', intent: 'Write a changelog entry for the rounding fix in the billing service, with a link to the issue tracker', occurrences: 3 },
      { id: 't2', family: 'f2', intent: 'fix the eslint errors in src/a.ts', occurrences: 2 },
    ];
    const cut = cutAsksDescription(tasks);
    expect(cut).toMatch(/…/);
    const ours = skillDescriptionOfTasks('/home/dana/src/ledgerline', tasks);
    expect(ours).toBe('Use when writing a CHANGELOG entry or fixing lint errors in ledgerline.');
    expect(simLoadsSkill(skill(ours), 'changelog entry for the timezone fix please')).toBe(true);
  });
});

describe('fallback job phrases', () => {
  it('drop code identifiers and a follow-up connective, as they drop paths', () => {
    expect(familyPhrase({ intents: ['then move computeHeader into src/lib/render.ts'] })).toBe('asked to move');
    expect(familyPhrase({ intents: ['and also rename tenant_id in the billing service'] })).toBe('asked to rename in the billing service');
  });

  it('orders families by how many tasks they have', () => {
    const d = skillDescriptionOfTasks(null, [
      { id: 'a', family: 'lint', intent: 'fix the eslint errors in src/a.ts', occurrences: 1 },
      { id: 'b', family: 'tests', intent: 'write vitest cases for parseAmount', occurrences: 1 },
      { id: 'c', family: 'tests', intent: 'we need tests for formatDate', occurrences: 1 },
    ]);
    expect(d).toBe('Use when writing unit tests or fixing lint errors in any of your projects.');
  });
});

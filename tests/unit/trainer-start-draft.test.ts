import { describe, expect, it } from 'vitest';
import { asRule, commonAsk, correctionsDraft, draftJobs, draftText, GENERAL_SECTION, MAX_CORRECTIONS_PER_JOB, taskCorrections } from '../../src/trainer/passes/start-draft.js';
import { askValues, withAskPlaceholders } from '../../src/skilldoc/instance-values.js';
import { personaWorld } from '../../bench/persona.js';
import { parseSkill } from '../../src/llm/sim/skill-rules.js';
import type { Task } from '../../src/core/records.js';
import { makeTask } from '../helpers/tasks.js';

const judge = { checks: [], reference: { kind: 'rule' as const } };
const task = (id: string, family: string, intent: string, corrections: string[], split: Task['split'] = 'train'): Task => makeTask({ id, family, intent, corrections, judge, split });

const commit = ['keep it under 300 characters', "don't write WIP in it"];
const tasks = [
  task('c1', 'fc', 'give me a commit message: drop Node 18 support', commit),
  task('c2', 'fc', 'write the commit message for the importer fix', commit),
  task('c3', 'fc', 'commit msg for the sync rename please', [...commit, 'keep it under 300 characters  ']),
  task('l1', 'fl', 'add a changelog entry for PR #12: fix rounding', ['no, new entries go under `## [Unreleased]` at the top']),
  task('l2', 'fl', 'write the CHANGELOG entry for the json flag (#40)', ['no, new entries go under `## [Unreleased]` at the top', 'keep it under 300 characters'], 'val'),
  task('o1', 'fo', 'why is the CI job so slow lately?', []),
];

describe('the corrections draft (the notepad as a floor)', () => {
  it('puts each correction under the job it was said of, named as a new ask would name it', () => {
    const jobs = draftJobs(tasks);
    expect(jobs.map((j) => j.phrase)).toEqual(['writing a commit message', 'writing a CHANGELOG entry']);
    // said in both families, carried most by the commit family: it is a commit rule only
    // each as a person would write the rule: imperative, the conversational "no," gone
    expect(jobs[0].corrections).toEqual(['Keep it under 300 characters.', "Don't write WIP in it."]);
    expect(jobs[1].corrections).toEqual(['New entries go under `## [Unreleased]` at the top.']);
  });

  it('a family without corrections gets no section; none at all gives no draft', () => {
    expect(draftJobs([tasks[5]])).toEqual([]);
    expect(correctionsDraft('# skill\n', [tasks[5]], 'document')).toBeNull();
  });

  it('drops only the interjection a correction opened with', () => {
    expect(asRule('no, new entries go under `## [Unreleased]` at the top')).toBe('new entries go under `## [Unreleased]` at the top');
    expect(asRule('Nope. Hmm, use `it.each`')).toBe('use `it.each`');
    expect(asRule('no emojis in the changelog')).toBe('no emojis in the changelog');
    expect(asRule('not quite, keep  it short')).toBe('keep it short');
  });

  it('caps a job section', () => {
    const many = Array.from({ length: 20 }, (_, i) => `rule number ${i} for commits`);
    expect(draftJobs([task('m', 'fm', 'write the commit message', many)])[0].corrections).toHaveLength(MAX_CORRECTIONS_PER_JOB);
  });

  it('adds the draft to the start document, job sections first and a section for every job last', () => {
    const start = '---\nname: learned\ndescription: Use when writing a commit message.\n---\n\n# learned\n\nLearned by skillopt-sleep.\n';
    const d = correctionsDraft(start, tasks, 'document')!;
    expect(d.content.startsWith(start.trimEnd())).toBe(true);
    expect(d.content).toContain('## When writing a commit message\n\n- Keep it under 300 characters.\n- Don\'t write WIP in it.');
    expect(d.content.trimEnd().endsWith(GENERAL_SECTION)).toBe(true);
    expect(d.content).toContain(draftText(d.jobs));
  });

  it('a reader scopes each rule to its section, and a rule after the last section to every job', () => {
    const d = correctionsDraft('# learned\n', tasks, 'document')!;
    const rules = parseSkill(`${d.content}\n- Be concise.`).rules;
    expect(rules.find((r) => r.text.includes('300 characters'))?.scope).toEqual(['commit']);
    expect(rules.find((r) => r.text.includes('Unreleased'))?.scope).toEqual(['changelog']);
    expect(rules.find((r) => r.text.includes('Be concise'))?.scope ?? null).toBeNull();
  });

  it('on a later night adds only what the document does not hold yet, under its job or before the section for every job', () => {
    const first = correctionsDraft('# learned\n', tasks, 'document')!;
    // the same corrections again: nothing to draft
    expect(correctionsDraft(first.content, tasks, 'document')).toBeNull();
    const later = [
      ...tasks,
      task('c4', 'fc', 'write the commit message for the cache fix', ['end it with `Signed-off-by: Name <email>`']),
      task('r1', 'fr', 'draft the release notes for v1.2.0', ['start with a `# Release vX.Y.Z` title line']),
      task('r2', 'fr', 'write release notes for v1.3.0', ['start with a `# Release vX.Y.Z` title line']),
    ];
    const withRule = `${first.content}- Be concise.\n`;
    const next = correctionsDraft(withRule, later, 'document')!;
    expect(next.edits.map((e) => e.op)).toEqual(['add', 'replace']);
    expect(next.content.match(/## When writing a commit message/g)).toHaveLength(1);
    expect(next.content.match(/Keep it under 300 characters/g)).toHaveLength(1);
    // first in its section's list (the applier puts a rule added under a heading at the top of the list)
    expect(next.content).toMatch(/## When writing a commit message\n\n- End it with `Signed-off-by: Name <email>`\.\n- Keep it under 300 characters\.\n/);
    // a new job's section goes before the section for every job; the optimizer's rule stays last
    expect(next.content.indexOf('## When writing release notes')).toBeLessThan(next.content.indexOf(GENERAL_SECTION));
    expect(next.content.trimEnd().endsWith(`${GENERAL_SECTION}\n- Be concise.`)).toBe(true);
    expect(next.content.match(new RegExp(GENERAL_SECTION, 'g'))).toHaveLength(1);
  });

  it('goes into the learned region of a hand-written skill', () => {
    const hand = '# Our conventions\n\n- Use two spaces.\n';
    const d = correctionsDraft(hand, tasks, 'learned')!;
    expect(d.content).toContain('- Use two spaces.');
    expect(d.content).toMatch(/skillopt:learned:start[\s\S]*## When writing a commit message[\s\S]*skillopt:learned:end/);
  });

  it("drafts each job's visible check descriptions beside its corrections, never a sealed check", () => {
    const checked: Task[] = [
      makeTask({ id: 'p1', family: 'fp', intent: 'Summarize pull request #412 (the cache fix) for the reviewers.', split: 'train', corrections: [], judge: { checks: [{ id: 'n', op: 'regex', value: 'PR #\\d+', weight: 1, sealed: false, description: 'Name the pull request as `PR #412` in PR summaries' }, { id: 's', op: 'contains', value: 'secret', weight: 1, sealed: true, description: 'the hidden verifier' }], reference: { kind: 'rubric', rubric: '- The user said: "way too long, keep PR summaries under 500 characters"', passThreshold: 0.9 } } }),
      makeTask({ id: 'p2', family: 'fp', intent: 'Summarize pull request #87 (the sync rename) for the reviewers.', split: 'val', corrections: [], judge: { checks: [], reference: { kind: 'rule' } } }),
    ];
    const [job] = draftJobs(checked);
    // the PR number one ask states is that instance's: a placeholder, never #412
    expect(job.checks).toEqual(['Name the pull request as `PR #<number>` in PR summaries.']);
    // the rubric's quote is the user's correction (the task carries no list of its own)
    // … as the rule it carried, without the complaint
    expect(job.corrections).toEqual(['Keep PR summaries under 500 characters.']);
    expect(draftText([job])).not.toContain('hidden verifier');
    expect(draftJobs(checked, { withChecks: false })[0].checks).toBeUndefined();
  });

  it('never drafts a check grounded in outcomes: what the user kept or the command that worked is the loop\'s to learn', () => {
    const judge = (grounded?: 'kept' | 'procedure'): Task['judge'] => ({
      checks: [
        { id: 'said', op: 'contains', value: '## Risk', weight: 1, sealed: false, description: 'Add a `## Risk` section to PR descriptions' },
        { id: 'kept', op: 'regex', value: '^fix\\(', weight: 1, sealed: false, grounded, description: 'Start the commit message with `fix(<scope>):` (kept in 4 of 5 commits)' },
      ],
      reference: { kind: 'rule' },
    });
    const asks = ['Describe pull request #12 for the reviewers.', 'Describe pull request #40 for the reviewers.'];
    const list = (grounded?: 'kept' | 'procedure') => asks.map((intent, i) => makeTask({ id: `g${i}`, family: 'fg', intent, split: 'train', corrections: [], judge: judge(grounded) }));
    expect(draftJobs(list('kept'))[0].checks).toEqual(['Add a `## Risk` section to PR descriptions.']);
    expect(draftJobs(list('procedure'))[0].checks).toEqual(['Add a `## Risk` section to PR descriptions.']);
    // the same description, said by the user (not grounded), is drafted
    expect(draftJobs(list())[0].checks).toContain('Start the commit message with `fix(<scope>):` (kept in 4 of 5 commits).');
  });

  it('names a job by what all its asks say alike, and keeps instance values out of rules', () => {
    const withPlaceholders = (rule: string, list: Task[]): string => withAskPlaceholders(rule, askValues(list));
    expect(commonAsk(['Fix the bug reported in issue #12: the importer is broken.', 'Fix the bug reported in issue #40: the watcher is broken.'])).toBe('Fix the bug reported in issue');
    expect(commonAsk(['write a commit', 'draft notes'])).toBeNull();
    expect(withPlaceholders('cite `(#412)` and `v1.2.3`, not #7', [task('x', 'f', 'for PR #412 in v1.2.3', [])])).toBe('cite `(#<number>)` and `vX.Y.Z`, not #7');
    expect(taskCorrections(task('y', 'f', 'x', ['keep it short']))).toEqual(['keep it short']);
  });

  it('writes a function, package or author the asks name as a placeholder, and leaves other words alone', () => {
    const withPlaceholders = (rule: string, list: Task[]): string => withAskPlaceholders(rule, askValues(list));
    const asks = [
      makeTask({ id: 'a', family: 'f', split: 'train', intent: 'Write unit tests for the `slugify` function in src/text.ts.', context: 'Package: logpipe. Author: Dana Kim <dana@kim.dev>.', corrections: [], judge }),
      makeTask({ id: 'b', family: 'f', split: 'train', intent: 'Write unit tests for the `parseAmount` function.', context: 'Package: logpipe.', corrections: [], judge }),
    ];
    expect(withPlaceholders("wrap them in `describe('slugify', () => {`", asks)).toBe("wrap them in `describe('<function>', () => {`");
    expect(withPlaceholders('install with `npm install logpipe`', asks)).toBe('install with `npm install <package>`');
    expect(withPlaceholders('end with `Signed-off-by: Dana Kim <dana@kim.dev>`', asks)).toBe('end with `Signed-off-by: Name <email>`');
    // a value inside a longer word, or a word no ask names, stays as written
    expect(withPlaceholders('use slugifyAll and `npm install logpipes`', asks)).toBe('use slugifyAll and `npm install logpipes`');
  });

  it('on the persona world: one section per job, each scoped by the sim reader to that job only, no test task read', () => {
    const w = personaWorld(3, { train: 16, val: 8, test: 8 });
    const d = correctionsDraft('', [...w.train, ...w.val], 'document')!;
    expect(d.jobs).toHaveLength(8);
    const rules = parseSkill(d.content).rules;
    // every drafted rule is scoped to exactly one job (none leaks to every reply)
    expect(rules.length).toBeGreaterThan(16);
    for (const r of rules) expect(r.scope?.length, r.text).toBe(1);
    // no instance literal of a train/val ask in the draft
    for (const t of [...w.train, ...w.val]) for (const m of `${t.intent} ${t.context}`.matchAll(/#(\d+)/g)) expect(d.content).not.toContain(`#${m[1]}`);
  });
});

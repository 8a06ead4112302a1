/**
 * What the simulated target knows of the world before any skill: how to recognise a kind of job
 * from words (the ask, or a rule that names it), and the habits an untrained model has when it
 * does that job. Habits are plausible defaults ("## Upcoming", a celebratory emoji, jest.fn, a
 * long explanation), which is why an empty skill scores low on a user's preferences. Nothing here
 * reads a task's checks; the sim target gets only the skill and the ask.
 */

export interface Subject {
  change: string;
  fn: string;
  file: string;
  pkg: string;
  version: string;
  pr: number;
  issue: number;
  author: string;
  email: string;
}

/** A kind of job the model recognises by its words. */
export interface JobKind {
  key: string;
  /** words that name the job, in an ask or in a rule ("changelog", "commit message") */
  names: RegExp;
}

export const JOB_KINDS: JobKind[] = [
  { key: 'changelog', names: /\bchange[\s-]?logs?\b/i },
  // (a model knows "test parseAmount properly" and "it has no tests yet, add some" ask for unit tests)
  { key: 'tests', names: /\b(unit[\s-]?tests?|tests? (?:for|with)|vitest|test files?|test cases?|specs?)\b|^\s*test\s+\w|\bno tests\b/i },
  { key: 'lint', names: /\b(lint(?:er|ing)?|eslint)\b/i },
  { key: 'release', names: /\brelease[\s-]?notes?\b|\breleases?\b/i },
  { key: 'commit', names: /\bcommits?(?: messages?)?\b/i },
  // (a model knows a "PR body" is the PR's description, and that "the changes in PR #12" are a PR's)
  { key: 'pr', names: /\b(pull[\s-]?requests?|PR (?:summar(?:y|ies)|descriptions?|bod(?:y|ies))|PR summar|PR #\d+)/i },
  { key: 'docs', names: /\b(readme|docs?|documentation)\b/i },
  { key: 'bugfix', names: /\b(bug ?fix(?:es)?|bug reports?|fix reports?|the bug|a bug)\b/i },
];

/** The job an ask is about (first kind whose words it uses), or null for an unknown job. */
export function jobOfAsk(intent: string): string | null {
  // an ask names its own job first; later words ("… for the changelog") are context
  let best: { key: string; at: number } | null = null;
  for (const k of JOB_KINDS) {
    const m = k.names.exec(intent);
    if (m && (best === null || m.index < best.at)) best = { key: k.key, at: m.index };
  }
  return best?.key ?? null;
}

/** Every job a rule names (a rule may name none: then it is meant for every job). */
export function jobsNamed(text: string): string[] {
  return JOB_KINDS.filter((k) => k.names.test(text)).map((k) => k.key);
}

/**
 * One piece of a reply the model writes by habit. `tags` are what a rule must be about to
 * change the habit (a prohibition on "emoji" drops a habit tagged emoji); `p` is how often the
 * habit shows up.
 */
export interface Habit {
  kind: 'opening' | 'line' | 'section' | 'code' | 'padding';
  text: string;
  tags: string[];
  p: number;
  heading?: string;
}

/** Values of the instance the ask and the context make visible (what a model can copy). */
export interface Visible {
  change: string;
  pr: string | null;
  version: string | null;
  fn: string | null;
  pkg: string | null;
  issue: string | null;
  author: string | null;
  email: string | null;
}

/** What a model can read off the ask and the context: the PR number, version, function… */
export function visibleValues(intent: string, context: string): Visible {
  const all = `${intent}\n${context}`;
  const pick = (re: RegExp): string | null => re.exec(all)?.[1] ?? null;
  return {
    change:
      pick(/this change: (.+?) \(PR/) ??
      pick(/issue #\d+: (.+?) is broken/) ??
      pick(/Merged since the last release: ([^;\n]+)/) ??
      pick(/\(([a-z][^)]{6,80})\)/) ??
      pick(/\bfor: (.+?)\.?$/m) ??
      intent.split(/[.\n]/)[0],
    pr: pick(/\bPR #(\d+)/) ?? pick(/pull request #(\d+)/i),
    version: pick(/\bversion (\d+\.\d+\.\d+)/i) ?? pick(/\bv(\d+\.\d+\.\d+)/),
    fn: pick(/`([A-Za-z_$][\w$]*)`/),
    pkg: pick(/\bPackage: ([\w@/-]+)/) ?? pick(/\bthe ([\w-]+) package\b/),
    issue: pick(/\bissue #(\d+)/i),
    author: pick(/\bAuthor: ([^<\n]+?) </),
    email: pick(/\bAuthor: [^<\n]+ <([^>\s]+)>/),
  };
}

const cap = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** The untrained model's reply for a job: its habits, each drawn with its own probability. */
export function habitsFor(job: string | null, v: Visible): Habit[] {
  const change = cap(v.change.trim());
  const fn = v.fn ?? 'fn';
  switch (job) {
    case 'changelog':
      return [
        { kind: 'opening', text: 'Here is the changelog entry:', tags: [], p: 1 },
        { kind: 'section', heading: 'Upcoming', text: `- ${change} 🎉`, tags: ['emoji'], p: 1 },
      ];
    case 'tests':
      return [
        { kind: 'opening', text: `Here are tests for \`${fn}\`:`, tags: [], p: 1 },
        {
          kind: 'code',
          text: `import { ${fn} } from '../src/${fn}';\n\ntest('${fn} works', () => {\n  const spy = jest.fn();\n  expect(${fn}(spy)).toBeDefined();\n});`,
          tags: ['jest', 'mock'],
          p: 1,
        },
      ];
    case 'lint':
      return [
        { kind: 'opening', text: 'I fixed the lint errors.', tags: [], p: 1 },
        { kind: 'line', text: '- Added `// eslint-disable-next-line no-unused-vars` above the leftover variable.', tags: ['eslint', 'disable', 'silence', 'lint'], p: 0.6 },
        { kind: 'line', text: '- Changed `let` to `const` where the value is never reassigned.', tags: [], p: 1 },
        { kind: 'padding', text: 'The errors came from code written before the rules were enabled. I went through each reported line, checked whether the variable was used anywhere else in the module, and made the smallest change that satisfies the rule. The behaviour of the module is unchanged, the public exports are the same, and nothing outside this file needed to change. If more errors show up in other files, the same approach applies there.', tags: ['short'], p: 1 },
      ];
    case 'release':
      return [
        { kind: 'opening', text: `${v.pkg ?? 'Package'} ${v.version ?? ''} release notes`.replace(/\s+/g, ' '), tags: [], p: 1 },
        { kind: 'section', heading: "What's new", text: `- ${change}`, tags: [], p: 1 },
        { kind: 'padding', text: 'Thanks to everyone who contributed to this release. Upgrade at your convenience.', tags: [], p: 1 },
      ];
    case 'commit':
      return [
        { kind: 'opening', text: `Update: ${v.change.trim()}`, tags: [], p: 1 },
        { kind: 'line', text: 'WIP - more cleanup to follow.', tags: ['wip'], p: 0.4 },
      ];
    case 'pr':
      return [
        { kind: 'opening', text: 'This pull request makes the following changes.', tags: [], p: 1 },
        { kind: 'line', text: `- ${change}`, tags: [], p: 1 },
        { kind: 'padding', text: 'Reviewers should look at the diff as a whole; the change is self-contained and the tests were updated where needed. The main module gained a small helper, the call sites were switched over one by one, and the old code path was removed once nothing used it any more. I also tidied a few names along the way so the intent reads better, and added comments where the reasoning is not obvious from the code alone. There are no changes to the public interface.', tags: ['short'], p: 1 },
      ];
    case 'docs':
      return [
        { kind: 'opening', text: `## ${v.pkg ?? 'Project'}`, tags: [], p: 1 },
        { kind: 'line', text: `To get started, simply install the package and import it.`, tags: ['simply'], p: 0.7 },
      ];
    case 'bugfix':
      return [
        { kind: 'opening', text: 'I found and fixed the bug.', tags: [], p: 1 },
        { kind: 'line', text: `- ${change}`, tags: [], p: 1 },
      ];
    default:
      return [{ kind: 'opening', text: `Here is the result for: ${cap(v.change.trim())}.`, tags: [], p: 1 }];
  }
}

/**
 * The shell commands an untrained model runs for a job, by habit: the generic ones (`npm test`,
 * `npx eslint .`). A project whose procedure differs (`pnpm vitest run`, `eslint --cache`) gets
 * them only from a rule that names the command (skill-rules `command` directive).
 */
export function habitCommands(job: string | null): Array<{ command: string; purpose: 'test' | 'lint' | 'typecheck' | 'build' | 'format' }> {
  switch (job) {
    case 'tests':
    case 'bugfix':
      return [{ command: 'npm test', purpose: 'test' }];
    case 'lint':
    case 'commit':
      return [{ command: 'npx eslint .', purpose: 'lint' }];
    default:
      return [];
  }
}

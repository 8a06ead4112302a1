/**
 * The demo's story: a developer ("dana") who repeats the same jobs to three agents over two weeks
 * and corrects them the same way each time. Pure data; `corpus.ts` writes it in each agent's format.
 */
export interface DemoTurn {
  prompt: string;
  reply: string;
  tools: Array<{ name: string; input: string; output: string; isError?: boolean }>;
}

export interface DemoSession {
  agent: 'claude-code' | 'codex' | 'copilot';
  project: 'ledgerline' | 'tallybook';
  day: number; // days before "now"
  turns: DemoTurn[];
}

interface Job {
  prompts: string[]; // paraphrases of the same request
  replies: string[]; // what the agent did (the mistakes the user then corrects)
  corrections: string[]; // how the user corrects it, consistently
  tool: { name: string; input: string; output: string; isError?: boolean };
}

const JOBS: Record<string, Job> = {
  changelog: {
    prompts: [
      'write a changelog entry for the rounding fix (#412)',
      'add a changelog entry for the currency parser fix (#418)',
      'changelog entry for the new formatCompact option (#421) please',
      'write the changelog entry for the locale fallback fix (#430)',
      'add a CHANGELOG entry for the negative zero bug (#433)',
      'please write a changelog entry for the thousands separator change (#437)',
      'changelog entry for dropping Node 18 support (#440)',
    ],
    replies: [
      'Added to CHANGELOG.md:\n\n- Fixed rounding of half cents.',
      'I added a line to the changelog: "parser fix".',
      'Updated CHANGELOG.md with a new bullet at the top.',
    ],
    corrections: [
      'no, use Keep a Changelog format: put it under ## [Unreleased] in a ### Fixed or ### Added section',
      'link the PR, like [#412](https://github.com/dana/ledgerline/pull/412)',
    ],
    tool: { name: 'Edit', input: 'CHANGELOG.md', output: 'edited CHANGELOG.md' },
  },
  vitest: {
    prompts: [
      'add a unit test for parseAmount covering negatives and empty string',
      'write vitest unit tests for formatCompact',
      'add unit tests for roundHalfEven edge cases',
      'write a unit test for the locale fallback in formatAmount',
      'add unit tests for the parseAmount thousands separators',
      'cover toMinorUnits with unit tests',
    ],
    replies: [
      "Added tests/parse.test.ts:\n\n```ts\ntest('parses negatives', () => { expect(parseAmount('-1')).toBe(-100) })\n```",
      'Wrote three separate test() calls in a new file.',
    ],
    corrections: [
      'use it.each for the table cases instead of repeating test()',
      'wrap them in a describe block named after the function, and import from vitest explicitly',
    ],
    tool: { name: 'Bash', input: 'npx vitest run', output: 'FAIL tests/parse.test.ts\nProcess exited with code 1', isError: true },
  },
  releasenote: {
    prompts: [
      'draft the release notes for v2.4.0, mostly the rounding and parser fixes',
      'write release notes for 2.5.0, the compact formatting release',
      'release notes for v2.6.0 please, from the changelog',
      'draft the v2.7.0 release notes, it drops Node 18',
      'write the release notes for v2.8.0 covering the locale fallback work',
    ],
    replies: ['Here are the release notes: we fixed some bugs and added features.', 'Release 2.5.0 includes several improvements.'],
    corrections: [
      'start with a ## Highlights section, then ## Breaking changes even if empty',
      'keep it under 200 words and list the upgrade steps',
    ],
    tool: { name: 'Read', input: 'CHANGELOG.md', output: '## [Unreleased]\n### Fixed\n- ...' },
  },
};

const NOISE = [
  'why is the build slow on CI today?',
  'rename the variable tmp to scratch in src/util.ts',
  'explain what Intl.NumberFormat does with currencyDisplay',
  'bump typescript to 5.9 in package.json',
  'what does this regex match: ^\\d{1,3}(,\\d{3})*$',
  'delete the unused fixtures folder',
];

function pick<T>(arr: T[], i: number): T {
  return arr[i % arr.length];
}

/** Builds the scripted sessions: every job recurs in ≥4 sessions across agents and projects. */
export function demoSessions(): DemoSession[] {
  const agents: DemoSession['agent'][] = ['claude-code', 'codex', 'copilot'];
  const sessions: DemoSession[] = [];
  let n = 0;
  for (const [, job] of Object.entries(JOBS)) {
    job.prompts.forEach((prompt, i) => {
      const turns: DemoTurn[] = [
        { prompt, reply: pick(job.replies, i), tools: [job.tool] },
        // the user corrects the agent the same way each time (alternating which correction comes first)
        { prompt: pick(job.corrections, i), reply: 'Done, updated as you asked.', tools: [] },
      ];
      if (i % 2 === 0 && job.corrections.length > 1) {
        turns.push({ prompt: pick(job.corrections, i + 1), reply: 'Updated.', tools: [] });
      }
      sessions.push({ agent: pick(agents, n), project: i % 3 === 2 ? 'tallybook' : 'ledgerline', day: 14 - (n % 14), turns });
      n++;
    });
  }
  NOISE.forEach((prompt, i) => {
    sessions.push({
      agent: pick(agents, i + 1),
      project: i % 2 ? 'tallybook' : 'ledgerline',
      day: 13 - i,
      turns: [{ prompt, reply: 'Done.', tools: [] }],
    });
  });
  return sessions;
}

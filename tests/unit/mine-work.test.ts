/**
 * What the agent did for an ask (src/mine/work.ts): the files it wrote and the commands it ran,
 * each reduced to the kind of artefact or tool (never the object), across the agents' tool shapes,
 * and recorded in the ask's outcome.
 */
import { describe, expect, it } from 'vitest';
import { commandSigns, fileSign, workSignsOfCall, MAX_WORK_SIGNS } from '../../src/mine/work.js';
import { extractIntents, type MinedEvent } from '../../src/mine/outcome.js';

const P = '/home/dana/src/ledgerline';

describe('work signs of a written file', () => {
  it.each([
    [`${P}/CHANGELOG.md`, 'wrote CHANGELOG.md'],
    [`${P}/src/utils/parse-amount.test.ts`, 'wrote a test file (*.test.ts)'],
    ['tests/parse_amount.py', 'wrote a test file (*.test.py)'],
    [`${P}/src/api/render-user.ts`, 'wrote src/*.ts'],
    [`${P}/src/cli/merge-range.ts`, 'wrote src/*.ts'],
    [`${P}/.github/workflows/ci.yml`, 'wrote .github/workflows/*'],
    ['migrations/20261001_add_status.ts', 'wrote migrations/*.ts'],
    [`${P}/docs/rate-limiter.md`, 'wrote docs/*.md'],
    ['./package.json', 'wrote package.json'],
  ])('%s → %s', (path, sign) => {
    expect(fileSign(path, P)).toBe(sign);
  });

  it('two objects of one kind give one sign (the object is not the job)', () => {
    expect(fileSign(`${P}/src/core/load-config.ts`, P)).toBe(fileSign(`${P}/src/lib/format-date.ts`, P));
    expect(fileSign(`${P}/src/a/x.test.ts`, P)).toBe(fileSign(`${P}/src/b/y.test.ts`, P));
  });
});

describe('work signs of a command line', () => {
  it.each([
    ['git commit -m "fix: guard the null case"', ['ran git commit']],
    ['npx tsc --noEmit', ['ran tsc']],
    ['npm run lint', ['ran npm run lint']],
    ['npx eslint src/api/x.ts', ['ran eslint']],
    ['npm install zod@latest && npm test', ['ran npm install', 'ran npm test']],
    ['gh pr edit --body-file /tmp/body.md', ['ran gh pr']],
    ['bash -lc npm publish', ['ran npm publish']],
    ['CI=1 npx vitest run src/x.test.ts', ['ran vitest run']],
    ['npx knex migrate:make add_status', ['ran knex migrate:make']],
  ])('%s → %j', (cmd, signs) => {
    expect(commandSigns(cmd)).toEqual(signs);
  });

  it('reads are not work: git log / diff / status, cat, grep, ls', () => {
    expect(commandSigns('git log --oneline v1.2.0..HEAD')).toEqual([]);
    expect(commandSigns('git diff --staged | cat')).toEqual([]);
    expect(commandSigns('cat CHANGELOG.md; ls src; grep -r foo src')).toEqual([]);
  });
});

describe('work signs of one tool call, in each agent\'s shapes', () => {
  it('Claude Code, Codex and Copilot CLI writes and commands', () => {
    expect(workSignsOfCall('Edit', `${P}/CHANGELOG.md`, P)).toEqual(['wrote CHANGELOG.md']);
    expect(workSignsOfCall('Bash', 'git commit -m "x"', P)).toEqual(['ran git commit']);
    expect(workSignsOfCall('apply_patch', '*** Begin Patch\n*** Update File: src/a/b.test.ts\n@@\n*** End Patch', P)).toEqual(['wrote a test file (*.test.ts)']);
    expect(workSignsOfCall('shell', 'bash -lc npx tsc --noEmit', P)).toEqual(['ran tsc']);
    expect(workSignsOfCall('create', `${P}/README.md`, P)).toEqual(['wrote README.md']);
    expect(workSignsOfCall('bash', 'npm version patch', P)).toEqual(['ran npm version']);
  });

  it('reads and searches are no work', () => {
    expect(workSignsOfCall('Read', `${P}/CHANGELOG.md`, P)).toEqual([]);
    expect(workSignsOfCall('view', `${P}/src/a.ts`, P)).toEqual([]);
    expect(workSignsOfCall('Grep', 'TODO', P)).toEqual([]);
    expect(workSignsOfCall('Edit', '', P)).toEqual([]);
  });
});

describe('the outcome of an ask records what the agent did in its turn', () => {
  let seq = 0;
  const ev = (role: string, kind: string, text: string, toolName: string | null = null, meta: Record<string, unknown> = {}): MinedEvent => ({
    seq: seq++,
    ts: seq,
    role,
    kind,
    toolName,
    isError: false,
    text,
    meta,
  });

  it('signs of its own turn (its reactions included), distinct, bounded; none of the next ask', () => {
    const [a, b] = extractIntents(
      [
        ev('user', 'prompt', 'add a changelog entry for the rounding fix'),
        ev('assistant', 'tool_call', `${P}/CHANGELOG.md`, 'Read'),
        ev('assistant', 'tool_call', `${P}/CHANGELOG.md`, 'Edit'),
        ev('assistant', 'tool_call', `${P}/CHANGELOG.md`, 'Edit'),
        ev('assistant', 'text', 'Added.', null, { final: true }),
        ev('user', 'prompt', 'no, put it under Unreleased'),
        ev('assistant', 'tool_call', 'git commit -m "docs: changelog"', 'Bash'),
        ev('assistant', 'text', 'Moved.', null, { final: true }),
        ev('user', 'prompt', 'write vitest cases for parseAmount'),
        ev('assistant', 'tool_call', `${P}/src/utils/parse-amount.test.ts`, 'Write'),
        ev('assistant', 'text', 'Done.', null, { final: true }),
      ],
      P,
    );
    expect(a.outcome.work).toEqual(['wrote CHANGELOG.md', 'ran git commit']);
    expect(b.outcome.work).toEqual(['wrote a test file (*.test.ts)']);

    const many = extractIntents([ev('user', 'prompt', 'refactor the lot'), ...Array.from({ length: 20 }, (_, i) => ev('assistant', 'tool_call', `dir${i}/f.ts`, 'Edit'))], P);
    expect(many[0].outcome.work).toHaveLength(MAX_WORK_SIGNS);
    expect(extractIntents([ev('user', 'prompt', 'explain the auth flow'), ev('assistant', 'text', 'It works like this.', null, { final: true })], P)[0].outcome.work).toBeUndefined();
  });
});

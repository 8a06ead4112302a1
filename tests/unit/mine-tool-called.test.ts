/**
 * `tool_called` checks from mining: a correction asking to run the tests/linter (or to use the
 * command tool), or a habit of verifying in accepted asks, becomes a check that the agent called
 * its command tool — only when the replay target can run commands at all — and that check scores
 * across agents' tool names and can be satisfied by the sim target.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Check, Task } from '../../src/core/records.js';
import type { StoredMember } from '../../src/mine/state.js';
import { extractIntents, type MinedEvent, type Outcome } from '../../src/mine/outcome.js';
import { commandAskOf, synthesizeJudge, validateJudge, type JudgeEvidence } from '../../src/mine/judge-synth.js';
import { familyJudge } from '../../src/mine/family.js';
import { evaluateCheck } from '../../src/core/checks.js';
import { backendRunsCommands, isCommandTool, verifyKindsOfCall, verifyKindsOfCommand } from '../../src/core/tool-kinds.js';
import { perform } from '../../src/llm/sim/target.js';
import { openDb } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { listTasks } from '../../src/store/repos/tasks.js';
import { addSession } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';

const base: JudgeEvidence = { intent: 'add unit tests for parseAmount', prompts: ['add unit tests for parseAmount', 'write tests for formatCompact'], corrections: [] };
const toolChecks = (ev: Partial<JudgeEvidence>): Check[] =>
  synthesizeJudge({ ...base, targetRunsCommands: true, ...ev }).judge.checks.filter((c) => c.op === 'tool_called');

describe('commandAskOf: corrections that ask to run something', () => {
  it.each([
    ['run the tests first', ['test']],
    ['no, run the tests before you answer', ['test']],
    ['you didn\'t run the linter', ['lint']],
    ['you forgot to run npm test', ['test']],
    ['why didn\'t you run the tests?', ['test']],
    ["don't forget to run the tests", ['test']],
    ['run vitest after editing', ['test']],
    ['run eslint and prettier on it', ['format', 'lint']],
    ['make sure the tests pass', ['test']],
    ['run `pnpm run typecheck` too', ['typecheck']],
    ["don't run the whole suite, run the unit tests only", ['test']],
    ['run the linter, not the tests', ['lint']],
    ['use the Bash tool to check it', []],
  ])('%s → %j', (text, kinds) => {
    const ask = commandAskOf(text);
    expect(ask).not.toBeNull();
    expect([...ask!.kinds].sort()).toEqual(kinds);
  });

  it.each([
    'use pnpm, not npm',
    "don't run the tests, they are slow",
    'no need to run the tests',
    'why did you run the whole test suite?',
    'never run the tests on my machine',
    'stop running the linter every time',
    'the test run is slow',
    'run the migration script',
    'without running tests, just write the file',
    'use bash for the script instead of python',
    'make sure the build passes',
    'use it.each for the table cases',
  ])('%s → no ask', (text) => {
    expect(commandAskOf(text)).toBeNull();
  });
});

describe('synthesizeJudge: tool_called from corrections', () => {
  it('"run the tests first" gives one visible tool_called check on the command tool', () => {
    const { judge, preferences } = synthesizeJudge({ ...base, corrections: ['run the tests first'], targetRunsCommands: true });
    const checks = judge.checks.filter((c) => c.op === 'tool_called');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ op: 'tool_called', value: 'Bash', weight: 1, sealed: false });
    expect(checks[0].description).toMatch(/runs the tests with the Bash tool/);
    expect(preferences).toContain('run-commands');
    expect(() => validateJudge(judge)).not.toThrow();
  });

  it('names the command tool of the agent most asks went to', () => {
    expect(toolChecks({ corrections: ['run the tests'], agents: ['codex', 'codex', 'claude-code'] })[0].value).toBe('shell');
    expect(toolChecks({ corrections: ['run the tests'], agents: ['copilot'] })[0].value).toBe('bash');
    expect(toolChecks({ corrections: ['you didn\'t run the linter'] })[0].description).toMatch(/the linter/);
  });

  it('plain corrections and negated runs make no tool_called check', () => {
    expect(toolChecks({ corrections: ['use it.each for the table cases instead of repeating test()', 'link the PR'] })).toEqual([]);
    expect(toolChecks({ corrections: ["don't run the tests, they take ten minutes"] })).toEqual([]);
  });

  it('makes none when the replay target cannot run commands (every CLI and HTTP backend)', () => {
    const { judge } = synthesizeJudge({ ...base, corrections: ['run the tests first'] });
    expect(judge.checks.some((c) => c.op === 'tool_called')).toBe(false);
    expect(['claude', 'codex', 'copilot', 'openai', 'anthropic'].map(backendRunsCommands)).toEqual([false, false, false, false, false]);
    expect(backendRunsCommands('sim')).toBe(true);
  });
});

describe('synthesizeJudge: tool_called from consistent accepted runs', () => {
  const occ = (label: Outcome['label'], verified?: Array<'test' | 'lint'>) => ({ label, ...(verified ? { verified } : {}) });

  it('≥ 3 accepted asks, ≥ 80% of them ran the tests → a half-weight, visible check', () => {
    const checks = toolChecks({ occurrences: [occ('success', ['test']), occ('success', ['test', 'lint']), occ('success', ['test']), occ('success', ['test']), occ('success')] });
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ value: 'Bash', weight: 0.5, sealed: false });
    expect(checks[0].description).toMatch(/runs the tests with the Bash tool/);
  });

  it('too few or too inconsistent accepted asks: no check', () => {
    expect(toolChecks({ occurrences: [occ('success', ['test']), occ('success', ['test'])] })).toEqual([]);
    expect(toolChecks({ occurrences: [occ('success', ['test']), occ('success', ['test']), occ('success', ['test']), occ('success'), occ('success')] })).toEqual([]);
    // corrected asks are not accepted ones, whatever they ran
    expect(toolChecks({ occurrences: [occ('corrected', ['test']), occ('corrected', ['test']), occ('corrected', ['test']), occ('success', ['test']), occ('success', ['test'])] })).toEqual([]);
    // a habit over different kinds is no habit of one
    expect(toolChecks({ occurrences: [occ('success', ['test']), occ('success', ['lint']), occ('success', ['test']), occ('success', ['lint'])] })).toEqual([]);
  });

  it('a correction-derived check wins over the habit (one check, full weight)', () => {
    const checks = toolChecks({ corrections: ['run the tests'], occurrences: [occ('success', ['test']), occ('success', ['test']), occ('success', ['test'])] });
    expect(checks).toHaveLength(1);
    expect(checks[0].weight).toBe(1);
  });
});

describe('familyJudge wiring', () => {
  const member = (i: number, label: Outcome['label'], verified: Outcome['verified'], agent = 'codex'): StoredMember => ({
    sessionId: `${agent}:s${i}`,
    seq: 0,
    project: '/src/ledgerline',
    agent,
    ts: i,
    similarity: 80,
    prompt: `add unit tests for helper${i}`,
    outcome: { tools: ['shell'], toolErrors: 0, final: 'Added the tests; all pass.', reactions: [], label, ...(verified ? { verified } : {}) },
  });
  const ms = [1, 2, 3, 4].map((i) => member(i, 'success', ['test']));

  it('passes the members\' outcomes and agents through, only when the target runs commands', () => {
    const on = familyJudge(ms, { targetRunsCommands: true }).checks.filter((c) => c.op === 'tool_called');
    expect(on.map((c) => [c.value, c.weight])).toEqual([['shell', 0.5]]);
    expect(familyJudge(ms).checks.some((c) => c.op === 'tool_called')).toBe(false);
  });
});

describe('outcome evidence: which verifying commands an ask ran', () => {
  const ev = (seq: number, kind: string, role: string, text: string, toolName: string | null = null): MinedEvent => ({ seq, ts: seq, role, kind, toolName, isError: false, text, meta: {} });

  it('records test/lint runs of command tools, not reads of test files', () => {
    const [a, b] = extractIntents([
      ev(1, 'prompt', 'user', 'add unit tests for parseAmount'),
      ev(2, 'tool_call', 'assistant', 'tests/parse.test.ts', 'Read'),
      ev(3, 'tool_call', 'assistant', 'npx vitest run tests/parse.test.ts', 'Bash'),
      ev(4, 'tool_call', 'assistant', 'bash -lc npm run lint', 'Bash'),
      ev(5, 'text', 'assistant', 'Added the tests.'),
      ev(6, 'prompt', 'user', 'rename the helper in src/util.ts to scratch'),
      ev(7, 'tool_call', 'assistant', 'src/util.ts', 'Edit'),
      ev(8, 'tool_call', 'assistant', 'ls src', 'Bash'),
    ]);
    expect(a.outcome.verified).toEqual(['test', 'lint']);
    expect(b.outcome.verified).toBeUndefined();
  });

  it('classifies commands and tools across agents', () => {
    expect(verifyKindsOfCommand('bash -lc pnpm test')).toEqual(['test']);
    expect(verifyKindsOfCommand('cargo clippy && cargo test')).toEqual(['test', 'lint']);
    expect(verifyKindsOfCommand('npx tsc -p tsconfig.json --noEmit')).toEqual(['typecheck']);
    expect(verifyKindsOfCommand('cat tests/vitest.config.ts')).toEqual([]);
    expect(verifyKindsOfCommand('npm install')).toEqual([]);
    expect(verifyKindsOfCall('run_in_terminal', 'npm test')).toEqual(['test']);
    expect(verifyKindsOfCall('runTests', '{"files":[]}')).toEqual(['test']);
    expect(verifyKindsOfCall('Grep', 'vitest')).toEqual([]);
    expect(['Bash', 'shell', 'exec_command', 'run_in_terminal', 'bash'].every(isCommandTool)).toBe(true);
    expect(['Read', 'apply_patch', 'edit', 'runTests'].some(isCommandTool)).toBe(false);
  });
});

describe('scoring a tool_called check in replay', () => {
  const check = toolChecks({ corrections: ['run the tests first'] })[0];

  it('passes when the rollout called the command tool (any agent\'s name), fails otherwise with feedback', () => {
    expect(evaluateCheck(check, 'Added the tests.', ['Read', 'Bash']).passed).toBe(true);
    expect(evaluateCheck(check, 'Added the tests.', ['shell']).passed).toBe(true); // codex exec's name
    expect(evaluateCheck(check, 'Added the tests.', ['run_in_terminal']).passed).toBe(true);
    const miss = evaluateCheck(check, 'Added the tests.', ['Read', 'Edit']);
    expect(miss.passed).toBe(false);
    expect(miss.feedback).toMatch(/runs the tests/);
    expect(miss.feedback).toMatch(/tools used: Read, Edit/);
    expect(evaluateCheck(check, 'Added the tests.', []).feedback).toMatch(/tools used: none/);
  });

  it('a non-command tool name is still matched exactly (no aliasing)', () => {
    const read: Check = { id: 'r', op: 'tool_called', value: 'Read', weight: 1, sealed: false };
    expect(evaluateCheck(read, 'x', ['Bash']).passed).toBe(false);
    expect(evaluateCheck(read, 'x', ['read']).passed).toBe(true);
  });

  it('the sim target satisfies it when the skill says to run the tests, and mostly not otherwise', () => {
    // the sim target sees only the ask and the skill, never the check
    const ask = { intent: 'add unit tests for parseAmount', context: '' };
    const guided = '- Run the tests with the Bash tool before answering.';
    const passes = (skill: string) =>
      Array.from({ length: 20 }, (_, sample) => {
        const r = perform({ ...ask, skill: { name: 's', content: skill }, sample }, 7);
        return evaluateCheck(check, r.text, r.toolsCalled).passed;
      }).filter(Boolean).length;
    expect(passes(guided)).toBeGreaterThanOrEqual(17);
    expect(passes('')).toBeLessThanOrEqual(8);
    // deterministic: the same seed and sample give the same tools
    const once = perform({ ...ask, skill: { name: 's', content: guided }, sample: 3 }, 7);
    expect(perform({ ...ask, skill: { name: 's', content: guided }, sample: 3 }, 7).toolsCalled).toEqual(once.toolsCalled);
  });
});

describe('runMining wires tool_called to the configured replay target', () => {
  const T0 = Date.UTC(2026, 9, 1);
  const made: string[] = [];
  afterEach(() => made.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  async function mineWith(target: string): Promise<Task[]> {
    const dir = makeTempDir();
    made.push(dir);
    const db = openDb(path.join(dir, 'state', 'sleep.db'));
    try {
      for (let i = 0; i < 3; i++) {
        addSession(db, {
          id: `claude-code:tc${i}`,
          project: '/home/dana/src/ledgerline',
          startedAt: T0 + i * 86_400_000,
          turns: [{ user: `add a vitest unit test for parseAmount case ${i}`, tools: ['Edit'], reply: 'Added the test.' }, { user: "you didn't run the tests, run the tests first" }],
        });
      }
      const config = defaultConfig();
      config.roles.target.backend = target as typeof config.roles.target.backend;
      await runMining(db, config, { now: T0 + 10 * 86_400_000 });
      return listTasks(db, {});
    } finally {
      db.close();
    }
  }

  it('a sim target gets a "ran the tests" check from the corrections; an agent CLI target does not', async () => {
    const sim = await mineWith('sim');
    expect(sim.length).toBeGreaterThan(0);
    for (const t of sim) expect(t.judge.checks.some((c) => c.op === 'tool_called' && c.value === 'Bash')).toBe(true);
    const claude = await mineWith('claude');
    expect(claude.length).toBe(sim.length);
    for (const t of claude) expect(t.judge.checks.some((c) => c.op === 'tool_called')).toBe(false);
  });
});

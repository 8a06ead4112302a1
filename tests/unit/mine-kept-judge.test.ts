/**
 * Issue 41: what the agent produced (artifacts), the properties where what the user kept differs
 * from it consistently (never byte equality), the grounded checks they become, procedures, and the
 * `ran_command` op.
 */
import { describe, expect, it } from 'vitest';
import type { KeptOutcome } from '../../src/core/records.js';
import { evaluateCheck, validateCheck } from '../../src/core/checks.js';
import { judgeResponse } from '../../src/replay/judge.js';
import { ArtifactCollector, commitMessageOfCommand, fencedCommitMessage } from '../../src/mine/kept/artifacts.js';
import { keptProperties, pairDiffs, prefixShape } from '../../src/mine/kept/properties.js';
import { checkOfProcedure, groundedChecks } from '../../src/mine/kept/grounded-judge.js';
import { mergeProcedures, programOf, proceduresOfCommands } from '../../src/mine/kept/procedures.js';
import { ClaudeParser } from '../../adapters/claude-code/parse.js';

const AT = Date.UTC(2026, 10, 12);
const pair = (agent: string, kept: string, i: number, kind: KeptOutcome['kind'] = 'commit_message', file?: string): KeptOutcome => ({
  kind,
  ...(file ? { file } : {}),
  agent,
  kept,
  commit: `a1b2c3d${i}`.padEnd(12, '0'),
  at: AT + i * 86_400_000,
  session: `s${i}`,
});

describe('artifacts: what the agent produced', () => {
  it('reads the message of a git commit command in its usual forms', () => {
    expect(commitMessageOfCommand('git commit -m "Fix the parser" -m "Body line"')).toBe('Fix the parser\n\nBody line');
    expect(commitMessageOfCommand("git add -A && git commit -m 'feat: add x'")).toBe('feat: add x');
    expect(commitMessageOfCommand(`git commit -m "$(cat <<'EOF'\nFix crash on empty input\n\nDetails here.\nEOF\n)"`)).toBe('Fix crash on empty input\n\nDetails here.');
    expect(commitMessageOfCommand('git commit -am "Quick fix"')).toBe('Quick fix');
    expect(commitMessageOfCommand('git commit --amend --no-edit')).toBeNull();
    expect(commitMessageOfCommand('npm test')).toBeNull();
  });

  it('a commit message proposed in a fenced block of the reply', () => {
    expect(fencedCommitMessage('Here is the commit message:\n\n```\nFix parser\n\nBody\n```')).toBe('Fix parser\n\nBody');
    expect(fencedCommitMessage('Run this:\n```bash\ngit commit -m x\n```')).toBeNull();
    expect(fencedCommitMessage('```\nno mention of c-o-m-m-i-t\n```')).toBeNull();
  });

  it('pairs command results with their calls (by call id) and keeps a whole-file write', () => {
    const c = new ArtifactCollector();
    c.toolCall('Bash', 'npm test', 1, { callId: 'a' });
    c.toolCall('Bash', 'pnpm vitest run', 2, { callId: 'b' });
    c.toolResult(false, 'ok', { callId: 'b' });
    c.toolResult(true, 'Missing script: "test"', { callId: 'a' });
    c.toolCall('Write', '/r/CHANGELOG.md', 3, { wrote: '# Changelog' });
    c.toolCall('Edit', '/r/src/a.ts', 4, {});
    const r = c.result()!;
    expect(r.commands).toEqual([
      { command: 'npm test', failed: true, ts: 1 },
      { command: 'pnpm vitest run', failed: false, ts: 2 },
    ]);
    expect(r.files).toEqual([{ path: '/r/CHANGELOG.md', content: '# Changelog' }, { path: '/r/src/a.ts' }]);
  });
});

describe('the Claude Code transcript keeps what outcome mining needs, redacted', () => {
  it("a Write's content (meta.wrote) and a git commit command in full; secrets replaced", () => {
    const token = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';
    const p = new ClaudeParser('/h/.claude/projects/-w/5a1d7c3e-2b4f-4e6a-9c8d-0e1f2a3b4c5d.jsonl', undefined);
    const message = `Fix the parser\n\n${'A long body line that explains the change. '.repeat(20)}`;
    const row = (content: unknown[], u: number) => ({ type: 'assistant', uuid: `u${u}`, sessionId: '5a1d7c3e-2b4f-4e6a-9c8d-0e1f2a3b4c5d', timestamp: '2026-11-12T10:00:00.000Z', cwd: '/w', message: { id: `m${u}`, role: 'assistant', content } });
    p.line({ type: 'user', uuid: 'u0', sessionId: '5a1d7c3e-2b4f-4e6a-9c8d-0e1f2a3b4c5d', timestamp: '2026-11-12T10:00:00.000Z', cwd: '/w', message: { role: 'user', content: 'write the changelog' } });
    p.line(row([{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: '/w/CHANGELOG.md', content: `## Unreleased\n- token ${token}\n` } }], 1));
    p.line(row([{ type: 'tool_use', id: 't2', name: 'Bash', input: { command: `git commit -m "${message}"` } }], 2));
    const calls = p.flush().events.filter((e) => e.kind === 'tool_call');
    expect(calls[0].text).toBe('/w/CHANGELOG.md');
    expect(calls[0].meta.wrote).toMatch(/^## Unreleased\n- token /);
    expect(String(calls[0].meta.wrote)).not.toContain(token);
    // (longer than the 600-character cap of other tool calls: the message survives whole)
    expect(commitMessageOfCommand(calls[1].text)).toBe(message.trim());
  });
});

describe('properties: where the kept version differs from the agent version, consistently', () => {
  it('generalises a conventional prefix to the instance values', () => {
    expect(prefixShape('fix(cli): handle empty input')).toBe('fix(<scope>):');
    expect(prefixShape('feat: add x')).toBe('feat:');
    expect(prefixShape('[PROJ-12] add x')).toBe('[PROJ-<n>]');
    expect(prefixShape('Fix the parser')).toBeNull();
  });

  it('one pair: prefix, lower-case subject, trailer, emoji', () => {
    const kinds = pairDiffs('Handle empty input 🎉\n\nBody.', 'fix(cli): handle empty input\n\nBody.\n\nRefs: #412', true).map((d) => `${d.kind}:${d.literal}`);
    expect(kinds).toEqual(expect.arrayContaining(['prefix:fix(<scope>):', 'lower_subject:lower-case subject', 'trailer:Refs:', 'forbid:emoji']));
  });

  const commits = [
    pair('Handle empty config 🎉\n\nBody one.', 'fix(cli): handle empty config\n\nBody one.\n\nRefs: #412', 0),
    pair('Close the db on exit\n\nBody two.', 'fix(store): close the db on exit\n\nBody two.\n\nRefs: #418', 1),
    pair('Skip damaged lines 🚀\n\nBody three.', 'fix(mine): skip damaged lines\n\nBody three.\n\nRefs: #423', 2),
  ];

  it('needs ≥ 2 occurrences agreeing and none the other way', () => {
    const props = keptProperties(commits);
    const found = props.map((p) => `${p.kind}:${p.literal}:${p.changed}/${p.of}`);
    expect(found).toEqual(expect.arrayContaining(['prefix:fix(<scope>)::3/3', 'lower_subject:lower-case subject:3/3', 'trailer:Refs::3/3', 'forbid:emoji:2/3']));
    // the newest example first, with provenance
    const prefix = props.find((p) => p.kind === 'prefix')!;
    expect(prefix.examples[0]).toMatchObject({ agent: 'Skip damaged lines 🚀', kept: 'fix(mine): skip damaged lines', commit: 'a1b2c3d20000' });
    // a single occurrence is no habit
    expect(keptProperties(commits.slice(0, 1))).toEqual([]);
    // a contradiction cancels it: the user once removed a trailer the agent wrote
    const contra = [...commits, pair('Add x\n\nBody.\n\nRefs: #1', 'fix(x): add x\n\nBody.', 3)];
    expect(keptProperties(contra).some((p) => p.kind === 'trailer')).toBe(false);
  });

  it('types that vary merge into <type>(<scope>):', () => {
    const mixed = [pair('Add x', 'feat(a): add x', 0), pair('Fix y', 'fix(b): fix y', 1)];
    expect(keptProperties(mixed).find((p) => p.kind === 'prefix')?.literal).toBe('<type>(<scope>):');
  });

  it('several conventional types are one habit: <type>(<scope>): even when each type recurs', () => {
    const mixed = [pair('Update: a', 'feat(a): a', 0), pair('Update: b', 'fix(b): b', 1), pair('Update: c', 'fix(c): c', 2), pair('Update: d', 'feat(d): d', 3)];
    const prefixes = keptProperties(mixed).filter((p) => p.kind === 'prefix');
    expect(prefixes.map((p) => `${p.literal}:${p.changed}`)).toEqual(['<type>(<scope>)::4']);
  });

  it('files of one kind (a different test file each time): code literals gained and lost', () => {
    const agentTest = (fn: string) => `import { jest } from '@jest/globals';\nimport { ${fn} } from '../src/${fn}';\n\ntest('${fn} works', () => {\n  const spy = jest.fn();\n  expect(${fn}(spy)).toBeDefined();\n});\n`;
    const keptTest = (fn: string) => `import { describe, expect, it, vi } from 'vitest';\nimport { ${fn} } from '../src/${fn}';\n\ndescribe('${fn}', () => {\n  it.each([[1], [2]])('handles %s', (input) => {\n    const spy = vi.fn();\n    expect(${fn}(input, spy)).toBeDefined();\n  });\n});\n`;
    const files = ['parse', 'money', 'dates'].map((fn, i) => pair(agentTest(fn), keptTest(fn), i, 'file', `tests/${fn}.test.ts`));
    const props = keptProperties(files);
    expect(new Set(props.map((p) => p.artifact))).toEqual(new Set(['tests/*.test.ts']));
    const found = props.map((p) => `${p.kind}:${p.literal}`);
    expect(found).toEqual(expect.arrayContaining(['include:it.each', 'include:vi.fn', 'forbid:jest.fn']));
    const checks = groundedChecks(files, []);
    const vitestStyle = keptTest('sum');
    const jestStyle = agentTest('sum');
    expect(checks.filter((c) => !evaluateCheck(c, vitestStyle, []).passed).map((c) => c.description)).toEqual([]);
    expect(checks.filter((c) => !evaluateCheck(c, jestStyle, []).passed).map((c) => c.description)).toEqual(
      expect.arrayContaining([
        "Use `it.each` in `tests/*.test.ts`, e.g. `it.each([[1], [2]])('handles %s', (input) => {` (kept in 3 of 3 versions; the agent's drafts lacked it)",
        'Never include `jest.fn` in `tests/*.test.ts` (the user deleted it in 3 of 3)',
      ]),
    );
  });

  it('a changed mind: two spellings of one heading, the newer one wins; a deleted line that names the instance needs a majority', () => {
    const log = (i: number, heading: string) => pair(`# Changelog\n\n## Upcoming\n- change ${i}\n`, `# Changelog\n\n${heading}\n- change ${i}\n`, i, 'file', 'CHANGELOG.md');
    const props = keptProperties([log(0, '## Unreleased'), log(1, '## Unreleased'), log(2, '## [Unreleased]'), log(3, '## [Unreleased]')]);
    expect(props.filter((p) => p.kind === 'heading').map((p) => p.literal)).toEqual(['## [Unreleased]']);
    const fn = ['parse', 'parse', 'money', 'dates', 'sum'];
    const tests = fn.map((f, i) => pair(`test('${f} works', () => {});\nimport { jest } from 'x';\n`, `it('${f}', () => {});\n`, i, 'file', `tests/${f}${i}.test.ts`));
    const forbids = keptProperties(tests).filter((p) => p.kind === 'forbid').map((p) => p.literal);
    expect(forbids).toContain('import { jest');
    expect(forbids).not.toContain("test('parse works',");
  });

  it('files: a subheading the user adds, a length bound', () => {
    const files = [0, 1].map((i) => pair(`## Unreleased\n\n- change ${i}\n`, `## Unreleased\n\n### Fixed\n\n- change ${i}\n`, i, 'file', 'CHANGELOG.md'));
    const props = keptProperties(files);
    expect(props.map((p) => `${p.artifact}:${p.kind}:${p.literal}`)).toContain('CHANGELOG.md:heading:### Fixed');
    const long = [0, 1, 2].map((i) => pair(`Subject ${i}\n\n${'x'.repeat(900)}`, `fix(a): subject ${i}\n\n${'x'.repeat(300)}`, i));
    expect(keptProperties(long).find((p) => p.kind === 'max_chars')?.literal).toBe('320');
  });
});

describe('grounded checks', () => {
  const commits = [
    pair('Handle empty config 🎉\n\nBody one.', 'fix(cli): handle empty config\n\nBody one.\n\nRefs: #412', 0),
    pair('Close the db on exit 🎉\n\nBody two.', 'fix(store): close the db on exit\n\nBody two.\n\nRefs: #418', 1),
  ];

  it('each check is valid, tagged kept, with a description a model can act on', () => {
    const checks = groundedChecks(commits, []);
    for (const c of checks) {
      validateCheck(c);
      expect(c.grounded).toBe('kept');
    }
    const byDesc = (s: string) => checks.find((c) => c.description?.includes(s))!;
    expect(byDesc('`fix(<scope>):` prefix').description).toBe(
      "Start the commit message's first line with the `fix(<scope>):` prefix, filled in with this change's own values, e.g. `fix(store): close the db on exit` (kept in 2 of 2 commits; the agent's drafts lacked it)",
    );
    expect(byDesc('`Refs:` trailer').description).toBe("End the commit message with a `Refs:` trailer line, e.g. `Refs: #418` (kept in 2 of 2 commits; the agent's drafts lacked it)");
    expect(byDesc('no emoji').description).toMatch(/^Use no emoji in the commit message/);
  });

  it('scores the property, not the bytes: a new instance with its own values passes, the agent habit fails', () => {
    const checks = groundedChecks(commits, []);
    const ok = 'fix(api): reject an empty token\n\nWhy it matters.\n\nRefs: #501';
    const habit = 'Reject an empty token 🎉\n\nWhy it matters.';
    expect(checks.every((c) => evaluateCheck(c, ok, []).passed)).toBe(true);
    expect(checks.filter((c) => !evaluateCheck(c, habit, []).passed).length).toBe(checks.length);
  });
});

describe('procedures and ran_command', () => {
  it('a failed command followed by a different one of the same purpose; a code fix is not a procedure', () => {
    const cmds = (xs: Array<[string, boolean]>) => xs.map(([command, failed], i) => ({ command, failed, ts: i }));
    expect(proceduresOfCommands(cmds([['npm test', true], ['pnpm vitest run', false]]))).toEqual([{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', at: 1 }]);
    expect(proceduresOfCommands(cmds([['eslint .', true], ['eslint --cache .', false]]))).toEqual([{ failed: 'eslint .', worked: 'eslint --cache .', purpose: 'lint', at: 1 }]);
    // the same command passing later: the code was wrong, not the command
    expect(proceduresOfCommands(cmds([['npm test', true], ['npm test -- a', false], ['npm test', false]]))).toEqual([]);
    // unrelated commands
    expect(proceduresOfCommands(cmds([['npm test', true], ['ls', false]]))).toEqual([]);
    expect(programOf('cd app && NODE_ENV=test npx vitest run')).toBe('vitest');
    const merged = mergeProcedures([
      { session: 'a', pairs: [{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', at: 1 }] },
      { session: 'b', pairs: [{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', at: 5 }] },
    ]);
    expect(merged).toEqual([{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', sessions: 2, at: 5 }]);
    const check = checkOfProcedure(merged[0])!;
    expect(check).toMatchObject({ op: 'ran_command', value: 'pnpm vitest run', grounded: 'procedure' });
    expect(check.description).toBe('Run the tests with `pnpm vitest run`, not `npm test` (which failed in 2 sessions of this job)');
    expect(checkOfProcedure({ ...merged[0], sessions: 1 })).toBeNull();
    // command checks only where the target can run commands
    expect(groundedChecks([], merged, { targetRunsCommands: false })).toEqual([]);
    expect(groundedChecks([], merged, { targetRunsCommands: true }).map((c) => c.op)).toEqual(['ran_command']);
  });

  it('ran_command reads the commands the target ran, through the replay judge', async () => {
    const check = checkOfProcedure({ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', sessions: 2, at: 1 })!;
    expect(evaluateCheck(check, 'done', [], 'the response', ['cd app && pnpm  vitest run --reporter dot']).passed).toBe(true);
    const failed = evaluateCheck(check, 'done', [], 'the response', ['npm test']);
    expect(failed.passed).toBe(false);
    expect(failed.feedback).toContain('commands run: `npm test`');
    expect(() => validateCheck({ ...check, value: '  ' })).toThrow(/command is empty/);
    const task = { id: 't', judge: { checks: [check], reference: { kind: 'rule' as const } } } as unknown as Parameters<typeof judgeResponse>[0];
    expect((await judgeResponse(task, 'done', ['Bash'], undefined, { commandsRun: ['pnpm vitest run'] })).hardScore).toBe(1);
    expect((await judgeResponse(task, 'done', ['Bash'], undefined, { commandsRun: ['npm test'] })).hardScore).toBe(0);
  });
});

import { describe, it, expect } from 'vitest';
import { CheckSchema, type Check } from '../../src/core/records.js';
import { validateCheck, evaluateCheck, evaluateChecks, detectRefusal, containsValidJson, describeCheck } from '../../src/core/checks.js';
import { findSection, parseHeadings } from '../../src/core/markdown.js';
import { SleepError } from '../../src/core/errors.js';

const mk = (c: Partial<Check> & Pick<Check, 'op'>): Check => CheckSchema.parse({ id: 'c1', ...c });
const run = (c: Check, response: string, tools: string[] = []) => evaluateCheck(c, response, tools);

function invalid(c: Partial<Check> & Pick<Check, 'op'>, pattern: RegExp): void {
  let err: unknown;
  try {
    validateCheck(c as Check);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(SleepError);
  expect((err as SleepError).code).toBe('INVALID_INPUT');
  expect((err as SleepError).message).toMatch(pattern);
}

describe('validateCheck', () => {
  it('accepts well-formed checks of every op', () => {
    const ok: Array<Partial<Check> & Pick<Check, 'op'>> = [
      { op: 'contains', value: 'x' },
      { op: 'not_contains', value: 'x' },
      { op: 'regex', value: '^a+$', flags: 'im' },
      { op: 'section_present', value: 'Summary' },
      { op: 'section_contains', value: 'Summary', needle: 'x' },
      { op: 'min_chars', value: 10 },
      { op: 'max_chars', value: 0 },
      { op: 'json_valid' },
      { op: 'starts_with', value: '#' },
      { op: 'no_refusal' },
      { op: 'tool_called', value: 'Bash' },
    ];
    for (const c of ok) expect(() => validateCheck(mk(c))).not.toThrow();
  });

  it('names the check id and the problem', () => {
    invalid({ id: 'bad-re', op: 'regex', value: '(unclosed' }, /"bad-re".*invalid regex \/\(unclosed\//);
    invalid({ id: 'bad-flags', op: 'regex', value: 'a', flags: 'q' }, /"bad-flags".*invalid regex flags "q"/);
    invalid({ id: 'dup-flags', op: 'regex', value: 'a', flags: 'ii' }, /invalid regex flags/);
    invalid({ id: 'c', op: 'contains' }, /"c" \(contains\): missing text operand/);
    invalid({ id: 'c', op: 'contains', value: '' }, /missing text operand/);
    invalid({ id: 'c', op: 'not_contains', value: 3 }, /missing text operand/);
    invalid({ id: 'neg', op: 'min_chars', value: -1 }, /"neg".*must not be negative/);
    invalid({ id: 'neg', op: 'max_chars', value: -5 }, /must not be negative/);
    invalid({ id: 'frac', op: 'max_chars', value: 2.5 }, /whole number/);
    invalid({ id: 'nan', op: 'min_chars', value: 'lots' }, /must be a number/);
    invalid({ id: 'nolen', op: 'min_chars' }, /missing length/);
    invalid({ id: 's', op: 'section_present', value: '##' }, /section heading is empty/);
    invalid({ id: 's', op: 'section_contains', value: 'Notes' }, /missing needle/);
    invalid({ id: 't', op: 'tool_called' }, /missing tool name/);
    invalid({ id: '', op: 'json_valid' }, /missing id/);
    invalid({ id: 'w', op: 'json_valid', weight: -1 }, /weight must be a positive number/);
    invalid({ id: 'u', op: 'frobnicate' as Check['op'] }, /unknown op "frobnicate"/);
  });

  it('evaluateCheck refuses an invalid check rather than guessing', () => {
    expect(() => run({ id: 'r', op: 'regex', value: '[', weight: 1, sealed: false }, 'x')).toThrow(/invalid regex/);
  });
});

describe('evaluateCheck ops', () => {
  it('contains / not_contains (case-insensitive by default, caseSensitive honoured)', () => {
    expect(run(mk({ op: 'contains', value: 'Unreleased' }), 'see ## [unreleased]').passed).toBe(true);
    expect(run(mk({ op: 'contains', value: 'Unreleased', caseSensitive: true }), 'see ## [unreleased]').passed).toBe(false);
    expect(run(mk({ op: 'contains', value: 'foo' }), 'bar').passed).toBe(false);
    expect(run(mk({ op: 'not_contains', value: 'TODO' }), 'all done').passed).toBe(true);
    expect(run(mk({ op: 'not_contains', value: 'TODO' }), 'a todo left').passed).toBe(false);
  });

  it('regex with flags', () => {
    expect(run(mk({ op: 'regex', value: '^## \\[\\d+\\.\\d+\\.\\d+\\]', flags: 'm' }), 'intro\n## [1.2.3] - 2026').passed).toBe(true);
    expect(run(mk({ op: 'regex', value: '^## \\[\\d+\\.\\d+\\.\\d+\\]' }), 'intro\n## [1.2.3] - 2026').passed).toBe(false);
    expect(run(mk({ op: 'regex', value: 'fixes #\\d+', flags: 'g' }), 'Fixes #12').passed).toBe(false);
    expect(run(mk({ op: 'regex', value: 'fixes #\\d+', flags: 'gi' }), 'Fixes #12').passed).toBe(true);
    // a global regex must not keep state between evaluations
    const g = mk({ op: 'regex', value: 'a', flags: 'g' });
    expect(run(g, 'a').passed).toBe(true);
    expect(run(g, 'a').passed).toBe(true);
  });

  it('section_present: any heading level, case-insensitive, ignores code fences', () => {
    const c = mk({ op: 'section_present', value: 'Test plan' });
    expect(run(c, '# PR\n\n### TEST PLAN\n- run it').passed).toBe(true);
    expect(run(c, 'Test Plan\n=========\nbody').passed).toBe(true);
    expect(run(c, 'Test plan: run it').passed).toBe(false);
    expect(run(c, '```md\n## Test plan\n```\n').passed).toBe(false);
    expect(run(mk({ op: 'section_present', value: 'Unreleased' }), '## [Unreleased]\n- x').passed).toBe(true);
    expect(run(mk({ op: 'section_present', value: '## Added' }), '### Added:\n- x').passed).toBe(true);
    expect(run(mk({ op: 'section_present', value: 'Add' }), '### Added\n- x').passed).toBe(false);
  });

  it('section_contains looks only inside that section', () => {
    const c = mk({ op: 'section_contains', value: 'Fixed', needle: '#42' });
    const doc = '## Added\n- thing #42\n## Fixed\n- crash\n### Sub\n- deep #42\n## Other\n';
    expect(run(c, doc).passed).toBe(true); // subsections belong to the section
    expect(run(c, '## Added\n- thing #42\n## Fixed\n- crash\n## Other\n#42').passed).toBe(false);
    const missing = run(c, '## Added\n- #42');
    expect(missing.passed).toBe(false);
    expect(missing.feedback).toMatch(/section is missing/);
  });

  it('min_chars / max_chars count characters of the trimmed response', () => {
    expect(run(mk({ op: 'min_chars', value: 5 }), '  abcde  ').passed).toBe(true);
    expect(run(mk({ op: 'min_chars', value: 6 }), '  abcde  ').passed).toBe(false);
    expect(run(mk({ op: 'max_chars', value: 3 }), 'héé').passed).toBe(true);
    expect(run(mk({ op: 'max_chars', value: 2 }), '😀😀😀').passed).toBe(false);
    expect(run(mk({ op: 'max_chars', value: 2 }), '😀😀').passed).toBe(true);
    expect(run(mk({ op: 'min_chars', value: '4' }), 'abcd').passed).toBe(true);
  });

  it('json_valid: whole response or a fenced json block', () => {
    const c = mk({ op: 'json_valid' });
    expect(run(c, ' {"a": 1} ').passed).toBe(true);
    expect(run(c, 'Here it is:\n```json\n{"a": [1, 2]}\n```\nDone.').passed).toBe(true);
    expect(run(c, 'Here:\n```\n[1,2]\n```').passed).toBe(true);
    expect(run(c, 'Here:\n```json\n{"a": 1,}\n```').passed).toBe(false);
    expect(run(c, 'Here:\n```js\n{"a": 1}\n```').passed).toBe(false);
    expect(run(c, 'no json').passed).toBe(false);
    expect(run(c, '').passed).toBe(false);
    expect(containsValidJson('```json\n{"x":1}\n```\n```json\nbad\n```')).toBe(true);
  });

  it('starts_with ignores leading whitespace', () => {
    expect(run(mk({ op: 'starts_with', value: 'feat:' }), '\n feat: add x').passed).toBe(true);
    expect(run(mk({ op: 'starts_with', value: 'feat:' }), 'Here is: feat: add x').passed).toBe(false);
  });

  it('no_refusal detects refusals at the start, not quoted ones later', () => {
    const c = mk({ op: 'no_refusal' });
    expect(run(c, "I can't help with that.").passed).toBe(false);
    expect(run(c, 'I\u2019m sorry, but I cannot do this request.').passed).toBe(false);
    expect(run(c, 'I am unable to complete this task.').passed).toBe(false);
    expect(run(c, 'As an AI language model, I cannot browse.').passed).toBe(false);
    expect(run(c, 'I must decline.').passed).toBe(false);
    expect(run(c, '   ').passed).toBe(false);
    expect(run(c, 'Here is the changelog entry.').passed).toBe(true);
    expect(run(c, `Here is the fix.\n${'x'.repeat(400)}\nconst msg = "I can't help with that";`).passed).toBe(true);
    expect(detectRefusal('Sure! I can help with that.')).toBeNull();
  });

  it('tool_called matches tool names case-insensitively', () => {
    const c = mk({ op: 'tool_called', value: 'Bash' });
    expect(run(c, 'x', ['Read', 'bash']).passed).toBe(true);
    const r = run(c, 'x', ['Read']);
    expect(r.passed).toBe(false);
    expect(r.feedback).toMatch(/tools used: Read/);
  });
});

describe('results and feedback', () => {
  it('failed non-sealed checks explain the rule; passed checks have no feedback', () => {
    const c = mk({ id: 'kac', op: 'contains', value: 'Keep a Changelog', description: 'Follow the Keep a Changelog format' });
    const fail = run(c, 'nothing');
    expect(fail).toEqual({ checkId: 'kac', passed: false, score: 0, sealed: false, feedback: expect.stringContaining('Follow the Keep a Changelog format') });
    expect(fail.feedback).toContain('"Keep a Changelog"');
    const pass = run(c, 'Format: keep a changelog');
    expect(pass.score).toBe(1);
    expect(pass.feedback).toBe('');
  });

  it('sealed checks score but never leak their text', () => {
    const c = mk({ id: 'secret', op: 'contains', value: 'SECRET-TOKEN', sealed: true, description: 'the hidden rule' });
    const r = run(c, 'no');
    expect(r).toEqual({ checkId: 'secret', passed: false, score: 0, sealed: true, feedback: '' });
    expect(run(c, 'SECRET-TOKEN').score).toBe(1);
  });

  it('evaluateChecks keeps order', () => {
    const rs = evaluateChecks([mk({ id: 'a', op: 'json_valid' }), mk({ id: 'b', op: 'no_refusal' })], 'ok', []);
    expect(rs.map((r) => [r.checkId, r.passed])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('describeCheck covers every op', () => {
    expect(describeCheck(mk({ op: 'section_contains', value: 'Fixed', needle: '#1' }))).toBe('mention "#1" inside the "Fixed" section');
    expect(describeCheck(mk({ op: 'tool_called', value: 'Bash' }))).toBe('use the Bash tool');
  });
});

describe('markdown sections', () => {
  it('parses ATX and setext headings with levels', () => {
    const hs = parseHeadings('# A #\ntext\nB\n---\n- item\n---\n```\n# not\n```\n###### F');
    expect(hs.map((h) => [h.level, h.text])).toEqual([
      [1, 'A'],
      [2, 'B'],
      [6, 'F'],
    ]);
    expect(findSection('Title\n=====\nbody\nNext\n----\nmore', 'Title')?.body).toBe('body\nNext\n----\nmore');
    expect(findSection('## A\nx\n## B\ny', 'a')?.body).toBe('x');
  });
});

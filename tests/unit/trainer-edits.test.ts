import { describe, expect, it } from 'vitest';
import { applyEdits, findAnchor } from '../../src/skilldoc/edits.js';
import {
  GUIDANCE_END,
  GUIDANCE_START,
  LEARNED_END,
  LEARNED_START,
  getGuidance,
  GUIDANCE_HEADING,
  guidanceHeading,
  learnedText,
  parseSkill,
  renderSkill,
  setGuidance,
  splitFrontMatter,
} from '../../src/skilldoc/segments.js';
import type { Edit } from '../../src/core/records.js';
import { parseSkill as parseSimSkill } from '../../src/llm/sim/skill-rules.js';

const e = (op: Edit['op'], content: string, anchor?: string): Edit => ({ op, content, rationale: '', evidence: [], ...(anchor ? { anchor } : {}) });
const doc = (s: string) => s;

const HAND = `---
name: vitest-style
description: "How we write vitest tests: fast, hermetic"
---
# Vitest style

- Use describe/it.
- Never touch the network.
`;

describe('skill document segments', () => {
  it('round-trips any document byte-for-byte', () => {
    const samples = [
      HAND,
      '',
      'no front matter\r\nwith CRLF\r\n',
      `${HAND}\n${LEARNED_START}\n- a\n${LEARNED_END}\n${GUIDANCE_START}\nbe careful\n${GUIDANCE_END}\n`,
      `---\nunterminated front\n# body`,
      `text ${GUIDANCE_START} unterminated guidance`,
    ];
    for (const s of samples) expect(renderSkill(parseSkill(s))).toBe(s);
  });
  it('splits front matter only when it is terminated', () => {
    expect(splitFrontMatter(HAND).front).toBe('---\nname: vitest-style\ndescription: "How we write vitest tests: fast, hermetic"\n---\n');
    expect(splitFrontMatter('---\nnope').front).toBe('');
  });
});

describe('applyEdits in a hand-written skill (learned scope)', () => {
  it('creates the learned region on the first add and leaves the rest byte-identical', () => {
    const r = applyEdits(HAND, [e('add', '- Always run tests with --run in CI.')], { scope: 'learned' });
    expect(r.results[0].status).toBe('applied');
    expect(r.content.startsWith(HAND)).toBe(true);
    expect(r.content).toContain(`${LEARNED_START}\n## Learned rules\n\n- Always run tests with --run in CI.\n${LEARNED_END}\n`);
    expect(learnedText(r.content)).toContain('--run');
  });
  it('never edits the hand-written text: replace/delete anchored outside the region are protected', () => {
    const r = applyEdits(HAND, [e('replace', '- Use test/expect.', '- Use describe/it.'), e('delete', '', 'Never touch the network')], { scope: 'learned' });
    expect(r.results.map((x) => [x.status, x.reason])).toEqual([
      ['unmatched', 'protected'],
      ['unmatched', 'protected'],
    ]);
    expect(r.content).toBe(HAND);
  });
  it('edits inside the region and keeps bullets tight', () => {
    const one = applyEdits(HAND, [e('add', '- Rule one.'), e('add', '- Rule two.')], { scope: 'learned' }).content;
    expect(learnedText(one)).toBe('## Learned rules\n\n- Rule one.\n- Rule two.\n');
    const two = applyEdits(one, [e('replace', '- Rule 1 (sharper).', '- Rule one.'), e('delete', '', 'Rule two.')], { scope: 'learned' });
    expect(two.results.every((x) => x.status === 'applied')).toBe(true);
    expect(learnedText(two.content)).toBe('## Learned rules\n\n- Rule 1 (sharper).\n');
  });
});

describe('applyEdits in a managed skill (document scope)', () => {
  const base = `---\nname: x\ndescription: d\n---\n# X\n\n- one\n- two\n\n${GUIDANCE_START}\n- keep calm\n${GUIDANCE_END}\n`;
  it('appends before the guidance block and never inside it', () => {
    const r = applyEdits(base, [e('add', '- three')], { scope: 'document' });
    expect(r.content).toBe(`---\nname: x\ndescription: d\n---\n# X\n\n- one\n- two\n- three\n\n${GUIDANCE_START}\n- keep calm\n${GUIDANCE_END}\n`);
  });
  it('an anchor inside the guidance block is protected', () => {
    const r = applyEdits(base, [e('replace', 'panic', 'keep calm'), e('delete', '', '- keep calm')], { scope: 'document' });
    expect(r.results.map((x) => x.reason)).toEqual(['protected', 'protected']);
    expect(r.content).toBe(base);
  });
  it('an anchor that spans a block marker can never match (it would eat the marker)', () => {
    const spanning = `- two\n\n${GUIDANCE_START}\n- keep`;
    const r = applyEdits(base, [e('delete', '', spanning), e('replace', 'x', `${GUIDANCE_END}`)], { scope: 'document' });
    expect(r.results.every((x) => x.status === 'unmatched')).toBe(true);
    expect(r.content).toBe(base);
    expect(getGuidance(r.content)).toBe('- keep calm');
  });
  it('markers are stripped from edit content, so an edit cannot forge a protected block', () => {
    const r = applyEdits(base, [e('add', `${GUIDANCE_START}\n- sneaky\n${GUIDANCE_END}`)], { scope: 'document' });
    expect(r.content.match(/skillopt:guidance:start/g)).toHaveLength(1);
    expect(r.content).toContain('- sneaky');
  });
  it('front matter stays byte-for-byte unless full-document editing allows it, and must stay valid YAML', () => {
    const locked = applyEdits(base, [e('replace', 'description: better', 'description: d')], { scope: 'document' });
    expect(locked.results[0].reason).toBe('protected');
    const open = applyEdits(base, [e('replace', 'description: better', 'description: d')], { scope: 'document', allowFrontMatter: true });
    expect(open.results[0].status).toBe('applied');
    expect(open.content).toContain('description: better');
    const broken = applyEdits(base, [e('replace', 'description: [unclosed', 'description: d')], { scope: 'document', allowFrontMatter: true });
    expect(broken.results[0].reason).toBe('invalid_front_matter');
  });
});

describe('edit edge cases', () => {
  const base = doc('# S\n\n- alpha rule\n- beta rule\n- alpha again\n');
  const opts = { scope: 'document' as const };
  it('duplicate add (case and whitespace insensitive) is unmatched', () => {
    expect(applyEdits(base, [e('add', '-  Alpha   RULE')], opts).results[0].reason).toBe('duplicate');
  });
  it('empty add, replace without anchor, unknown anchor and unknown op are reported', () => {
    const r = applyEdits(base, [e('add', '  '), e('replace', 'x'), e('delete', '', 'gamma'), { ...e('add', 'z'), op: 'rewrite' as Edit['op'] }], opts);
    expect(r.results.map((x) => x.reason)).toEqual(['empty_content', 'missing_anchor', 'anchor_not_found', 'unknown_op']);
    expect(r.content).toBe(base);
  });
  it('replace with identical text is no_change', () => {
    expect(applyEdits(base, [e('replace', 'beta rule', 'beta rule')], opts).results[0].reason).toBe('no_change');
  });
  it('delete removes whole lines without leaving blank lines', () => {
    const r = applyEdits(base, [e('delete', '', '- beta rule')], opts);
    expect(r.content).toBe('# S\n\n- alpha rule\n- alpha again\n');
  });
  it('delete of a phrase inside a line removes just the phrase', () => {
    expect(applyEdits(base, [e('delete', '', ' again')], opts).content).toBe('# S\n\n- alpha rule\n- beta rule\n- alpha\n');
  });
  it('add after an anchor inserts after that line; an ambiguous anchor uses the first and says so', () => {
    const r = applyEdits(base, [e('add', '- alpha detail', 'alpha')], opts);
    expect(r.content).toBe('# S\n\n- alpha rule\n- alpha detail\n- beta rule\n- alpha again\n');
    expect(r.results[0].note).toMatch(/more than once/);
  });
  it('an add whose anchor is missing is appended and says so (not silent)', () => {
    const r = applyEdits(base, [e('add', '- gamma rule', 'no such line')], opts);
    expect(r.results[0].status).toBe('applied');
    expect(r.results[0].note).toMatch(/appended/);
    expect(r.content.endsWith('- alpha again\n- gamma rule\n')).toBe(true);
  });
  it('an anchor consumed by an earlier edit in the same batch is a conflict', () => {
    const r = applyEdits(base, [e('replace', '- beta (new)', '- beta rule'), e('delete', '', '- beta rule')], opts);
    expect(r.results.map((x) => x.status)).toEqual(['applied', 'unmatched']);
    expect(r.results[1].reason).toBe('conflict');
  });
  it('anchors match across whitespace and case differences', () => {
    expect(findAnchor('Use  the\nDescribe block', 'use the describe')).not.toBeNull();
    const r = applyEdits(base, [e('replace', '- BETA', '-   Beta  rule')], opts);
    expect(r.content).toContain('- BETA\n');
  });
});

describe('guidance block', () => {
  it('set, replace in place, and remove', () => {
    const withG = setGuidance('# S\n\nbody\n', '- g1');
    expect(withG).toBe(`# S\n\nbody\n\n${GUIDANCE_START}\n- g1\n${GUIDANCE_END}\n`);
    const moved = `${GUIDANCE_START}\n- old\n${GUIDANCE_END}\n# tail\n`;
    expect(setGuidance(moved, '- new')).toBe(`${GUIDANCE_START}\n- new\n${GUIDANCE_END}\n# tail\n`);
    expect(getGuidance(setGuidance(withG, '- g2'))).toBe('- g2');
    expect(setGuidance(withG, '')).not.toContain(GUIDANCE_START);
  });
  it("opens with a heading naming the skill's jobs (from its description), so its notes are not read as rules for every reply", () => {
    const doc = '---\nname: learned\ndescription: Use when writing a CHANGELOG entry or release notes in ledgerline.\n---\n\n# learned\n\n- rule\n';
    const withG = setGuidance(doc, '- Still failing: the title line');
    expect(withG).toContain(`${GUIDANCE_START}\n${GUIDANCE_HEADING} (writing a CHANGELOG entry or release notes in ledgerline)\n\n- Still failing: the title line\n${GUIDANCE_END}`);
    // the heading is the block's frame: reading the notes back gives the notes, and a rewrite keeps one heading
    expect(getGuidance(withG)).toBe('- Still failing: the title line');
    expect(setGuidance(withG, getGuidance(withG))).toBe(withG);
    expect(setGuidance(withG, `${GUIDANCE_HEADING} (x)\n- new`).match(/Notes from past nights/g)).toHaveLength(1);
    // a reader scopes the notes to those jobs
    const rules = parseSimSkill(withG).rules.filter((r) => /title line/.test(r.text));
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.every((r) => r.scope?.includes('changelog') && r.scope.includes('release'))).toBe(true);
    expect(guidanceHeading('# no front matter\n')).toBeNull();
  });
  it('guidance content cannot contain markers', () => {
    const g = setGuidance('x\n', `a ${GUIDANCE_END} b`);
    expect(g.match(/guidance:end/g)).toHaveLength(1);
  });
});

describe('property: protected text survives any edit sequence', () => {
  it('front matter, hand-written text and guidance stay byte-identical in learned scope; guidance in document scope', async () => {
    const fc = await import('fast-check');
    const base = `---\nname: s\ndescription: d\n---\n# Hand\n\n- keep me\n\n${LEARNED_START}\n- learned one\n${LEARNED_END}\n${GUIDANCE_START}\n- guide\n${GUIDANCE_END}\n`;
    const pieces = ['- keep me', 'learned one', '- guide', GUIDANCE_START, GUIDANCE_END, LEARNED_START, '---', 'name: s', '\n', 'x', '# Hand'];
    const text = fc.array(fc.constantFrom(...pieces), { maxLength: 4 }).map((p) => p.join(''));
    const edit = fc.record({ op: fc.constantFrom('add', 'delete', 'replace'), anchor: fc.option(text, { nil: undefined }), content: text }).map(
      (r) => ({ op: r.op as Edit['op'], content: r.content, rationale: '', evidence: [], ...(r.anchor !== undefined ? { anchor: r.anchor } : {}) }),
    );
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 6 }), (edits) => {
        const learned = applyEdits(base, edits, { scope: 'learned' }).content;
        expect(learned.startsWith(base.slice(0, base.indexOf(LEARNED_START)))).toBe(true);
        expect(getGuidance(learned)).toBe('- guide');
        expect(learned.match(/skillopt:(learned|guidance):(start|end)/g)).toHaveLength(4);
        const documentScope = applyEdits(base, edits, { scope: 'document' }).content;
        expect(getGuidance(documentScope)).toBe('- guide');
        expect(documentScope.startsWith('---\nname: s\ndescription: d\n---\n')).toBe(true);
        expect(documentScope.match(/skillopt:(learned|guidance):(start|end)/g)).toHaveLength(4);
      }),
      { numRuns: 300 },
    );
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clip, fill, loadTemplate, promptsDir, renderPrompt, type PromptName } from '../../src/trainer/optimizer/prompts.js';

const NAMES: PromptName[] = ['reflect_failures', 'reflect_successes', 'merge', 'merge_final', 'rank', 'lr_budget', 'slow_update', 'meta_skill'];

describe('optimizer prompt templates (skills/prompts/*.md, loaded at run time)', () => {
  it('every template exists with a system part and a user part', () => {
    for (const n of NAMES) {
      expect(fs.existsSync(path.join(promptsDir(), `${n}.md`)), n).toBe(true);
      const t = loadTemplate(n);
      expect(t.system.length, n).toBeGreaterThan(100);
      expect(t.user.length, n).toBeGreaterThan(10);
    }
  });
  it('analyst prompts tell the optimizer about protected regions and rejected edits', () => {
    for (const n of ['reflect_failures', 'reflect_successes'] as const) {
      const t = loadTemplate(n);
      expect(t.system).toMatch(/skillopt:guidance:start/);
      expect(t.system).toMatch(/Rejected edits/);
    }
  });
  it('fills placeholders and refuses unknown ones', () => {
    const r = renderPrompt('rank', { meta: '', skill: 'SKILL', count: 3, budget: 2, edits: '[0] …' });
    expect(r.prompt).toContain('## Edits Pool (3 edits, budget=2)');
    expect(r.system).toContain('Select the 2 most important edits');
    expect(() => fill('{{nope}}', {})).toThrow(/placeholder \{\{nope\}\}/);
  });
  it('clip marks what it cut', () => {
    expect(clip('abcdef', 3)).toBe('abc\n…[3 more characters]');
    expect(clip('abc', 3)).toBe('abc');
  });
});

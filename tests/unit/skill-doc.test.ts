import { describe, expect, it } from 'vitest';
import { frontMatterYaml, isAgentSkill, isFrontMatterValid, learnedRegion, parseFrontMatter, splitFrontMatter, LEARNED_END, LEARNED_START } from '../../src/skilldoc/document.js';
import { parseFrontMatter as registryFrontMatter } from '../../adapters/skills-registry.js';
import { isAgentSkill as execIsAgentSkill } from '../../adapters/exec-common.js';
import { claudeExec } from '../../adapters/claude-code/exec.js';
import { splitFrontMatter as trainerSplit } from '../../src/skilldoc/segments.js';

describe('SKILL.md anatomy: one reader of front matter for everyone', () => {
  // the bug: a first line `--- ` (trailing space) was front matter to the trainer, nothing to the
  // registry, and the CLI backend installed such a skill as CLAUDE.md
  const trailing = '--- \nname: deploy-checks\ndescription: Run the deploy checklist\n---  \n# Deploy\n\nSteps.\n';

  it('a `--- ` first line with trailing blanks is front matter for every reader', () => {
    const { front, body } = splitFrontMatter(trailing);
    expect(front).toBe('--- \nname: deploy-checks\ndescription: Run the deploy checklist\n---  \n');
    expect(body).toBe('# Deploy\n\nSteps.\n');
    expect(trainerSplit(trailing)).toEqual({ front, body });
    expect(parseFrontMatter(trailing)).toEqual({ name: 'deploy-checks', description: 'Run the deploy checklist' });
    expect(registryFrontMatter(trailing).name).toBe('deploy-checks');
    expect(isAgentSkill(trailing)).toBe(true);
    expect(execIsAgentSkill(trailing)).toBe(true);
    expect(claudeExec.skillPath({ name: 'deploy-checks', content: trailing })).toBe('.claude/skills/deploy-checks/SKILL.md');
  });

  it('CRLF front matter, and joining the parts gives the document back', () => {
    const doc = '---\r\nname: a\r\n---\r\nbody\r\n';
    const { front, body } = splitFrontMatter(doc);
    expect(front + body).toBe(doc);
    expect(frontMatterYaml(front)).toBe('name: a');
    expect(parseFrontMatter(doc).name).toBe('a');
  });

  it('no front matter, unterminated front matter and a non-mapping are not skills', () => {
    expect(splitFrontMatter('# Title\n').front).toBe('');
    expect(splitFrontMatter('---\nname: a\nno end\n').front).toBe('');
    expect(isAgentSkill('---\nname: a\nno end\n')).toBe(false);
    expect(isAgentSkill('---\n- a\n- b\n---\nx')).toBe(false);
    expect(isAgentSkill('---\nname: "  "\n---\nx')).toBe(false);
    expect(isAgentSkill('# CLAUDE.md\nname: x\n')).toBe(false);
    expect(claudeExec.skillPath({ name: 'x', content: '# notes\n' })).toBe('CLAUDE.md');
  });

  it('validity of a front matter block', () => {
    expect(isFrontMatterValid('---\nname: a\n---\n')).toBe(true);
    expect(isFrontMatterValid('---\nname: [unclosed\n---\n')).toBe(false);
    expect(isFrontMatterValid('---\n---\n')).toBe(false);
  });

  it('the learned region', () => {
    const doc = `# S\n\n${LEARNED_START}\n- rule one\n${LEARNED_END}\ntail\n`;
    expect(learnedRegion(doc)).toBe('- rule one\n');
    expect(learnedRegion('# no region\n')).toBeNull();
    expect(learnedRegion(`${LEARNED_START}\nopen`)).toBe('open');
  });
});

/**
 * Staging routes the trainer's run notes out of the skill (issue 38): a candidate whose guidance
 * block holds an epoch review is staged without it, the notes land in `runs/<runId>/run-notes.md`,
 * and the proposal's notes say what the guard took out. Front matter survives byte for byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import { GUIDANCE_END, GUIDANCE_START, splitFrontMatter } from '../../src/skilldoc/document.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { managedSkillTarget, scaffoldSkill } from '../../adapters/skills-registry.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('staging a candidate with run notes in it', () => {
  it('stages only the rules; the notes go to the run folder', () => {
    const root = makeTempDir('sos-notes-');
    const project = path.join(root, 'proj');
    fs.mkdirSync(path.join(project, '.git'), { recursive: true });
    const env: NodeJS.ProcessEnv = { HOME: path.join(root, 'home'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') };
    const paths = resolvePaths({ env });
    const db = openDb(paths.database);
    cleanups.push(() => {
      db.close();
      fs.rmSync(root, { recursive: true, force: true });
    });
    markProjectSeen(db, project);
    const target = managedSkillTarget({ project, env }, { agentsUsed: ['claude-code'] });
    const start = scaffoldSkill(target.name, 'Learned rules for proj');
    const review = '- Epoch review: 0 task(s) improved, 0 regressed, 5 still failing; 0 rule(s) were added this epoch.';
    const candidate = `${start}\n## When writing a CHANGELOG entry\n\n- Put entries under [Unreleased].\n- Gives a substantive answer.\n\n## Rules for every job\n\n${GUIDANCE_START}\n## Notes from past nights\n\n${review}\n- Still failing: focus on add a unit test for parseAmount (negative numbers, thousa...\n${GUIDANCE_END}\n`;
    const p = stageProposal(db, paths, {
      target,
      baseContent: null,
      startContent: start,
      candidate,
      runId: 'run_notes1',
      result: { accepted: true, baselineScore: 0.4, candidateScore: 0.8, edits: [] },
    });
    expect(p.candidate).toBe(`${start}\n## When writing a CHANGELOG entry\n\n- Put entries under [Unreleased].\n`);
    expect(fs.readFileSync(path.join(p.dir, 'SKILL.md'), 'utf8')).toBe(p.candidate);
    expect(splitFrontMatter(p.candidate).front).toBe(splitFrontMatter(start).front);
    const notes = fs.readFileSync(path.join(paths.runsDir, 'run_notes1', 'run-notes.md'), 'utf8');
    expect(notes).toContain(review);
    const report = JSON.parse(fs.readFileSync(path.join(p.dir, 'report.json'), 'utf8')) as { notes: string[]; guard: { removed: Array<{ why: string }> } };
    expect(report.guard.removed.map((r) => r.why).sort()).toEqual(['empty-section', 'padding']);
    expect(report.notes.join('\n')).toMatch(/staging guard took out 1 generic rule/);
    expect(report.notes.join('\n')).toContain(`2 line(s) of the trainer's notes kept out of the skill: ${path.join(paths.runsDir, 'run_notes1', 'run-notes.md')}`);
    expect(p.diff).not.toMatch(/Epoch review|thousa/);
  });
});

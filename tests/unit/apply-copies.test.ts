/**
 * A project used with Claude Code and Codex: the managed learned skill lands in `.claude/skills`
 * (Claude Code, Copilot) and a copy in `.agents/skills` (Codex, Copilot, Gemini CLI). Apply writes
 * both (each atomic, each after a backup), says who reads what; revert undoes both, leaving a copy
 * the user edited since; a copy outside a derived target is refused before anything is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import type { EditRecord, SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyProposal, revertProposal } from '../../src/proposals/apply.js';
import { managedSkillTarget, scaffoldSkill } from '../../adapters/skills-registry.js';
import { applyEdits } from '../../src/skilldoc/edits.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const root = makeTempDir('sos-copies-');
  const project = path.join(root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  const env: NodeJS.ProcessEnv = { HOME: path.join(root, 'home'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') };
  const paths = resolvePaths({ env });
  const db = openDb(paths.database);
  markProjectSeen(db, project);
  cleanups.push(() => {
    db.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, project, env, paths, db };
}

const edit = (id: string, content: string): EditRecord => ({ id, op: 'add', content, rationale: `because ${id}`, evidence: ['t1'], status: 'accepted' });

function stage(s: ReturnType<typeof setup>, target: SkillTarget) {
  const start = scaffoldSkill(target.name, 'Learned rules for proj');
  const edits = [edit('e1', '- Use Keep a Changelog headings.')];
  const candidate = applyEdits(start, edits, { scope: 'document' }).content;
  return stageProposal(s.db, s.paths, {
    target,
    baseContent: null,
    startContent: start,
    candidate,
    runId: 'r1',
    nightId: 'n1',
    result: { accepted: true, baselineScore: 0.4, candidateScore: 0.8, perTask: [{ taskId: 't1', split: 'val', before: 0.4, after: 0.8 }], edits },
    test: null,
    budget: { usd: 0, tokens: 1, calls: 1 },
    backends: { target: { backend: 'sim', model: 'sim-1' } },
    evidence: [],
  });
}

describe('the managed skill in a project used with Claude Code and Codex', () => {
  it('apply writes the skill and its copy for Codex; revert removes both', () => {
    const s = setup();
    const target = managedSkillTarget({ project: s.project, env: s.env }, { agentsUsed: ['claude-code', 'codex'] });
    const p = stage(s, target);
    const claude = path.join(s.project, '.claude/skills/skillopt-sleep-learned/SKILL.md');
    const codex = path.join(s.project, '.agents/skills/skillopt-sleep-learned/SKILL.md');
    expect(p.skillTarget.path).toBe(claude);
    expect(p.skillTarget.mirrors?.map((m) => m.path)).toEqual([codex]);

    const out = applyProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.readFileSync(claude, 'utf8')).toBe(p.candidate);
    expect(fs.readFileSync(codex, 'utf8')).toBe(p.candidate);
    expect(out.copies).toEqual([{ path: codex, readBy: ['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity'], outcome: 'written' }]);
    expect(out.readBy).toEqual(['claude-code', 'codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity']);

    const back = revertProposal(s.db, s.paths, p.id, { env: s.env });
    expect(back.copies.map((c) => c.outcome)).toEqual(['removed']);
    expect(fs.existsSync(claude)).toBe(false);
    expect(fs.existsSync(codex)).toBe(false);
  });

  it('a copy that was there is backed up and restored; one edited since the apply is left alone', () => {
    const s = setup();
    const target = managedSkillTarget({ project: s.project, env: s.env }, { agentsUsed: ['claude-code', 'codex'] });
    const codex = target.mirrors![0].path;
    fs.mkdirSync(path.dirname(codex), { recursive: true });
    fs.writeFileSync(codex, 'an older copy\n');
    const p = stage(s, target);
    applyProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.readFileSync(codex, 'utf8')).toBe(p.candidate);
    expect(revertProposal(s.db, s.paths, p.id, { env: s.env }).copies.map((c) => c.outcome)).toEqual(['restored']);
    expect(fs.readFileSync(codex, 'utf8')).toBe('an older copy\n');

    const p2 = stage(s, target);
    applyProposal(s.db, s.paths, p2.id, { env: s.env });
    fs.appendFileSync(codex, 'my own line\n');
    expect(revertProposal(s.db, s.paths, p2.id, { env: s.env }).copies.map((c) => c.outcome)).toEqual(['kept (edited since the apply)']);
    expect(fs.readFileSync(codex, 'utf8')).toContain('my own line');
  });

  it('refuses, before writing anything, a copy that is not the same managed skill in an agent root', () => {
    const s = setup();
    const target = managedSkillTarget({ project: s.project, env: s.env }, { agentsUsed: ['claude-code', 'codex'] });
    const forged: SkillTarget = { ...target, mirrors: [{ path: path.join(s.project, 'AGENTS.md'), readBy: ['codex'] }] };
    expect(() => stage(s, forged)).toThrow(/refusing to write .*AGENTS\.md: a copy must be the same managed skill/);
    const outside: SkillTarget = { ...target, mirrors: [{ path: path.join(s.root, 'elsewhere/skillopt-sleep-learned/SKILL.md'), readBy: ['codex'] }] };
    expect(() => stage(s, outside)).toThrow(/refusing to write/);
    expect(fs.existsSync(target.path)).toBe(false);
  });
});

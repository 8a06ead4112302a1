/**
 * Where Cursor Agent and OpenCode read skills and instructions (Cursor: `.cursor/skills`, the
 * cross-agent `.agents/skills`, its compatibility folders, AGENTS.md and `.cursor/rules/**\/*.mdc`;
 * OpenCode: `.opencode/skills`, `.claude/skills`, `.agents/skills`, AGENTS.md and its global
 * AGENTS.md): `skills` lists them with who reads them, the write guard admits exactly them, and a
 * proposal staged into a Cursor rule applies and reverts byte for byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import type { EditRecord } from '../../src/core/records.js';
import { SleepError } from '../../src/core/errors.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyProposal, revertProposal } from '../../src/proposals/apply.js';
import { applyEdits } from '../../src/skilldoc/edits.js';
import { assertWritableTarget, discoverSkills, readBy, skillRoots } from '../../adapters/skills-registry.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function world() {
  const root = makeTempDir('sos-cursor-oc-');
  const project = path.join(root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  const home = path.join(root, 'home');
  const env: NodeJS.ProcessEnv = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep') };
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  return { root, project, home, env, ctx: { project, env } };
}

function write(file: string, content: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

const RULE = '---\ndescription: House conventions for the API\nglobs: src/api/**/*.ts\nalwaysApply: false\n---\n\n# API conventions\n\n- Validate request bodies with zod.\n';

describe('Cursor Agent and OpenCode skill locations', () => {
  it('the cross-agent folders count both as readers; each has its own folder', () => {
    const w = world();
    const p = (rel: string) => path.join(w.project, rel);
    expect(readBy(p('.agents/skills/x/SKILL.md'), w.ctx)).toEqual(['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity']);
    expect(readBy(p('.claude/skills/x/SKILL.md'), w.ctx)).toEqual(expect.arrayContaining(['claude-code', 'cursor', 'opencode']));
    expect(readBy(p('.cursor/skills/x/SKILL.md'), w.ctx)).toEqual(['cursor']);
    expect(readBy(p('.codex/skills/x/SKILL.md'), w.ctx)).toEqual(['cursor']);
    expect(readBy(p('.opencode/skills/x/SKILL.md'), w.ctx)).toEqual(['opencode']);
    expect(readBy(p('AGENTS.md'), w.ctx)).toEqual(expect.arrayContaining(['codex', 'pi', 'cursor', 'opencode']));
    const personal = skillRoots({ project: null, env: w.env }, ['cursor', 'opencode']).map((r) => r.dir);
    expect(personal).toEqual(expect.arrayContaining([path.join(w.home, '.cursor/skills'), path.join(w.home, '.agents/skills'), path.join(w.home, '.config/opencode/skills'), path.join(w.home, '.opencode/skills')]));
  });

  it('skills lists Cursor rules (nested too, .mdc only) and OpenCode\'s global AGENTS.md', () => {
    const w = world();
    const rule = write(path.join(w.project, '.cursor/rules/api.mdc'), RULE);
    const nested = write(path.join(w.project, '.cursor/rules/frontend/react.mdc'), '---\nalwaysApply: true\n---\nUse function components.\n');
    write(path.join(w.project, '.cursor/rules/notes.md'), 'ignored by Cursor\n');
    const skill = write(path.join(w.project, '.cursor/skills/release/SKILL.md'), '---\nname: release\ndescription: cut a release\n---\n# Release\n');
    const global = write(path.join(w.home, '.config/opencode/AGENTS.md'), '# Mine\n');
    const found = discoverSkills(w.ctx);
    const byPath = new Map(found.map((t) => [t.path, t]));
    expect(byPath.get(rule)).toMatchObject({ name: '.cursor/rules/api.mdc', kind: 'instructions', agent: 'cursor', readBy: ['cursor'], project: w.project });
    expect(byPath.get(nested)).toMatchObject({ name: '.cursor/rules/frontend/react.mdc', readBy: ['cursor'] });
    expect(found.some((t) => t.path.endsWith('notes.md'))).toBe(false);
    expect(byPath.get(skill)).toMatchObject({ name: 'release', kind: 'skill', readBy: ['cursor'] });
    expect(byPath.get(global)).toMatchObject({ kind: 'agents-md', readBy: ['opencode'], project: null });
  });

  it('the write guard admits a new Cursor rule and refuses what Cursor would not read', () => {
    const w = world();
    expect(assertWritableTarget(path.join(w.project, '.cursor/rules/new-rule.mdc'), w.ctx).kind).toBe('instructions');
    expect(assertWritableTarget(path.join(w.project, '.cursor/rules/group/new-rule.mdc'), w.ctx).kind).toBe('instructions');
    expect(assertWritableTarget(path.join(w.project, '.opencode/skills/x/SKILL.md'), w.ctx).kind).toBe('skill');
    for (const bad of ['.cursor/rules/plain.md', '.cursor/rules/.hidden.mdc', '.cursor/other/x.mdc']) {
      expect(() => assertWritableTarget(path.join(w.project, bad), w.ctx), bad).toThrow(SleepError);
    }
    // a symlinked rules folder that leads out of the project
    const outside = path.join(w.root, 'elsewhere');
    fs.mkdirSync(outside);
    fs.mkdirSync(path.join(w.project, '.cursor'), { recursive: true });
    fs.symlinkSync(outside, path.join(w.project, '.cursor/rules'));
    expect(() => assertWritableTarget(path.join(w.project, '.cursor/rules/x.mdc'), w.ctx)).toThrow(/symlink/);
  });

  it('a proposal staged into a Cursor rule applies (front matter kept) and reverts byte for byte', () => {
    const w = world();
    const rule = write(path.join(w.project, '.cursor/rules/api.mdc'), RULE);
    const paths = resolvePaths({ env: w.env });
    const db = openDb(paths.database);
    cleanups.unshift(() => db.close());
    markProjectSeen(db, w.project);
    const target = discoverSkills(w.ctx).find((t) => t.path === rule)!;
    const edits: EditRecord[] = [{ id: 'e1', op: 'add', content: '- Store timestamps in UTC.', rationale: 'corrected twice', evidence: ['t1'], status: 'accepted' }];
    const candidate = applyEdits(RULE, edits, { scope: 'document' }).content;
    expect(candidate).toContain('Store timestamps in UTC.');
    const p = stageProposal(db, paths, {
      target,
      baseContent: RULE,
      startContent: RULE,
      candidate,
      runId: 'r1',
      nightId: 'n1',
      result: { accepted: true, baselineScore: 0.4, candidateScore: 0.8, perTask: [{ taskId: 't1', split: 'val', before: 0.4, after: 0.8 }], edits },
      test: null,
      budget: { usd: 0, tokens: 1, calls: 1 },
      backends: { target: { backend: 'cursor', model: 'cursor-cli-default' } },
      evidence: [],
    });
    expect(p.skillTarget.readBy).toEqual(['cursor']);
    const out = applyProposal(db, paths, p.id, { env: w.env });
    const live = fs.readFileSync(rule, 'utf8');
    expect(live).toBe(p.candidate);
    expect(live.startsWith('---\ndescription: House conventions for the API\nglobs: src/api/**/*.ts\nalwaysApply: false\n---\n')).toBe(true);
    expect(live).toContain('Store timestamps in UTC.');
    expect(out.readBy).toEqual(['cursor']);
    revertProposal(db, paths, p.id, { env: w.env });
    expect(fs.readFileSync(rule, 'utf8')).toBe(RULE);
  });
});

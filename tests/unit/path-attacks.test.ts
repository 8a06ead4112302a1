/**
 * Path attacks on the write side: crafted task imports, crafted proposal records (the stored
 * record edited after staging), `..` paths, symlinks swapped in after staging, and the one
 * allowance a typed `--skill <path>` makes. Each attack is refused with PATH_ESCAPE, and a
 * snapshot of every file under the test root shows 0 writes outside the allowed targets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import type { SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyProposal } from '../../src/proposals/apply.js';
import { parseTaskFile } from '../../src/mine/task-file.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function setup() {
  const root = makeTempDir('sos-paths-');
  const env: NodeJS.ProcessEnv = { HOME: path.join(root, 'home'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') };
  const paths = resolvePaths({ env });
  const db = openDb(paths.database);
  const seen = path.join(root, 'seen');
  const unseen = path.join(root, 'unseen');
  const outside = path.join(root, 'outside');
  for (const d of [seen, unseen, outside, env.HOME!]) fs.mkdirSync(d, { recursive: true });
  // both are git work trees the user owns: only the harvest history tells them apart
  for (const d of [seen, unseen]) fs.mkdirSync(path.join(d, '.git'));
  markProjectSeen(db, seen);
  cleanups.push(() => {
    db.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, env, paths, db, seen, unseen, outside };
}
type S = ReturnType<typeof setup>;

/** Every file and symlink under `root` except the product's own home (its proposals, backups, db). */
function snapshot(s: S): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (p === s.env.SKILLOPT_SLEEP_HOME) continue;
      if (e.isSymbolicLink()) out.set(p, `-> ${fs.readlinkSync(p)}`);
      else if (e.isDirectory()) walk(p);
      else out.set(p, fs.readFileSync(p, 'utf8'));
    }
  };
  walk(s.root);
  return out;
}
function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).sort();
}

const result = { accepted: true, baselineScore: 0, candidateScore: 1 };
const skillAt = (project: string | null, file: string): SkillTarget => ({ agent: null, path: file, name: path.basename(path.dirname(file)), kind: 'skill', readBy: [], project });
const doc = (name: string) => `---\nname: ${name}\ndescription: x\n---\n# ${name}\n`;
function stage(s: S, target: SkillTarget, userSkillPath?: string) {
  return stageProposal(s.db, s.paths, { target, baseContent: null, candidate: doc(target.name), runId: null, result, userSkillPath });
}
/** Edits the stored proposal record the way an attacker with a crafted record would. */
function craft(s: S, id: string, target: SkillTarget) {
  const row = s.db.prepare('SELECT record FROM proposals WHERE id = ?').get(id) as { record: string };
  const rec = JSON.parse(row.record) as { skillTarget: SkillTarget };
  rec.skillTarget = target;
  s.db.prepare('UPDATE proposals SET record = ?, skill_path = ? WHERE id = ?').run(JSON.stringify(rec), target.path, id);
}
const escapes = expect.objectContaining({ code: 'PATH_ESCAPE' });

describe('path attacks write nothing outside the allowed targets', () => {
  it('crafted proposal records: a staged proposal re-pointed at /, an unseen project, "..", home, a symlink out, a non-skill file', () => {
    const s = setup();
    const good = path.join(s.seen, '.claude/skills/changelog/SKILL.md');
    fs.mkdirSync(path.join(s.seen, '.claude/skills'), { recursive: true });
    fs.symlinkSync(s.outside, path.join(s.seen, '.claude/skills/link'));
    const before = snapshot(s);
    const attacks: SkillTarget[] = [
      skillAt('/', '/.claude/skills/evil/SKILL.md'),
      skillAt(s.unseen, path.join(s.unseen, '.claude/skills/evil/SKILL.md')),
      skillAt(s.seen, `${s.seen}/../outside/.claude/skills/evil/SKILL.md`),
      skillAt(s.seen, `${s.seen}/.claude/skills/../../../outside/SKILL.md`),
      skillAt(s.env.HOME!, path.join(s.env.HOME!, '.claude/skills/evil/SKILL.md')),
      skillAt(s.seen, path.join(s.seen, '.claude/skills/link/SKILL.md')),
      { ...skillAt(s.seen, path.join(s.seen, '.bashrc')), kind: 'instructions' },
      { ...skillAt(s.seen, path.join(s.outside, 'AGENTS.md')), kind: 'agents-md' },
    ];
    for (const attack of attacks) {
      const p = stage(s, skillAt(s.seen, good));
      craft(s, p.id, attack);
      expect(() => applyProposal(s.db, s.paths, p.id, { env: s.env }), attack.path).toThrow(escapes);
    }
    expect(changedFiles(before, snapshot(s))).toEqual([]);
  });

  it('a symlink swapped in after staging (the skill folder, or the file itself) is refused at apply', () => {
    const s = setup();
    const dir = path.join(s.seen, '.claude/skills/deploy');
    const file = path.join(dir, 'SKILL.md');
    const p1 = stage(s, skillAt(s.seen, file));
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.symlinkSync(s.outside, dir); // the folder now leads out
    const before = snapshot(s);
    expect(() => applyProposal(s.db, s.paths, p1.id, { env: s.env })).toThrow(escapes);
    fs.unlinkSync(dir);
    fs.mkdirSync(dir);
    const victim = path.join(s.outside, 'victim.md');
    fs.writeFileSync(victim, 'keep me\n');
    fs.symlinkSync(victim, file); // the file is a link to a file outside
    const p2 = stage(s, skillAt(s.seen, path.join(s.seen, '.claude/skills/other/SKILL.md')));
    craft(s, p2.id, skillAt(s.seen, file));
    const mid = snapshot(s);
    expect(() => applyProposal(s.db, s.paths, p2.id, { env: s.env })).toThrow(escapes);
    expect(changedFiles(before, mid).filter((f) => !f.startsWith(dir))).toEqual([victim]); // (the test wrote it)
    expect(changedFiles(mid, snapshot(s))).toEqual([]);
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep me\n');
  });

  it('crafted task imports: "/" and ".." are refused at import; home, an unseen folder, one outside open no write target', () => {
    const s = setup();
    const before = snapshot(s);
    const judge = { checks: [{ op: 'contains', value: 'ok' }] };
    for (const project of ['/', `${s.seen}/..`]) {
      expect(() => parseTaskFile(JSON.stringify([{ intent: 'task', project, judge }]), 'crafted.json'), project).toThrow(/is refused/);
    }
    const text = JSON.stringify([s.env.HOME, s.unseen, path.join(s.root, 'outside')].map((project, i) => ({ intent: `task ${i}`, project, judge })));
    const { tasks } = parseTaskFile(text, 'crafted.json');
    expect(tasks.length).toBeGreaterThan(0);
    for (const t of tasks) {
      const project = t.project ?? '/';
      const target = skillAt(project, path.join(project, '.claude/skills/skillopt-sleep-learned/SKILL.md'));
      expect(() => stage(s, target), project).toThrow(escapes);
    }
    expect(changedFiles(before, snapshot(s))).toEqual([]);
  });
});

describe('a `--skill <path>` the user typed', () => {
  it('is an allowed target at apply for that path, outside any harvested project', () => {
    const s = setup();
    const typed = path.join(s.unseen, '.claude/skills/release/SKILL.md');
    const before = snapshot(s);
    const p = stage(s, skillAt(s.unseen, typed), typed);
    applyProposal(s.db, s.paths, p.id, { env: s.env });
    expect(fs.readFileSync(typed, 'utf8')).toContain('# release');
    expect(changedFiles(before, snapshot(s))).toEqual([typed]);
  });

  it('is still refused in a system folder (staging writes nothing there either)', () => {
    const s = setup();
    const typed = '/etc/skillopt-sleep-typed/SKILL.md';
    expect(() => stage(s, skillAt(null, typed), typed)).toThrow(expect.objectContaining({ code: 'PATH_ESCAPE', message: expect.stringMatching(/inside the system folder \/etc/) }));
    expect(fs.existsSync(path.dirname(typed))).toBe(false);
  });

  it('and only that path: a record re-pointed at a sibling file, or a second proposal without the flag, is refused', () => {
    const s = setup();
    const typed = path.join(s.unseen, '.claude/skills/release/SKILL.md');
    const sibling = path.join(s.unseen, '.claude/skills/evil/SKILL.md');
    const p = stage(s, skillAt(s.unseen, typed), typed);
    const before = snapshot(s);
    craft(s, p.id, skillAt(s.unseen, sibling));
    expect(() => applyProposal(s.db, s.paths, p.id, { env: s.env })).toThrow(escapes);
    // a typed path does not open the project: another file there still needs a harvested project
    expect(() => stage(s, skillAt(s.unseen, sibling))).toThrow(escapes);
    // nor does it carry over to a later proposal for the same file that was not typed
    expect(() => stage(s, skillAt(s.unseen, typed))).toThrow(escapes);
    // a typed path that differs from the target allows nothing
    expect(() => stage(s, skillAt(s.unseen, sibling), typed)).toThrow(escapes);
    expect(changedFiles(before, snapshot(s))).toEqual([]);
  });
});

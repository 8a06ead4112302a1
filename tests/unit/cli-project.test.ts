/** `--project` has one meaning: a path or the unique folder name of a known project; a miss lists the known ones. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { openDb } from '../../src/store/db.js';
import { upsertSession, listKnownProjects } from '../../src/store/repos/sessions.js';
import { projectOfCwd, resolveProjectOption } from '../../src/cli/project.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const root = makeTempDir('sos-project-');
  const db = openDb(path.join(root, 'sleep.db'));
  cleanups.push(() => {
    db.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const known = [path.join(root, 'work', 'api'), path.join(root, 'work', 'web'), path.join(root, 'old', 'web')];
  known.forEach((p, i) => {
    fs.mkdirSync(path.join(p, '.git'), { recursive: true });
    upsertSession(db, { id: `claude-code:s${i}`, agent: 'claude-code', vendorId: `s${i}`, project: p, cwd: p, startedAt: 1, endedAt: 2, kind: 'interactive', file: `/x/s${i}.jsonl`, promptCount: 1, toolErrorCount: 0 });
  });
  return { root, db, known };
}

describe('resolveProjectOption', () => {
  it('accepts a unique folder name, an absolute path and a path relative to the cwd', () => {
    const s = setup();
    expect(listKnownProjects(s.db)).toEqual([...s.known].sort());
    expect(resolveProjectOption(s.db, 'api', { mustExist: true })).toBe(s.known[0]);
    expect(resolveProjectOption(s.db, s.known[1]!, { mustExist: true })).toBe(s.known[1]);
    expect(resolveProjectOption(s.db, './web', { mustExist: true, cwd: path.join(s.root, 'old') })).toBe(s.known[2]);
  });

  it('an ambiguous folder name and an unknown project are errors that name the known projects', () => {
    const s = setup();
    expect(() => resolveProjectOption(s.db, 'web', { mustExist: true })).toThrow(/ambiguous/);
    let err: unknown;
    try {
      resolveProjectOption(s.db, 'nope', { mustExist: true });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toContain('not a project skillopt-sleep knows');
    for (const k of s.known) expect((err as Error).message).toContain(k);
    expect((err as { hint?: string }).hint).toMatch(/--project/);
  });

  it('harvest mode (mustExist false) takes a new path as it is', () => {
    const s = setup();
    expect(resolveProjectOption(s.db, 'fresh', { mustExist: false, cwd: s.root })).toBe(path.join(s.root, 'fresh'));
  });
});

describe('projectOfCwd', () => {
  it('is the harvested project of a subfolder, and refuses a folder that is not one (like the tool clone)', () => {
    const s = setup();
    const sub = path.join(s.known[0]!, 'src', 'deep');
    fs.mkdirSync(sub, { recursive: true });
    expect(projectOfCwd(s.db, sub)).toBe(s.known[0]);
    const clone = path.join(s.root, 'skillopt-sleep');
    fs.mkdirSync(path.join(clone, '.git'), { recursive: true });
    expect(() => projectOfCwd(s.db, clone)).toThrow(/not a harvested project/);
  });

  it("refuses the tool's own folder even when agents ran there, and names the other projects", () => {
    const s = setup();
    const tool = s.known[1]!; // sessions ran in it, yet it is the tool's own clone
    let err: unknown;
    try {
      projectOfCwd(s.db, path.join(tool), tool);
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toContain("skillopt-sleep's own folder");
    expect((err as Error).message).toContain(s.known[0]);
    expect((err as Error).message).not.toContain(`  ${tool}\n`);
    expect((err as { hint?: string }).hint).toMatch(/--project/);
    // any other harvested project is still the project of its folder
    expect(projectOfCwd(s.db, s.known[0]!, tool)).toBe(s.known[0]);
  });
});

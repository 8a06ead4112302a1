/**
 * privacy.excludeProjects: a session of an excluded project is never stored — no session row, no
 * event, no parser state — whether the exclusion names the path, a glob or the folder name, and a
 * session stored before the exclusion was added is removed by the next pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { ConfigSchema } from '../../src/core/config-schema.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { FIXTURE_PROJECT, fixtureHome } from '../helpers/fixtures.js';

function eventsOfProject(db: Db, project: string): number {
  return (db.prepare("SELECT count(*) FROM events e JOIN sessions s ON s.sid = e.sid WHERE s.project = ? OR s.project LIKE ? OR s.cwd LIKE ?").pluck().get(project, `${project}/%`, `${project}%`) as number);
}
function sessionsOfProject(db: Db, project: string): number {
  return db.prepare('SELECT count(*) FROM sessions WHERE project = ? OR project LIKE ? OR cwd LIKE ?').pluck().get(project, `${project}/%`, `${project}%`) as number;
}
function statesMentioning(db: Db, needle: string): number {
  return db.prepare("SELECT count(*) FROM files WHERE state LIKE ?").pluck().get(`%${needle}%`) as number;
}

describe('privacy.excludeProjects', () => {
  let sb: Sandbox;
  let db: Db;
  beforeEach(() => {
    sb = makeSandbox();
    fs.cpSync(fixtureHome('claude-code'), sb.env.CLAUDE_CONFIG_DIR!, { recursive: true });
    fs.cpSync(fixtureHome('codex'), sb.env.CODEX_HOME!, { recursive: true });
    db = openDb(path.join(sb.home, 'state', 'sleep.db'));
  });
  afterEach(() => {
    db.close();
    sb.cleanup();
  });
  const harvest = (excludeProjects: string[]) =>
    runHarvest(db, ConfigSchema.parse({ privacy: { excludeProjects } }), { env: sb.env, stateDir: path.join(sb.home, 'state'), workers: 0 });

  it('the fixtures do hold sessions of the project (so the exclusion has something to exclude)', async () => {
    await harvest([]);
    expect(sessionsOfProject(db, FIXTURE_PROJECT)).toBeGreaterThan(0);
    expect(eventsOfProject(db, FIXTURE_PROJECT)).toBeGreaterThan(0);
  });

  for (const [label, pattern] of [
    ['its path', FIXTURE_PROJECT],
    ['a glob', '/home/*/src/tide*'],
    ['a ** glob', '**/tidemark'],
    ['its folder name', 'tidemark'],
  ] as const) {
    it(`stores no session and no event of a project excluded by ${label}`, async () => {
      const sum = await harvest([pattern]);
      expect(sum.skipped['excluded-project']).toBeGreaterThan(0);
      expect(sessionsOfProject(db, FIXTURE_PROJECT)).toBe(0);
      expect(eventsOfProject(db, FIXTURE_PROJECT)).toBe(0);
      expect(statesMentioning(db, 'tidemark')).toBe(0);
      // a second pass reads nothing again and still stores nothing
      const again = await harvest([pattern]);
      expect(again.filesChanged).toBe(0);
      expect(sessionsOfProject(db, FIXTURE_PROJECT)).toBe(0);
    });
  }

  it('a pattern that matches another project excludes nothing here', async () => {
    await harvest(['/home/mika/src/other', 'tide']);
    expect(sessionsOfProject(db, FIXTURE_PROJECT)).toBeGreaterThan(0);
  });

  it('removes what was stored before the exclusion on the next pass, even when no transcript changed', async () => {
    await harvest([]);
    expect(sessionsOfProject(db, FIXTURE_PROJECT)).toBeGreaterThan(0);
    const other = db.prepare('SELECT count(*) FROM sessions WHERE NOT (project = ? OR project LIKE ?)').pluck().get(FIXTURE_PROJECT, `${FIXTURE_PROJECT}/%`) as number;
    const sum = await harvest(['tidemark']);
    expect(sum.skipped['excluded-project-removed']).toBeGreaterThan(0);
    expect(sum.filesChanged).toBe(0); // nothing was read again to get there
    expect(eventsOfProject(db, FIXTURE_PROJECT)).toBe(0);
    expect(sessionsOfProject(db, FIXTURE_PROJECT)).toBe(0);
    expect(statesMentioning(db, 'tidemark')).toBe(0);
    expect(db.prepare('SELECT count(*) FROM sessions').pluck().get()).toBe(other);
    // and when the transcript grows later, the new lines are not stored either
    const files = db.prepare('SELECT path FROM files WHERE session_id IS NULL').pluck().all() as string[];
    for (const f of files) fs.appendFileSync(f, '\n');
    await harvest(['tidemark']);
    expect(sessionsOfProject(db, FIXTURE_PROJECT)).toBe(0);
  });
});

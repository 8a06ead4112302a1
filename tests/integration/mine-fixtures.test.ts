import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { runMining } from '../../src/mine/index.js';
import { listTasks } from '../../src/store/repos/tasks.js';
import { makeSandbox } from '../helpers/sandbox.js';
import { fixtureHome, VSCODE_USER_FIXTURE } from '../helpers/fixtures.js';

const box = makeSandbox({
  CLAUDE_CONFIG_DIR: fixtureHome('claude-code'),
  CODEX_HOME: fixtureHome('codex'),
  COPILOT_HOME: fixtureHome('copilot-cli'),
});
afterAll(() => box.cleanup());

describe('mining the transcript fixtures (harvested by the real harvester)', () => {
  it('finds the three jobs mika repeats in every tool, with their corrections', async () => {
    const config = defaultConfig();
    config.agents.copilot.vscodeUserDirs = [VSCODE_USER_FIXTURE];
    fs.mkdirSync(box.home, { recursive: true });
    const db = openDb(path.join(box.home, 'sleep.db'));
    await runHarvest(db, config, { env: box.env, stateDir: box.home, workers: 0 });
    const s = await runMining(db, config);
    // three recurring families, each occurrence a task of its family
    expect(s.recurringTasks).toBe(3);
    const tasks = listTasks(db);
    expect(s.newTasks).toBe(tasks.length);
    const families = new Map<string, typeof tasks>();
    for (const t of tasks) families.set(t.family!, [...(families.get(t.family!) ?? []), t]);
    expect(families.size).toBe(3);
    const find = (re: RegExp) => [...families.values()].find((f) => f.some((t) => re.test(t.intent)))!;
    const changelog = find(/changelog/i);
    const unitTest = find(/unit test/i);
    const lint = find(/eslint/i);
    for (const f of [changelog, unitTest, lint]) {
      expect(f).toBeDefined();
      expect([...new Set(f.flatMap((t) => t.agents))].sort()).toEqual(['claude-code', 'codex', 'copilot']);
      expect(f.reduce((n, t) => n + t.occurrences, 0)).toBeGreaterThanOrEqual(3);
      // a family of 3 or more has both a training and a validation task
      if (f.length >= 3) expect(f.map((t) => t.split)).toEqual(expect.arrayContaining(['train', 'val']));
    }
    for (const t of unitTest) {
      expect(t.corrections).toContain('use it.each for the suffix cases');
      expect(t.judge.checks.some((c) => c.op === 'contains' && c.value === '.each')).toBe(true);
    }
    // the family's corrections judge its train and val tasks; a test task is judged by its own session's
    for (const t of changelog.filter((x) => x.split !== 'test')) expect(t.judge.checks.some((c) => c.op === 'regex' && /unreleased/i.test(String(c.value)))).toBe(true);
    expect(s.integrity).toEqual([]);
    db.close();
  });
});

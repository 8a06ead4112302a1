import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { runMining } from '../../src/mine/index.js';
import { listTasks } from '../../src/store/repos/tasks.js';
import { makeSandbox, SHARED_FIXTURES } from '../helpers/sandbox.js';

const box = makeSandbox({
  CLAUDE_CONFIG_DIR: path.join(SHARED_FIXTURES, 'claude-code'),
  CODEX_HOME: path.join(SHARED_FIXTURES, 'codex'),
  COPILOT_HOME: path.join(SHARED_FIXTURES, 'copilot-cli'),
});
afterAll(() => box.cleanup());

describe('mining the shared transcript fixtures (harvested by the real harvester)', () => {
  it('finds the three jobs dana repeats in every tool, with her corrections', async () => {
    const config = defaultConfig();
    config.agents.copilot.vscodeUserDirs = [path.join(SHARED_FIXTURES, 'copilot-vscode/User')];
    fs.mkdirSync(box.home, { recursive: true });
    const db = openDb(path.join(box.home, 'sleep.db'));
    await runHarvest(db, config, { env: box.env, stateDir: box.home, workers: 0 });
    const s = await runMining(db, config);
    expect(s.newTasks).toBe(3);
    const tasks = listTasks(db);
    const find = (re: RegExp) => tasks.find((t) => re.test(t.intent))!;
    const changelog = find(/changelog/i);
    const unitTest = find(/unit test/i);
    const lint = find(/eslint/i);
    for (const t of [changelog, unitTest, lint]) {
      expect(t).toBeDefined();
      expect(t.agents).toEqual(['claude-code', 'codex', 'copilot']);
      expect(t.occurrences).toBeGreaterThanOrEqual(3);
    }
    expect(unitTest.corrections).toContain('use it.each for the separator cases');
    expect(unitTest.judge.checks.some((c) => c.op === 'contains' && c.value === '.each')).toBe(true);
    expect(changelog.judge.checks.some((c) => c.op === 'regex' && /unreleased/i.test(String(c.value)))).toBe(true);
    expect(s.integrity).toEqual([]);
    db.close();
  });
});

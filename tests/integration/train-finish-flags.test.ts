/**
 * `train --no-rescue / --no-prune / --no-simplify` through the built binary: a flag overrides the
 * config for one run (shown in the dry-run plan) and only ever turns a finishing pass off. The
 * passes themselves are tested in-process in tests/unit/trainer-finish-config.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/records.js';
import type { TrainOptions } from '../../src/trainer/index.js';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { makeTask } from '../helpers/tasks.js';

let sb: Sandbox | undefined;
afterEach(() => {
  sb?.cleanup();
  sb = undefined;
});

const task = (id: string, split: Task['split']): Task =>
  makeTask({
    id,
    intent: `answer ${id}`,
    judge: { checks: [{ id: 'alpha', op: 'contains', value: 'ALPHA', weight: 1, sealed: false, description: 'says ALPHA' }], reference: { kind: 'rule' } },
    split,
  });
const tasks = { train: [task('t1', 'train'), task('t2', 'train')], val: [task('v1', 'val'), task('v2', 'val'), task('v3', 'val')] };

describe('skillopt-sleep train --no-rescue / --no-prune / --no-simplify (built CLI)', () => {
  it('override the config for one run, shown in the dry-run plan', () => {
    if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
    sb = makeSandbox();
    const tasksFile = path.join(sb.root, 'tasks.jsonl');
    fs.writeFileSync(tasksFile, [...tasks.train, ...tasks.val].map((t) => JSON.stringify(t)).join('\n') + '\n');
    const base = ['train', '--tasks', tasksFile, '--project', sb.root, '--backend', 'sim', '--dry-run'];
    const plan = (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const r = runCli([...base, ...args, '--json'], { ...sb!.env, ...env });
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { options: TrainOptions }).options;
    };
    expect(plan([])).toMatchObject({ rescue: true, prune: true, simplify: true, attributionMaxEdits: 12 });
    expect(plan(['--no-prune', '--no-simplify'])).toMatchObject({ rescue: true, prune: false, simplify: false });
    expect(plan(['--no-rescue'], { SKILLOPT_SLEEP_TRAINING_ATTRIBUTION_MAX_EDITS: '5' })).toMatchObject({ rescue: false, prune: true, simplify: true, attributionMaxEdits: 5 });
    // a flag only turns a pass off: it never turns on one the config turned off
    expect(plan([], { SKILLOPT_SLEEP_TRAINING_PRUNE: 'false' })).toMatchObject({ prune: false });
    const text = runCli([...base, '--no-rescue'], sb.env);
    expect(text.stdout).toMatch(/^finish: rescue off, prune on, simplify on; attribution of up to 12 edit\(s\)$/m);
    const help = runCli(['train', '--help'], sb.env);
    expect(help.stdout).toMatch(/--no-rescue[\s\S]*--no-prune[\s\S]*--no-simplify/);
  });
});

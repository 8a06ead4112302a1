/**
 * What `npm pack` would publish: the product (dist/src, dist/adapters, skills, schemas, the JSON
 * docs, the README), never the lab. bench/ builds on its own into dist-bench/ (tsconfig.bench.json),
 * so no bench file, source or compiled, may be in the tarball. npm runs with a temporary cache and
 * empty npmrc files, offline, scripts off (`prepare` would rebuild dist/, which the suite built already).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, REPO_ROOT, makeSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let files: string[];

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  const npmrc = path.join(sb.root, 'npmrc');
  const globalNpmrc = path.join(sb.root, 'npmrc-global');
  fs.writeFileSync(npmrc, '');
  fs.writeFileSync(globalNpmrc, '');
  const env = {
    PATH: process.env.PATH,
    HOME: sb.env.HOME,
    npm_config_cache: path.join(sb.root, 'npm-cache'),
    npm_config_userconfig: npmrc,
    npm_config_globalconfig: globalNpmrc,
    npm_config_offline: 'true',
    npm_config_ignore_scripts: 'true',
    npm_config_update_notifier: 'false',
  };
  const r = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`npm pack --dry-run failed (${r.status}): ${r.stderr}`);
  const [report] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
  files = report!.files.map((f) => f.path);
});
afterAll(() => sb?.cleanup());

describe('npm pack', () => {
  it('ships the product: the CLI, the adapters, the skills, the schema and the README', () => {
    expect(files).toContain('dist/src/cli/main.js');
    expect(files.some((f) => f.startsWith('dist/adapters/'))).toBe(true);
    expect(files).toContain('schema/config.schema.json');
    expect(files).toContain('README.md');
    expect(files).toContain('package.json');
  });

  it('holds no file of the lab: nothing from bench/, compiled or not', () => {
    const lab = files.filter((f) => /(^|\/)bench\//.test(f) || f.startsWith('dist-bench/'));
    expect(lab).toEqual([]);
    expect(files.filter((f) => f.startsWith('tests/') || f.startsWith('dist/tests/'))).toEqual([]);
  });
});

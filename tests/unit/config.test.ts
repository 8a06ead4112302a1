import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, listLeafKeys, loadConfig, setConfigValue, configJsonSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { SleepError } from '../../src/core/errors.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function sandboxPaths() {
  const d = makeTempDir();
  dirs.push(d);
  return resolvePaths({ env: { SKILLOPT_SLEEP_HOME: d } });
}

function expectConfigError(fn: () => unknown, re: RegExp) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SleepError);
    expect((err as SleepError).message).toMatch(re);
    return;
  }
  throw new Error('expected a config error');
}

describe('config', () => {
  it('has defaults for every key', () => {
    const c = defaultConfig();
    expect(c.schedule.cron).toBe('0 3 * * *');
    expect(c.budget.deadline).toBe('07:00');
    expect(c.autoApply).toBe(false);
  });

  it('names an unknown key in the error', () => {
    const p = sandboxPaths();
    fs.writeFileSync(p.configFile, JSON.stringify({ budget: { maxDollars: 3 } }));
    expectConfigError(() => loadConfig(p, {}), /unknown key "budget.maxDollars"/);
  });

  it('names the key with a wrong type', () => {
    const p = sandboxPaths();
    fs.writeFileSync(p.configFile, JSON.stringify({ schedule: { cron: 5 } }));
    expectConfigError(() => loadConfig(p, {}), /"schedule.cron".*expected string/);
  });

  it('reports invalid JSON with the file path', () => {
    const p = sandboxPaths();
    fs.writeFileSync(p.configFile, '{ not json');
    expectConfigError(() => loadConfig(p, {}), /config.json is not valid JSON/);
  });

  it('env vars override file values, with type coercion', () => {
    const p = sandboxPaths();
    fs.writeFileSync(p.configFile, JSON.stringify({ budget: { maxUsd: 1 } }));
    const { config, envOverrides } = loadConfig(p, { SKILLOPT_SLEEP_BUDGET_MAX_USD: '4.5', SKILLOPT_SLEEP_AUTO_APPLY: 'true' });
    expect(config.budget.maxUsd).toBe(4.5);
    expect(config.autoApply).toBe(true);
    expect(envOverrides).toEqual(expect.arrayContaining(['SKILLOPT_SLEEP_BUDGET_MAX_USD', 'SKILLOPT_SLEEP_AUTO_APPLY']));
    expectConfigError(() => loadConfig(p, { SKILLOPT_SLEEP_BUDGET_MAX_USD: 'lots' }), /SKILLOPT_SLEEP_BUDGET_MAX_USD="lots" is not a number/);
  });

  it('set validates before writing and keeps the file valid', () => {
    const p = sandboxPaths();
    setConfigValue(p, 'training.lr', '6');
    expect(JSON.parse(fs.readFileSync(p.configFile, 'utf8')).training.lr).toBe(6);
    expectConfigError(() => setConfigValue(p, 'training.lr', '"six"'), /training.lr/);
    expectConfigError(() => setConfigValue(p, 'training.nope', '1'), /unknown config key "training.nope"/);
    expect(JSON.parse(fs.readFileSync(p.configFile, 'utf8')).training.lr).toBe(6);
    expect(fs.statSync(p.configFile).mode & 0o777).toBe(0o600);
  });

  it('every leaf key has a unique env name', () => {
    const names = listLeafKeys().map((k) => k.envName);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('SKILLOPT_SLEEP_SCHEDULE_CRON');
  });

  it('the committed JSON Schema matches the zod schema', () => {
    const file = path.resolve(__dirname, '../../schema/config.schema.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });
});

/**
 * The built-in configuration spelled out (src/core/config-defaults.ts) so the first `status` after an
 * install need not load the schema library: it must be exactly what the schema makes of no config,
 * and be used only when nothing could change it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema, listLeafKeys, loadConfig } from '../../src/core/config.js';
import { builtInConfig, NOT_CONFIG_ENV, unconfiguredDefaults } from '../../src/core/config-defaults.js';
import { resolvePaths, type SleepPaths } from '../../src/core/paths.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let paths: SleepPaths;
beforeEach(() => {
  sb = makeSandbox();
  paths = resolvePaths({ env: sb.env });
});
afterEach(() => sb.cleanup());

describe('the built-in configuration', () => {
  it('is exactly what the schema makes of no config (a changed default fails here, not at a user)', () => {
    expect(builtInConfig()).toStrictEqual(ConfigSchema.parse({}));
    expect(builtInConfig()).toStrictEqual(loadConfig(paths, sb.env).config);
  });

  it('hands out a fresh copy each time', () => {
    const a = builtInConfig();
    a.schedule.cron = '1 1 * * *';
    a.agents.codex.roots.push('/x');
    expect(builtInConfig().schedule.cron).toBe('0 3 * * *');
    expect(builtInConfig().agents.codex.roots).toEqual([]);
  });

  it('no variable it ignores is a config override', () => {
    const overrides = new Set(listLeafKeys().map((l) => l.envName));
    expect([...NOT_CONFIG_ENV].filter((name) => overrides.has(name))).toEqual([]);
  });
});

describe('unconfiguredDefaults', () => {
  it('answers with the defaults when there is no config file and no override', () => {
    expect(sb.env.SKILLOPT_SLEEP_HOME, 'the state folder variable is no override').toBeDefined();
    expect(unconfiguredDefaults(paths, sb.env)).toStrictEqual(ConfigSchema.parse({}));
  });

  it('steps aside for a config file, even an empty one', () => {
    fs.mkdirSync(paths.configDir, { recursive: true });
    fs.writeFileSync(paths.configFile, '');
    expect(unconfiguredDefaults(paths, sb.env)).toBeUndefined();
  });

  it('steps aside for any SKILLOPT_SLEEP_ variable that may be an override, known or not', () => {
    expect(unconfiguredDefaults(paths, { ...sb.env, SKILLOPT_SLEEP_SCHEDULE_CRON: '0 1 * * *' })).toBeUndefined();
    expect(unconfiguredDefaults(paths, { ...sb.env, SKILLOPT_SLEEP_SOME_FUTURE_KEY: '1' })).toBeUndefined();
    expect(unconfiguredDefaults(paths, { ...sb.env, SKILLOPT_SLEEP_HARVEST_WORKERS: '1' })).toStrictEqual(ConfigSchema.parse({}));
  });

  it('steps aside when the file cannot be looked for, so the validating path reports it', () => {
    // the config folder is a file: not "no config" (ENOENT) but an error the user must see
    fs.mkdirSync(path.dirname(paths.configDir), { recursive: true });
    fs.writeFileSync(paths.configDir, 'not a folder');
    expect(unconfiguredDefaults(paths, sb.env)).toBeUndefined();
    expect(() => loadConfig(paths, sb.env)).toThrow(/cannot read/);
  });
});

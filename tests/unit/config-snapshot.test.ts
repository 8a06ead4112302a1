/**
 * The validated copy of the config (src/core/config-snapshot.ts): `status` reads it instead of
 * loading the schema library, so it must answer only while nothing the validation read has changed.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, setConfigValue } from '../../src/core/config.js';
import { configSnapshotFile, readConfigSnapshot, writeConfigSnapshot } from '../../src/core/config-snapshot.js';
import { resolvePaths, type SleepPaths } from '../../src/core/paths.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let paths: SleepPaths;
beforeEach(() => {
  sb = makeSandbox();
  paths = resolvePaths({ env: sb.env });
  fs.mkdirSync(paths.stateDir, { recursive: true });
});
afterEach(() => sb.cleanup());

/** Validates the slow way and keeps the copy, as the CLI's context does. */
function validateAndKeep(env: NodeJS.ProcessEnv = sb.env) {
  const loaded = loadConfig(paths, env);
  writeConfigSnapshot(paths, env, loaded.fileText, loaded.config);
  return loaded.config;
}

describe('the validated copy of the config', () => {
  it('answers with exactly the validated config while the file and env are unchanged (no file, then a file)', () => {
    expect(readConfigSnapshot(paths, sb.env), 'no copy yet').toBeUndefined();
    const defaults = validateAndKeep();
    expect(readConfigSnapshot(paths, sb.env)).toStrictEqual(defaults);

    setConfigValue(paths, 'schedule.cron', '30 4 * * *');
    expect(readConfigSnapshot(paths, sb.env), 'the file changed').toBeUndefined();
    const edited = validateAndKeep();
    expect(edited.schedule.cron).toBe('30 4 * * *');
    expect(readConfigSnapshot(paths, sb.env)).toStrictEqual(edited);
  });

  it('misses when an env override changes, and when the file is removed', () => {
    setConfigValue(paths, 'schedule.cron', '30 4 * * *');
    validateAndKeep();
    const env = { ...sb.env, SKILLOPT_SLEEP_SCHEDULE_CRON: '0 1 * * *' };
    expect(readConfigSnapshot(paths, env)).toBeUndefined();
    expect(validateAndKeep(env).schedule.cron).toBe('0 1 * * *');
    expect(readConfigSnapshot(paths, env)?.schedule.cron).toBe('0 1 * * *');
    expect(readConfigSnapshot(paths, sb.env), 'the override is gone again').toBeUndefined();

    validateAndKeep();
    fs.rmSync(paths.configFile);
    expect(readConfigSnapshot(paths, sb.env)).toBeUndefined();
  });

  it('a damaged copy is a miss, never an error; an invalid file is never kept', () => {
    validateAndKeep();
    fs.writeFileSync(configSnapshotFile(paths), '{"format":1,"key":');
    expect(readConfigSnapshot(paths, sb.env)).toBeUndefined();

    fs.mkdirSync(paths.configDir, { recursive: true });
    fs.writeFileSync(paths.configFile, JSON.stringify({ schedule: { cron: 7 } }));
    expect(() => validateAndKeep()).toThrow(/schedule\.cron/);
    expect(readConfigSnapshot(paths, sb.env)).toBeUndefined();
  });

  it('is written only into a state folder that exists', () => {
    fs.rmSync(paths.stateDir, { recursive: true });
    validateAndKeep();
    expect(fs.existsSync(paths.stateDir)).toBe(false);
  });
});

/**
 * A validated copy of the configuration in the state folder, so a command that prints a few lines
 * (`status`) need not load the schema library to read a config file that has not changed (issue 40):
 * validating costs more than the rest of the command. The copy is keyed by everything the validated
 * result depends on: the config file's bytes (or its absence), every SKILLOPT_SLEEP_* env var (the
 * overrides), the package version and the compiled schema module's size and mtime (a rebuilt
 * schema). Any other key, a missing or unreadable copy, is a miss: the caller validates (config.ts)
 * and writes a fresh copy. The copy is a cache, never the source: losing it costs one validation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256, writeFileAtomic } from './fsutil.js';
import { packageVersion } from './version.js';
import type { Config } from './config-schema.js';
import type { SleepPaths } from './paths.js';

const SNAPSHOT_FORMAT = 1;

interface Snapshot {
  format: number;
  key: string;
  config: Config;
}

export function configSnapshotFile(paths: SleepPaths): string {
  return path.join(paths.stateDir, 'config-validated.json');
}

/** The schema module beside this one (compiled .js, or .ts under vitest): a rebuilt schema changes its stamp. */
function schemaStamp(): string {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  try {
    const st = fs.statSync(fileURLToPath(new URL(`./config-schema.${ext}`, import.meta.url)));
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'unknown';
  }
}

/** What the validated config depends on, hashed. `fileText` undefined: there is no config file. */
export function configSnapshotKey(paths: SleepPaths, env: NodeJS.ProcessEnv, fileText: string | undefined): string {
  const overrides = Object.keys(env)
    .filter((k) => k.startsWith('SKILLOPT_SLEEP_'))
    .sort()
    .map((k) => `${k}=${env[k] ?? ''}`);
  return sha256(JSON.stringify([SNAPSHOT_FORMAT, packageVersion(), schemaStamp(), paths.configFile, fileText ?? null, overrides]));
}

function readConfigText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The validated config when the copy matches the file and env as they are now; undefined on any miss. */
export function readConfigSnapshot(paths: SleepPaths, env: NodeJS.ProcessEnv): Config | undefined {
  try {
    const snap = JSON.parse(fs.readFileSync(configSnapshotFile(paths), 'utf8')) as Partial<Snapshot>;
    if (snap.format !== SNAPSHOT_FORMAT || typeof snap.config !== 'object' || snap.config === null) return undefined;
    return snap.key === configSnapshotKey(paths, env, readConfigText(paths.configFile)) ? snap.config : undefined;
  } catch {
    return undefined; // no copy yet, a damaged one, an unreadable config file: validate the slow way (which reports it)
  }
}

/**
 * Keeps `config`, validated from `fileText` and `env`, for the next command. Only into a state folder
 * that exists (a command that opened the store made it); a folder we cannot write costs only speed.
 */
export function writeConfigSnapshot(paths: SleepPaths, env: NodeJS.ProcessEnv, fileText: string | undefined, config: Config): void {
  if (!fs.existsSync(paths.stateDir)) return;
  const snap: Snapshot = { format: SNAPSHOT_FORMAT, key: configSnapshotKey(paths, env, fileText), config };
  try {
    writeFileAtomic(configSnapshotFile(paths), JSON.stringify(snap) + '\n', { mode: 0o600 });
  } catch {
    // a read-only state folder: the next command validates again
  }
}

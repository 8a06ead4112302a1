#!/usr/bin/env node
/**
 * The daemon's own entry point (`node dist/src/daemon/main.js`): the same as
 * `skillopt-sleep start --foreground`, without loading every CLI command (the review TUI, the
 * SDKs...), which would cost the resident process ~18 MB for code it never runs. `start` and the
 * service files written by `schedule install` use this entry.
 */
import { resolvePaths } from '../core/paths.js';
import { loadConfig } from '../core/config.js';
import { printError } from '../core/error-output.js';
import { packageVersion } from '../core/version.js';
import { runForeground } from './lifecycle.js';

async function main(): Promise<void> {
  const env = process.env;
  try {
    const paths = resolvePaths({ env });
    const { config } = loadConfig(paths, env);
    process.exitCode = await runForeground({ paths, config, env, version: packageVersion(), print: (l) => process.stdout.write(l + '\n') });
  } catch (err) {
    process.exitCode = printError(err, { debug: process.argv.includes('--debug') });
  }
}

await main();

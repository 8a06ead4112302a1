/**
 * What `start` and `restart` check before they change anything: the config the daemon would run
 * with (its keys, the cron expression, the timezone, the deadline) and a state folder it can write.
 * `restart` runs this before it stops the daemon, so a hand-edited bad cron leaves the healthy
 * daemon running (issue 38).
 */
import type { Config } from '../core/config.js';
import type { SleepPaths } from '../core/paths.js';
import { SleepError } from '../core/errors.js';
import { configProblems } from '../core/config-validate.js';
import { assertWritableFolder } from '../core/error-diagnosis.js';

export function daemonPreflight(paths: SleepPaths, config: Config, what: string): void {
  const problems = configProblems(config);
  if (problems.length) {
    const first = problems[0]!;
    throw new SleepError('CONFIG_INVALID', `config invalid: ${problems.map((p) => `${p.key}: ${p.message}`).join('; ')}`, {
      hint: `${first.hint}; \`skillopt-sleep config set ${first.key} <value>\` fixes it (${paths.configFile}). ${what}`,
    });
  }
  assertWritableFolder(paths.stateDir);
}

/**
 * Config sections the running daemon reads once, at start: watching and harvesting (agents, privacy,
 * harvest), mining, backend detection (roles, backends), the schedule and its log. The rest (budget,
 * training, replay, autoApply) is read by each night's own process, so the next night uses it.
 */
const READ_AT_DAEMON_START = ['agents', 'roles', 'backends', 'schedule', 'mining', 'privacy', 'harvest', 'log'];

/** True when a change of `key` reaches a running daemon only after `skillopt-sleep restart`. */
export function keyNeedsRestart(key: string): boolean {
  return READ_AT_DAEMON_START.includes(key.split('.')[0]!);
}

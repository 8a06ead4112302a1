/**
 * The configuration a user has before writing any: the schema's defaults (ConfigSchema.parse({})),
 * spelled out, so a command run before a config file exists (the first `status` after an install)
 * need not load the schema library to validate what is known to be valid (issue 40: validating the
 * defaults cost more than the rest of the command). tests/unit/config-defaults.test.ts proves the
 * copy equal to what the schema makes, so a changed default fails a test instead of drifting.
 * Any config file, or any env var that may be an override, takes the validating path (config.ts).
 */
import fs from 'node:fs';
import type { Config } from './config-schema.js';
import type { SleepPaths } from './paths.js';

const BUILT_IN: Config = {
  agents: {
    claudeCode: { enabled: true, roots: [] },
    codex: { enabled: true, roots: [] },
    copilot: { enabled: true, vscodeUserDirs: [], cliRoots: [] },
    gemini: { enabled: true, roots: [] },
    pi: { enabled: true, roots: [] },
    cursor: { enabled: true, roots: [] },
    opencode: { enabled: true, roots: [] },
    antigravity: { enabled: true, roots: [] },
  },
  roles: { target: { backend: 'auto' }, optimizer: { backend: 'auto' }, judge: { backend: 'auto' }, miner: { backend: 'auto' } },
  backends: {
    openai: { apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-5-mini' },
    anthropic: { apiKeyEnv: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-4-6' },
    concurrency: 4,
    timeoutMs: 180000,
    maxRetries: 4,
    sim: { seed: 7, latencyMs: 0, harmfulEditRate: 0.1, irrelevantEditRate: 0.1, malformedJsonRate: 0.05 },
  },
  schedule: { cron: '0 3 * * *', catchUp: true },
  budget: { maxUsd: 2, maxTokens: 2000000, maxCalls: 400, maxTasks: 60, deadline: '07:00' },
  training: {
    epochs: 2,
    batchSize: 8,
    lr: 4,
    lrSchedule: 'cosine',
    minLr: 1,
    gateMetric: 'soft',
    noRegression: false,
    margin: 0,
    minValTasks: 3,
    skillTokenBudget: 1200,
    maxJudgeDisagreement: 0.2,
    fullDocument: false,
    seed: 1,
    rescue: true,
    prune: true,
    simplify: true,
    attributionMaxEdits: 12,
  },
  mining: { minSessions: 2, threshold: 0.5, useLlm: false, outcomeEvidence: true },
  privacy: { excludeProjects: [] },
  harvest: { maxLineBytes: 8388608 },
  replay: { seedWorkspace: true, seedMaxFiles: 200000, seedMaxMb: 512, skillDelivery: 'native', isolateAgentHomes: true, outcomeCommands: {} },
  autoApply: false,
  backups: { keep: 7 },
  log: { level: 'info', maxSizeMb: 10, keep: 5 },
};

/**
 * SKILLOPT_SLEEP_* variables the product reads that are not config overrides (where the state lives,
 * test and bench knobs). Any other SKILLOPT_SLEEP_* variable may be an override (config.ts turns
 * each key's path into one), so it takes the validating path; a name missing here costs only speed.
 */
export const NOT_CONFIG_ENV = new Set([
  'SKILLOPT_SLEEP_HOME',
  'SKILLOPT_SLEEP_UNIT_DIR',
  'SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS',
  'SKILLOPT_SLEEP_HARVEST_WORKERS',
  'SKILLOPT_SLEEP_DAEMON_MINE_DELAY_MS',
  'SKILLOPT_SLEEP_DAEMON_DEBOUNCE_MS',
  'SKILLOPT_SLEEP_NIGHT_TRIGGER',
  'SKILLOPT_SLEEP_BENCH_IDLE_S',
]);

/** A fresh copy of the built-in configuration (callers may change theirs). */
export function builtInConfig(): Config {
  return structuredClone(BUILT_IN);
}

/**
 * The built-in configuration when nothing can change it: no config file, no env var that may be an
 * override. Undefined otherwise, and when the file's absence cannot be told (an unreadable folder):
 * the validating path then reads, and reports, what is there.
 */
export function unconfiguredDefaults(paths: SleepPaths, env: NodeJS.ProcessEnv): Config | undefined {
  for (const name of Object.keys(env)) if (name.startsWith('SKILLOPT_SLEEP_') && !NOT_CONFIG_ENV.has(name)) return undefined;
  try {
    fs.statSync(paths.configFile);
    return undefined; // a file: validate it
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? builtInConfig() : undefined;
  }
}

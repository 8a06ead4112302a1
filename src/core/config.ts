/**
 * Configuration: one zod schema is the source of truth. The JSON Schema file (schema/config.schema.json)
 * is generated from it, the README documents each key, and env vars override file values:
 * the env name of a key is `SKILLOPT_SLEEP_` + its path in SCREAMING_SNAKE (`schedule.cron` →
 * `SKILLOPT_SLEEP_SCHEDULE_CRON`). Arrays in env are comma-separated; booleans are true/false/1/0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { SleepError } from './errors.js';
import { ensurePrivateDir, writeFileAtomic } from './fsutil.js';
import type { SleepPaths } from './paths.js';

export const BackendName = z.enum(['auto', 'claude', 'codex', 'copilot', 'openai', 'anthropic', 'sim']);
export type BackendName = z.infer<typeof BackendName>;

const RoleConfig = z
  .object({
    backend: BackendName.default('auto').describe('Backend for this role; auto = detect (claude, codex, copilot, ANTHROPIC_API_KEY, OPENAI_API_KEY).'),
    model: z.string().optional().describe('Model name for this role; the backend default when unset.'),
  })
  .strict();

const roleDefault = () => ({ backend: 'auto' as const });

export const ConfigSchema = z
  .object({
    $schema: z.string().optional().describe('Path or URL of the JSON Schema, for editors.'),
    agents: z
      .object({
        claudeCode: z
          .object({
            enabled: z.boolean().default(true).describe('Harvest Claude Code transcripts.'),
            roots: z.array(z.string()).default([]).describe('Extra Claude config dirs (like CLAUDE_CONFIG_DIR); empty = auto-discover.'),
          })
          .strict()
          .default({ enabled: true, roots: [] }),
        codex: z
          .object({
            enabled: z.boolean().default(true).describe('Harvest Codex transcripts.'),
            roots: z.array(z.string()).default([]).describe('Extra Codex homes (like CODEX_HOME); empty = auto-discover.'),
          })
          .strict()
          .default({ enabled: true, roots: [] }),
        copilot: z
          .object({
            enabled: z.boolean().default(true).describe('Harvest GitHub Copilot (VS Code chat and Copilot CLI) transcripts.'),
            vscodeUserDirs: z.array(z.string()).default([]).describe('Extra VS Code `User/` dirs; empty = auto-discover stable/Insiders/VSCodium/portable.'),
            cliRoots: z.array(z.string()).default([]).describe('Extra Copilot CLI homes (like COPILOT_HOME); empty = auto-discover.'),
          })
          .strict()
          .default({ enabled: true, vscodeUserDirs: [], cliRoots: [] }),
      })
      .strict()
      .default({
        claudeCode: { enabled: true, roots: [] },
        codex: { enabled: true, roots: [] },
        copilot: { enabled: true, vscodeUserDirs: [], cliRoots: [] },
      }),
    roles: z
      .object({
        target: RoleConfig.default(roleDefault).describe('The agent that performs tasks under the skill.'),
        optimizer: RoleConfig.default(roleDefault).describe('Reflects on rollouts and proposes edits.'),
        judge: RoleConfig.default(roleDefault).describe('Grades rubric judges.'),
        miner: RoleConfig.default(roleDefault).describe('Optional: writes better task intents and judges.'),
      })
      .strict()
      .default({ target: roleDefault(), optimizer: roleDefault(), judge: roleDefault(), miner: roleDefault() }),
    backends: z
      .object({
        openai: z
          .object({
            baseURL: z.string().optional().describe('OpenAI-compatible base URL (Ollama, vLLM, DeepSeek...).'),
            apiKeyEnv: z.string().default('OPENAI_API_KEY').describe('Env var holding the API key.'),
            model: z.string().default('gpt-5-mini').describe('Default model.'),
            azureEndpoint: z.string().optional().describe('Azure OpenAI endpoint; enables the Azure client.'),
            azureApiVersion: z.string().optional().describe('Azure OpenAI api-version.'),
          })
          .strict()
          .default({ apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-5-mini' }),
        anthropic: z
          .object({
            baseURL: z.string().optional().describe('Anthropic API base URL.'),
            apiKeyEnv: z.string().default('ANTHROPIC_API_KEY').describe('Env var holding the API key.'),
            model: z.string().default('claude-sonnet-4-6').describe('Default model.'),
          })
          .strict()
          .default({ apiKeyEnv: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-4-6' }),
        concurrency: z.number().int().min(1).max(64).default(4).describe('Max concurrent calls per backend.'),
        timeoutMs: z.number().int().min(1000).default(180_000).describe('Per-call timeout.'),
        maxRetries: z.number().int().min(0).max(10).default(4).describe('Retries on 429/5xx/timeouts.'),
        sim: z
          .object({
            seed: z.number().int().default(7).describe('Seed of the simulated backend.'),
            latencyMs: z.number().int().min(0).default(0).describe('Simulated latency per call.'),
            harmfulEditRate: z.number().min(0).max(1).default(0.1).describe('Sim optimizer: share of proposed edits that hurt (exercises the gate).'),
            irrelevantEditRate: z.number().min(0).max(1).default(0.1).describe('Sim optimizer: share of proposed edits that do nothing.'),
            malformedJsonRate: z.number().min(0).max(1).default(0.05).describe('Sim optimizer: share of replies that are not valid JSON (exercises repair).'),
          })
          .strict()
          .default({ seed: 7, latencyMs: 0, harmfulEditRate: 0.1, irrelevantEditRate: 0.1, malformedJsonRate: 0.05 }),
      })
      .strict()
      .default(() => ({
        openai: { apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-5-mini' },
        anthropic: { apiKeyEnv: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-4-6' },
        concurrency: 4,
        timeoutMs: 180_000,
        maxRetries: 4,
        sim: { seed: 7, latencyMs: 0, harmfulEditRate: 0.1, irrelevantEditRate: 0.1, malformedJsonRate: 0.05 },
      })),
    schedule: z
      .object({
        cron: z.string().default('0 3 * * *').describe('When the night runs (cron expression).'),
        timezone: z.string().optional().describe('IANA timezone of the cron expression; local when unset.'),
        catchUp: z.boolean().default(true).describe('Run a missed night at start/wake when the last one is older than 24 h.'),
      })
      .strict()
      .default({ cron: '0 3 * * *', catchUp: true }),
    budget: z
      .object({
        maxUsd: z.number().min(0).default(2).describe('Max API dollars per night.'),
        maxTokens: z.number().int().min(0).default(2_000_000).describe('Max tokens per night.'),
        maxCalls: z.number().int().min(0).default(400).describe('Max model calls per night.'),
        maxTasks: z.number().int().min(1).default(60).describe('Max tasks used per night.'),
        deadline: z
          .string()
          .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
          .default('07:00')
          .describe('Local time the night must be done by (HH:MM).'),
      })
      .strict()
      .default({ maxUsd: 2, maxTokens: 2_000_000, maxCalls: 400, maxTasks: 60, deadline: '07:00' }),
    training: z
      .object({
        epochs: z.number().int().min(1).default(2).describe('Passes over the train split per night.'),
        batchSize: z.number().int().min(1).default(8).describe('Train tasks rolled out per step.'),
        lr: z.number().int().min(1).default(4).describe('Textual learning rate: max edits per step.'),
        lrSchedule: z.enum(['constant', 'linear', 'cosine', 'autonomous']).default('cosine').describe('How the edit budget changes over steps; autonomous = the optimizer chooses within bounds.'),
        minLr: z.number().int().min(1).default(1).describe('Smallest edit budget a schedule decays to.'),
        gateMetric: z.enum(['hard', 'soft', 'mixed']).default('soft').describe('Validation metric the gate compares: hard = all checks pass, soft = share of checks, mixed = both.'),
        noRegression: z.boolean().default(false).describe('Reject candidates that lower any validation task.'),
        margin: z.number().min(0).default(0).describe('Minimum validation improvement to accept.'),
        minValTasks: z.number().int().min(1).default(3).describe('Below this many validation tasks a night stages nothing.'),
        fullDocument: z.boolean().default(false).describe('Allow edits outside the learned region of hand-written skills.'),
        seed: z.number().int().default(1).describe('Seed for batch order and split hashing (reproducible runs).'),
        rescue: z.boolean().default(true).describe('When a multi-edit candidate is rejected, score its edits alone and keep those that help (gated).'),
        prune: z.boolean().default(true).describe('At the end of a run, drop accepted edits whose removal raises validation (gated).'),
        simplify: z.boolean().default(true).describe('At the end of a run, drop accepted edits with no measurable effect on validation.'),
        attributionMaxEdits: z
          .number()
          .int()
          .min(0)
          .default(12)
          .describe('Accepted edits scored leave-one-out at the end of a run (only these can be pruned or simplified); 0 = none.'),
      })
      .strict()
      .default({
        epochs: 2,
        batchSize: 8,
        lr: 4,
        lrSchedule: 'cosine',
        minLr: 1,
        gateMetric: 'soft',
        noRegression: false,
        margin: 0,
        minValTasks: 3,
        fullDocument: false,
        seed: 1,
        rescue: true,
        prune: true,
        simplify: true,
        attributionMaxEdits: 12,
      }),
    mining: z
      .object({
        minSessions: z.number().int().min(1).default(2).describe('A cluster is recurring when seen in at least this many sessions.'),
        threshold: z.number().min(0).max(1).default(0.5).describe('Similarity threshold for clustering prompts.'),
        useLlm: z.boolean().default(false).describe('Use the miner role to write intents and judges.'),
      })
      .strict()
      .default({ minSessions: 2, threshold: 0.5, useLlm: false }),
    harvest: z
      .object({
        maxLineBytes: z.number().int().min(1024).default(8 * 1024 * 1024).describe('Lines longer than this are skipped unread.'),
      })
      .strict()
      .default({ maxLineBytes: 8 * 1024 * 1024 }),
    replay: z
      .object({
        seedWorkspace: z.boolean().default(true).describe("Start each agent-CLI replay from the user's repository at the commit before the original session (read from git's object store; nothing is written back)."),
        seedMaxFiles: z.number().int().min(1).default(200_000).describe('A commit with more files than this is not checked out (empty workspace, said in the report).'),
        seedMaxMb: z.number().min(1).default(512).describe('A commit larger than this (MB of files) is not checked out.'),
        skillDelivery: z
          .enum(['native', 'system-prompt'])
          .default('native')
          .describe('native = the skill reaches the agent only through its own skills folder or instructions file; system-prompt = in our system prompt (backends without skills).'),
        isolateAgentHomes: z.boolean().default(true).describe("Run agent CLIs with a private config home per replay (no transcripts, counters or state in the user's agent); the login is carried over."),
        outcomeCommands: z
          .record(
            z.string(),
            z
              .object({
                command: z.string().min(1).describe('Shell command run in the workspace after the agent (e.g. `npm run lint`); exit code 0 passes.'),
                timeoutMs: z.number().int().min(1000).default(120_000).describe('The command is killed and fails after this long.'),
                weight: z.number().positive().default(1).describe('Weight of the outcome check among the task checks.'),
              })
              .strict(),
          )
          .default({})
          .describe('Opt-in outcome checks, by project root: the command runs in the replay workspace with no network and its exit code is scored.'),
      })
      .strict()
      .default({ seedWorkspace: true, seedMaxFiles: 200_000, seedMaxMb: 512, skillDelivery: 'native', isolateAgentHomes: true, outcomeCommands: {} }),
    autoApply: z.boolean().default(false).describe('Apply a proposal automatically when its gate passed and its test score did not drop.'),
    log: z
      .object({
        level: z.enum(['trace', 'debug', 'info', 'warn', 'error']).default('info').describe('Log level of the daemon and night logs.'),
        maxSizeMb: z.number().min(1).default(10).describe('Rotate a log file at this size.'),
        keep: z.number().int().min(1).default(5).describe('Rotated log files kept.'),
      })
      .strict()
      .default({ level: 'info', maxSizeMb: 10, keep: 5 }),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;

export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}

/** Formats a zod error as one line naming the key. */
export function describeConfigIssues(err: z.ZodError, source: string): string {
  return err.issues
    .map((i) => {
      const key = i.path.join('.') || '(root)';
      if (i.code === 'unrecognized_keys') {
        const base = i.path.length ? `${i.path.join('.')}.` : '';
        return `unknown key ${i.keys.map((k) => `"${base}${k}"`).join(', ')} in ${source}`;
      }
      return `"${key}" in ${source}: ${i.message}`;
    })
    .join('; ');
}

// ---- leaf keys and env overrides -------------------------------------------------------------

export interface LeafKey {
  path: string;
  envName: string;
  type: 'string' | 'number' | 'boolean' | 'array' | 'enum';
  description?: string;
  defaultValue: unknown;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  // zod 4: optional/default/nullable wrappers expose unwrap()/def.innerType
  for (let i = 0; i < 10; i++) {
    const def = (s as unknown as { def: { type: string; innerType?: z.ZodType } }).def;
    if ((def.type === 'default' || def.type === 'optional' || def.type === 'nullable' || def.type === 'prefault') && def.innerType) {
      s = def.innerType;
    } else break;
  }
  return s;
}

function envNameFor(p: string): string {
  return (
    'SKILLOPT_SLEEP_' +
    p
      .split('.')
      .map((seg) => seg.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
      .join('_')
  );
}

export function listLeafKeys(): LeafKey[] {
  const defaults = defaultConfig() as unknown as Record<string, unknown>;
  const out: LeafKey[] = [];
  const walk = (schema: z.ZodType, prefix: string[], def: unknown) => {
    const inner = unwrap(schema);
    const type = (inner as unknown as { def: { type: string } }).def.type;
    if (type === 'object') {
      const shape = (inner as z.ZodObject).shape as Record<string, z.ZodType>;
      for (const [k, v] of Object.entries(shape)) {
        if (k === '$schema') continue;
        walk(v, [...prefix, k], (def as Record<string, unknown> | undefined)?.[k]);
      }
      return;
    }
    const p = prefix.join('.');
    const leafType: LeafKey['type'] =
      type === 'number' ? 'number' : type === 'boolean' ? 'boolean' : type === 'array' ? 'array' : type === 'enum' ? 'enum' : 'string';
    out.push({ path: p, envName: envNameFor(p), type: leafType, description: schema.description ?? inner.description, defaultValue: def });
  };
  walk(ConfigSchema, [], defaults);
  return out;
}

function coerceEnv(raw: string, leaf: LeafKey): unknown {
  switch (leaf.type) {
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) {
        throw new SleepError('CONFIG_INVALID', `${leaf.envName}="${raw}" is not a number (key "${leaf.path}")`, {
          hint: `unset ${leaf.envName} or give it a number`,
        });
      }
      return n;
    }
    case 'boolean':
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      throw new SleepError('CONFIG_INVALID', `${leaf.envName}="${raw}" is not a boolean (key "${leaf.path}")`, {
        hint: 'use true or false',
      });
    case 'array':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

export function setPath(obj: Record<string, unknown>, p: string, value: unknown): void {
  const segs = p.split('.');
  let cur = obj;
  for (const seg of segs.slice(0, -1)) {
    if (typeof cur[seg] !== 'object' || cur[seg] === null) cur[seg] = {};
    cur = cur[seg] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]] = value;
}

export function getPath(obj: unknown, p: string): unknown {
  let cur: unknown = obj;
  for (const seg of p.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

// ---- loading and saving -------------------------------------------------------------------------

export interface LoadedConfig {
  config: Config;
  /** the raw file content (without env overrides), for `config set` */
  fileValues: Record<string, unknown>;
  fileExists: boolean;
  envOverrides: string[];
}

export function loadConfig(paths: SleepPaths, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let fileValues: Record<string, unknown> = {};
  let fileExists = false;
  let text: string | undefined;
  try {
    text = fs.readFileSync(paths.configFile, 'utf8');
    fileExists = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SleepError('CONFIG_INVALID', `cannot read ${paths.configFile}: ${(err as Error).message}`, {
        hint: 'check the file permissions',
      });
    }
  }
  if (text !== undefined && text.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('top level must be an object');
      fileValues = parsed as Record<string, unknown>;
    } catch (err) {
      throw new SleepError('CONFIG_INVALID', `${paths.configFile} is not valid JSON: ${(err as Error).message}`, {
        hint: `fix the file or move it away; \`skillopt-sleep config path\` shows where it is`,
      });
    }
  }
  const merged = structuredClone(fileValues);
  const envOverrides: string[] = [];
  for (const leaf of listLeafKeys()) {
    const raw = env[leaf.envName];
    if (raw === undefined) continue;
    setPath(merged, leaf.path, coerceEnv(raw, leaf));
    envOverrides.push(leaf.envName);
  }
  const result = ConfigSchema.safeParse(merged);
  if (!result.success) {
    throw new SleepError('CONFIG_INVALID', describeConfigIssues(result.error, fileExists ? paths.configFile : 'environment'), {
      hint: '`skillopt-sleep config show` lists every key; `config set KEY VALUE` validates as it writes',
    });
  }
  return { config: result.data, fileValues, fileExists, envOverrides };
}

/** Parses a CLI value for a key: JSON if it parses, else the raw string; arrays from commas. */
export function parseValueForKey(key: string, raw: string): unknown {
  const leaf = listLeafKeys().find((l) => l.path === key);
  if (!leaf) {
    const known = listLeafKeys().map((l) => l.path);
    const near = known.filter((k) => k.endsWith(key.split('.').pop() ?? '')).slice(0, 3);
    throw new SleepError('CONFIG_KEY_UNKNOWN', `unknown config key "${key}"`, {
      hint: near.length ? `did you mean ${near.join(', ')}?` : '`skillopt-sleep config show` lists every key',
      exitCode: 2,
    });
  }
  if (leaf.type === 'array') {
    if (raw.trim().startsWith('[')) return JSON.parse(raw);
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  if (leaf.type === 'number' || leaf.type === 'boolean') {
    try {
      return JSON.parse(raw);
    } catch {
      return raw; // let the schema name the error
    }
  }
  return raw;
}

/** Validates and writes one key into the config file atomically. */
export function setConfigValue(paths: SleepPaths, key: string, raw: string): Config {
  const { fileValues } = loadConfig(paths, {});
  const next = structuredClone(fileValues);
  setPath(next, key, parseValueForKey(key, raw));
  if (!next.$schema) next.$schema = schemaRef();
  const result = ConfigSchema.safeParse(next);
  if (!result.success) {
    throw new SleepError('CONFIG_INVALID', describeConfigIssues(result.error, 'the new value'), {
      hint: `\`skillopt-sleep config show\` shows the type of "${key}"`,
      exitCode: 2,
    });
  }
  ensurePrivateDir(paths.configDir);
  writeFileAtomic(paths.configFile, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
  return result.data;
}

/** The JSON Schema shipped with the package (schema/config.schema.json). */
export function schemaRef(): string {
  return configSchemaFile();
}

export function configSchemaFile(): string {
  // dist/src/core/config.js → <pkg>/schema/config.schema.json ; src/core/config.ts → same
  const here = path.dirname(new URL(import.meta.url).pathname);
  const up = here.includes(`${path.sep}dist${path.sep}`) ? '../../..' : '../..';
  return path.resolve(here, up, 'schema', 'config.schema.json');
}

export function configJsonSchema(): unknown {
  const schema = z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  schema.title = 'skillopt-sleep configuration';
  return schema;
}

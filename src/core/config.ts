/**
 * Loading the configuration: the file (JSON) under env overrides, validated by the schema
 * (config-schema.ts, re-exported here so callers import one module), plus `config set` and the
 * JSON Schema for editors. The env name of a key is `SKILLOPT_SLEEP_` + its path in SCREAMING_SNAKE
 * (`schedule.cron` → `SKILLOPT_SLEEP_SCHEDULE_CRON`). Arrays in env are comma-separated; booleans are
 * true/false/1/0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { SleepError } from './errors.js';
import { ensurePrivateDir, writeFileAtomic } from './fsutil.js';
import type { SleepPaths } from './paths.js';
import { ConfigSchema, defaultConfig, type BackendName, type Config } from './config-schema.js';
import { packageRoot } from './version.js';

export { BackendName, ConfigSchema, defaultConfig, type Config } from './config-schema.js';

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

/**
 * `--backend NAME` on `night` and `train`: every role uses that backend. A role that already named
 * it keeps its model; a role switched to another backend drops its model, which named a model of
 * the old backend (the new one uses its default).
 */
export function withBackendForEveryRole(config: Config, backend: BackendName | undefined): Config {
  if (!backend) return config;
  const roles = Object.fromEntries(
    Object.entries(config.roles).map(([role, r]) => [role, r.backend === backend ? r : { backend }]),
  ) as Config['roles'];
  return { ...config, roles };
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
  /** the file's text as read and validated (undefined: no file), for the validated copy (config-snapshot.ts) */
  fileText?: string;
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
  return { config: result.data, fileValues, fileExists, fileText: text, envOverrides };
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
  // <pkg>/schema/config.schema.json from src/, dist/ and dist-bench/ alike (the package root is found, not counted)
  const root = packageRoot();
  return root ? path.join(root, 'schema', 'config.schema.json') : path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..', 'schema', 'config.schema.json');
}

export function configJsonSchema(): unknown {
  const schema = z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  schema.title = 'skillopt-sleep configuration';
  return schema;
}

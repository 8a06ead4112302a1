/**
 * Which backend serves each role. A role's configured backend wins; `auto` takes the first
 * available of: the agent CLIs on PATH (in the agent registry's order, adapters/index.ts) →
 * ANTHROPIC_API_KEY → OPENAI_API_KEY (or a configured OpenAI-compatible baseURL). `sim` is never picked by `auto`
 * unless the caller explicitly allows it (demo, benchmarks) — and then it says so.
 */
import type { BackendName, Config } from '../core/config.js';
import { Role } from '../core/protocol.js';
import { execAdapters } from '../../adapters/index.js';
import { findOnPath } from './spawn.js';

/** A backend that can serve a call: every configurable name but `auto`. */
export type ConcreteBackend = Exclude<BackendName, 'auto'>;

export interface BackendAvailability {
  name: ConcreteBackend;
  available: boolean;
  /** binary path, key variable or base URL that makes it available — or why not */
  detail: string;
  path?: string;
}

export interface RoleChoice {
  role: Role;
  backend: ConcreteBackend | null;
  model?: string;
  reason: string;
}

export interface Detection {
  available: BackendAvailability[];
  roles: Record<Role, RoleChoice>;
  /** the target role's choice, the one the night depends on (null = nothing usable) */
  chosen: { name: ConcreteBackend; detail: string } | null;
}

export const AUTO_ORDER: ConcreteBackend[] = [...execAdapters().map((e) => e.backend as ConcreteBackend), 'anthropic', 'openai'];

export function probeBackends(config: Config, env: NodeJS.ProcessEnv = process.env): BackendAvailability[] {
  const out: BackendAvailability[] = [];
  for (const exec of execAdapters()) {
    const name = exec.backend as ConcreteBackend;
    const p = findOnPath(exec.binary, env);
    out.push(p ? { name, available: true, detail: p, path: p } : { name, available: false, detail: `\`${exec.binary}\` not on PATH${exec.installHint ? ` (${exec.installHint})` : ''}` });
  }
  const a = config.backends.anthropic;
  out.push(
    env[a.apiKeyEnv]
      ? { name: 'anthropic', available: true, detail: `${a.apiKeyEnv} is set${a.baseURL ? ` (${a.baseURL})` : ''}` }
      : { name: 'anthropic', available: false, detail: `${a.apiKeyEnv} is not set` },
  );
  const o = config.backends.openai;
  out.push(
    env[o.apiKeyEnv]
      ? { name: 'openai', available: true, detail: `${o.apiKeyEnv} is set${o.azureEndpoint ? ` (Azure ${o.azureEndpoint})` : o.baseURL ? ` (${o.baseURL})` : ''}` }
      : o.baseURL
        ? { name: 'openai', available: true, detail: `baseURL ${o.baseURL} (no key: local server)` }
        : { name: 'openai', available: false, detail: `${o.apiKeyEnv} is not set` },
  );
  out.push({ name: 'sim', available: true, detail: 'simulated (demo/tests only; never chosen automatically)' });
  return out;
}

export function defaultModelFor(config: Config, backend: ConcreteBackend): string | undefined {
  if (backend === 'anthropic') return config.backends.anthropic.model;
  if (backend === 'openai') return config.backends.openai.model;
  return undefined; // CLIs use their own default model; sim names itself
}

export function detectBackends(config: Config, env: NodeJS.ProcessEnv = process.env, opts: { simAllowed?: boolean } = {}): Detection {
  const available = probeBackends(config, env);
  const auto = AUTO_ORDER.map((n) => available.find((a) => a.name === n)).find((a) => a?.available);
  const roles = {} as Record<Role, RoleChoice>;
  for (const role of Role.options) {
    const rc = config.roles[role];
    let choice: RoleChoice;
    if (rc.backend !== 'auto') {
      const a = available.find((x) => x.name === rc.backend);
      choice = { role, backend: rc.backend, reason: a?.available ? `configured (${a.detail})` : `configured, but ${a?.detail ?? 'unavailable'}` };
    } else if (auto) {
      choice = { role, backend: auto.name, reason: `auto-detected: ${auto.detail}` };
    } else if (opts.simAllowed) {
      choice = { role, backend: 'sim', reason: 'no real backend found; using the simulated backend (allowed for this run)' };
    } else {
      choice = { role, backend: null, reason: `no backend found: install one of the ${execAdapters().map((e) => e.binary).join(', ')} CLIs, or set ANTHROPIC_API_KEY / OPENAI_API_KEY` };
    }
    if (choice.backend) choice.model = rc.model ?? defaultModelFor(config, choice.backend);
    roles[role] = choice;
  }
  const t = roles.target;
  return { available, roles, chosen: t.backend ? { name: t.backend, detail: t.reason } : null };
}

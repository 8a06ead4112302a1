/**
 * Installing and removing the opt-in morning nudge: a session-start hook in each agent's own
 * user-level hooks file (the agents and their files come from the registry's `sessionStartHook`).
 *
 * The user's file is written atomically, and its exact bytes before our edit are kept in the
 * config folder (`hooks/<agent>.orig`, with a record of what we wrote). `remove` puts those bytes
 * back when the file is still as we left it, so the file is byte-for-byte what it was (or gone
 * again, when we created it). When the user changed it since, only our entry is taken out, and
 * the file as it was before that is kept beside the record.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentId } from '../core/records.js';
import type { SleepPaths } from '../core/paths.js';
import { SleepError } from '../core/errors.js';
import { ensurePrivateDir, sha256, writeFileAtomic } from '../core/fsutil.js';
import { AGENTS, rootEnvFrom, type AgentRecord } from '../../adapters/index.js';
import { HOOK_TAG, hasSessionHook, withSessionHook, withoutSessionHook, type SessionStartHookSpec } from '../../adapters/kit/session-hook.js';

export interface HookRecord {
  agent: AgentId;
  file: string;
  /** the file existed before install (else remove deletes it) */
  existed: boolean;
  /** sha256 of the bytes install wrote */
  installedHash: string;
  installedAt: string;
}

export type HookAgent = AgentRecord & { sessionStartHook: SessionStartHookSpec };

/** The agents that have a session-start hook the user sees. */
export function hookAgents(only?: AgentId): HookAgent[] {
  const all = AGENTS.filter((a): a is HookAgent => !!a.sessionStartHook);
  if (!only) return all;
  const hit = all.find((a) => a.id === only);
  if (!hit) throw new SleepError('INVALID_INPUT', `${only} has no session-start hook whose output you would see`, { hint: `hooks exist for: ${all.map((a) => a.id).join(', ')}` });
  return [hit];
}

export function hookFile(agent: HookAgent, env: NodeJS.ProcessEnv): string {
  return agent.sessionStartHook.file(rootEnvFrom(env).homedir, env);
}

function recordDir(paths: SleepPaths): string {
  return path.join(paths.configDir, 'hooks');
}
const recordPath = (paths: SleepPaths, agent: AgentId) => path.join(recordDir(paths), `${agent}.json`);
const origPath = (paths: SleepPaths, agent: AgentId) => path.join(recordDir(paths), `${agent}.orig`);

function readRecord(paths: SleepPaths, agent: AgentId): HookRecord | null {
  try {
    return JSON.parse(fs.readFileSync(recordPath(paths, agent), 'utf8')) as HookRecord;
  } catch {
    return null;
  }
}

function parseHooksFile(file: string, bytes: Buffer | null): unknown {
  if (bytes === null || !bytes.toString('utf8').trim()) return {};
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new SleepError('INVALID_INPUT', `${file} is not valid JSON (${(err as Error).message}); not changed`, { hint: 'fix the file, then run `skillopt-sleep hooks install` again' });
  }
}

/** The indentation the file already uses (two spaces when it has none), so our edit keeps its style. */
function indentOf(text: string): string | number {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? m[1]! : 2;
}

function readBytes(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The command the hook runs: this very CLI by absolute path (a hook's PATH may not have ours). */
export function nudgeCommand(agent: AgentId, cli: string, node = process.execPath): string {
  const q = (s: string) => `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
  return `${q(node)} ${q(cli)} hooks nudge --agent ${agent} ${HOOK_TAG}`;
}

export interface HookInstallResult {
  agent: AgentId;
  file: string;
  /** skipped: the agent's home folder does not exist (it is not used on this machine) */
  status: 'installed' | 'already' | 'skipped';
  caveat: string | null;
}

export function installHook(paths: SleepPaths, agent: HookAgent, env: NodeJS.ProcessEnv, cli: string, opts: { evenIfUnused?: boolean } = {}): HookInstallResult {
  const file = hookFile(agent, env);
  const spec = agent.sessionStartHook;
  // an agent that was never used here gets no settings file of ours (unless asked for by name)
  if (!opts.evenIfUnused && !fs.existsSync(path.dirname(file))) return { agent: agent.id, file, status: 'skipped', caveat: null };
  const before = readBytes(file);
  const doc = parseHooksFile(file, before);
  const caveat = spec.caveat ?? null;
  if (hasSessionHook(doc, spec)) return { agent: agent.id, file, status: 'already', caveat };
  const text = JSON.stringify(withSessionHook(doc, spec, nudgeCommand(agent.id, cli)), null, before ? indentOf(before.toString('utf8')) : 2) + '\n';
  ensurePrivateDir(recordDir(paths));
  // the backup first: a crash between the two writes leaves the user's file untouched
  if (before) writeFileAtomic(origPath(paths, agent.id), before, { mode: 0o600 });
  else fs.rmSync(origPath(paths, agent.id), { force: true });
  const rec: HookRecord = { agent: agent.id, file, existed: !!before, installedHash: sha256(text), installedAt: new Date().toISOString() };
  writeFileAtomic(recordPath(paths, agent.id), JSON.stringify(rec, null, 2) + '\n', { mode: 0o600 });
  writeFileAtomic(file, text);
  return { agent: agent.id, file, status: 'installed', caveat };
}

export interface HookRemoveResult {
  agent: AgentId;
  file: string;
  /** restored: the exact bytes from before install; deleted: we had created the file; edited: only our entry taken out */
  status: 'restored' | 'deleted' | 'edited' | 'absent';
  /** where the file as it was before an `edited` removal is kept */
  keptCopy: string | null;
}

export function removeHook(paths: SleepPaths, agent: HookAgent, env: NodeJS.ProcessEnv): HookRemoveResult {
  const rec = readRecord(paths, agent.id);
  const file = rec?.file ?? hookFile(agent, env);
  const current = readBytes(file);
  const spec = agent.sessionStartHook;
  const done = (status: HookRemoveResult['status'], keptCopy: string | null = null): HookRemoveResult => {
    fs.rmSync(recordPath(paths, agent.id), { force: true });
    fs.rmSync(origPath(paths, agent.id), { force: true });
    return { agent: agent.id, file, status, keptCopy };
  };
  if (current && rec && sha256(current) === rec.installedHash) {
    // untouched since install: put back exactly what was there
    if (!rec.existed) {
      fs.rmSync(file, { force: true });
      return done('deleted');
    }
    const orig = readBytes(origPath(paths, agent.id));
    if (orig) {
      writeFileAtomic(file, orig);
      return done('restored');
    }
  }
  if (!current) return done('absent');
  const doc = parseHooksFile(file, current);
  if (!hasSessionHook(doc, spec)) return done('absent');
  // changed since install (or installed before records were kept): take out only our entry
  ensurePrivateDir(recordDir(paths));
  const kept = path.join(recordDir(paths), `${agent.id}.before-remove-${Date.now()}`);
  writeFileAtomic(kept, current, { mode: 0o600 });
  writeFileAtomic(file, JSON.stringify(withoutSessionHook(doc, spec), null, indentOf(current.toString('utf8'))) + '\n');
  fs.rmSync(recordPath(paths, agent.id), { force: true });
  fs.rmSync(origPath(paths, agent.id), { force: true });
  return { agent: agent.id, file, status: 'edited', keptCopy: kept };
}

export interface HookState {
  agent: AgentId;
  file: string;
  installed: boolean;
  caveat: string | null;
}

export function hookStates(env: NodeJS.ProcessEnv): HookState[] {
  return hookAgents().map((a) => {
    const file = hookFile(a, env);
    let installed = false;
    try {
      installed = hasSessionHook(parseHooksFile(file, readBytes(file)), a.sessionStartHook);
    } catch {
      installed = false;
    }
    return { agent: a.id, file, installed, caveat: a.sessionStartHook.caveat ?? null };
  });
}

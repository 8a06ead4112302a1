/**
 * Saying when an agent went quiet because its users were moved to another agent of the same vendor
 * (Gemini CLI → Antigravity CLI: the successor's record names the agent it `succeeds`), and which
 * stores of an agent hold conversations that cannot be read. `status`, `doctor` and the night
 * report show these, so a person whose harvest stopped in June is told why and where to look.
 *
 * An agent went quiet when the store holds its sessions, none newer than QUIET_DAYS, while its
 * successor is installed (its home folder exists) or has sessions newer than the old one's last.
 * The notice names the successor's transcript folder (where its conversations are harvested now).
 */
import type { Config } from '../core/config.js';
import type { AgentId } from '../core/records.js';
import { isDirectory } from '../core/fsutil.js';
import type { Db } from '../store/db.js';
import { sessionSpanByAgent } from '../store/repos/sessions.js';
import { AGENTS, getAgent, rootEnvFrom } from '../../adapters/index.js';
import { agentEnabled } from '../../adapters/agent.js';

/** A week without a transcript, while the successor is there, is "quiet" (a holiday is shorter than the move). */
export const QUIET_DAYS = 7;
const DAY_MS = 86_400_000;

export interface AgentNotice {
  kind: 'went-quiet' | 'unreadable';
  /** the agent the notice is about: the one that went quiet, or whose store cannot be read */
  agent: AgentId;
  /** went-quiet: the agent that replaced it */
  movedTo?: AgentId;
  /** went-quiet: its last transcript's time (ISO 8601 UTC) */
  lastSeenAt?: string;
  /** went-quiet: where the successor's conversations are (its transcript folder, else its home) */
  location?: string;
  detail: string;
  fix?: string;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The agents that went quiet while the agent that succeeds them appeared. */
export function agentMoves(db: Db, config: Config, env: NodeJS.ProcessEnv, now = Date.now()): AgentNotice[] {
  const span = sessionSpanByAgent(db);
  const rootEnv = rootEnvFrom(env);
  const out: AgentNotice[] = [];
  for (const to of AGENTS) {
    if (!to.succeeds || !agentEnabled(config, to)) continue;
    const from = getAgent(to.succeeds.agent);
    const last = span[from.id]?.last ?? null;
    // never harvested, or still active: nothing went quiet
    if (last === null || now - last < QUIET_DAYS * DAY_MS) continue;
    const home = to.homes({ env, home: rootEnv.homedir, config }).find(isDirectory) ?? null;
    const newer = span[to.id];
    const appeared = newer?.last != null && newer.last > last;
    if (!home && !appeared) continue;
    const folder = to.harvest.roots(config, rootEnv).find((r) => r.exists)?.path ?? home ?? to.harvest.roots(config, rootEnv)[0]?.path ?? '';
    const days = Math.floor((now - last) / DAY_MS);
    const harvested = newer?.sessions ? ` (${newer.sessions} conversation${newer.sessions === 1 ? '' : 's'} harvested so far)` : ' (none of its conversations harvested yet)';
    out.push({
      kind: 'went-quiet',
      agent: from.id,
      movedTo: to.id,
      lastSeenAt: new Date(last).toISOString(),
      location: folder,
      detail: `${from.displayName} went quiet: its last transcript is from ${day(last)} (${days} days ago), and ${to.displayName} appeared at ${folder}${harvested}. ${to.succeeds.why}.`,
      fix: `nothing to do: ${to.displayName} is harvested from ${folder}; \`skillopt-sleep doctor\` says what of it cannot be read`,
    });
  }
  return out;
}

/** The stores, per agent, whose conversations exist but cannot be read (each record's `unreadableStores`). */
export function unreadableStores(config: Config, env: NodeJS.ProcessEnv): AgentNotice[] {
  const rootEnv = rootEnvFrom(env);
  const out: AgentNotice[] = [];
  for (const a of AGENTS) {
    if (!agentEnabled(config, a) || !a.unreadableStores) continue;
    for (const n of a.unreadableStores(config, rootEnv)) out.push({ kind: 'unreadable', agent: a.id, detail: n.detail, ...(n.fix ? { fix: n.fix } : {}) });
  }
  return out;
}

/** Everything `status` and the night report say about agents beyond their transcript folders. */
export function agentNotices(db: Db, config: Config, env: NodeJS.ProcessEnv, now = Date.now()): AgentNotice[] {
  return [...agentMoves(db, config, env, now), ...unreadableStores(config, env)];
}

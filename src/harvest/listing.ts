/**
 * Which files a harvest pass looks at: the daemon's changed paths as given, or every transcript
 * under the enabled agents' roots. A long-lived connection (the daemon's) keeps its listings
 * between passes (./dir-cache.ts): a root none of whose directories changed is not walked again,
 * and when no root changed the whole previous listing is reused.
 */
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { Config } from '../core/config.js';
import type { AgentId } from '../core/records.js';
import { agentOfFile, getAdapter, HARVEST_ADAPTERS, rootEnvFrom } from '../../adapters/index.js';
import { DirListingCache } from './dir-cache.js';
import type { FileStamp } from './tailer.js';

export interface Candidate {
  path: string;
  agent: AgentId;
}

/** One listing cache per connection: the daemon's connection lives as long as its process. */
const listingCaches = new WeakMap<Db, DirListingCache>();

export function listingCacheFor(db: Db): DirListingCache {
  let c = listingCaches.get(db);
  if (!c) {
    c = new DirListingCache();
    listingCaches.set(db, c);
  }
  return c;
}

export interface Listing {
  candidates: Candidate[];
  /** the candidates' paths, in the same order */
  paths: string[];
  listed: ReadonlySet<string>;
  /** folders under the roots that exist but could not be listed this time (skipped; the harvest notes them) */
  unreadable?: string[];
}

/** A full scan's listing, kept with the per-root file lists it was built from (see listCandidates). */
const lastFullListings = new WeakMap<Db, { parts: Array<readonly string[]>; listing: Listing }>();

function listingOf(parts: Array<{ agent: AgentId; files: readonly string[] }>): Listing {
  const candidates: Candidate[] = [];
  const listed = new Set<string>();
  for (const { agent, files } of parts) {
    for (const p of files) {
      if (listed.has(p)) continue; // a file under two roots (one folder reached two ways) is one file
      listed.add(p);
      candidates.push({ path: p, agent });
    }
  }
  return { candidates, paths: candidates.map((c) => c.path), listed };
}

export function listCandidates(db: Db, config: Config, agents: AgentId[], env: NodeJS.ProcessEnv, files?: string[]): Listing {
  if (files) {
    return listingOf(
      files.flatMap((f) => {
        const p = path.resolve(f);
        const agent = agentOfFile(p);
        return agent && agents.includes(agent) ? [{ agent, files: [p] }] : [];
      }),
    );
  }
  const cache = listingCacheFor(db);
  const rootEnv = rootEnvFrom(env);
  const parts: Array<{ agent: AgentId; files: readonly string[] }> = [];
  for (const a of HARVEST_ADAPTERS) {
    if (!agents.includes(a.id)) continue;
    for (const root of a.roots(config, rootEnv)) {
      if (!root.exists) continue;
      // a root none of whose directories changed since the last pass is not walked again; a
      // database's sessions change without any directory changing: it is asked every pass
      const files = a.store ? a.listFiles(root) : cache.listRoot(`${a.id}\0${root.kind}\0${root.path}`, (read) => a.listFiles(root, read));
      parts.push({ agent: a.id, files });
    }
  }
  const unreadable = cache.takeUnreadable();
  // every root served from the cache (the same arrays as last time): the last listing still holds
  const last = lastFullListings.get(db);
  if (last && last.parts.length === parts.length && parts.every((p, i) => p.files === last.parts[i])) return unreadable.length ? { ...last.listing, unreadable } : last.listing;
  const listing = listingOf(parts);
  lastFullListings.set(db, { parts: parts.map((p) => p.files), listing });
  return unreadable.length ? { ...listing, unreadable } : listing;
}

/**
 * The stamps of listed paths that live in an adapter's database (adapters/types.ts RecordStore),
 * by their index in `candidates`: one look at each store instead of a `stat` per path.
 */
export function storeStamps(candidates: readonly Candidate[]): Map<number, FileStamp | null> {
  const out = new Map<number, FileStamp | null>();
  const byAgent = new Map<AgentId, number[]>();
  candidates.forEach((c, i) => {
    if (!getAdapter(c.agent).store) return;
    const list = byAgent.get(c.agent) ?? [];
    list.push(i);
    byAgent.set(c.agent, list);
  });
  for (const [agent, indexes] of byAgent) {
    const stamps = getAdapter(agent).store!.stampAll(indexes.map((i) => candidates[i].path));
    indexes.forEach((i, k) => out.set(i, stamps[k] ?? null));
  }
  return out;
}

/**
 * Seeded workspaces kept between replays of the same commit. A night replays each task several
 * times (samples, candidates, val and test splits), and most tasks of a project start from the same
 * commit: checking a 50 000-file repository out for every replay writes 50 000 files each time
 * (seconds of kernel time, more under load). A workspace an agent has finished with is parked
 * instead of deleted, and the next replay of that commit takes it after `resetSeededWorkspace` has
 * put it back to exactly the commit (only the files the agent touched are rewritten) and proved
 * it clean. Its private agent home is deleted at once; the next run gets a fresh one, so nothing
 * of one replay reaches the next.
 *
 * Parked workspaces are removed when unused for `idleMs`, when the process exits, and — if a
 * process died holding some — by the next pool on the same folder (their marker names a dead pid).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_SEED_LIMITS,
  WORKSPACE_MARKER,
  checkoutSeed,
  createWorkspace,
  remarkWorkspace,
  removeAgentHome,
  removeWorkspace,
  resetSeededWorkspace,
  resolveSeed,
  type ResolvedSeed,
  type SeedLimits,
  type SeedReport,
  type WorkspaceSeed,
} from './workspace.js';

export interface SeededLease {
  dir: string;
  seed: SeedReport;
  /** set when the workspace holds a commit and may be parked after the run */
  resolved?: ResolvedSeed;
}

export interface PoolOptions {
  /** parked workspaces kept for one commit (the replay concurrency is a good value) */
  perCommit: number;
  /** parked workspaces kept in all */
  total: number;
  /** a parked workspace unused this long is deleted */
  idleMs: number;
}

export const DEFAULT_POOL_OPTIONS: PoolOptions = { perCommit: 4, total: 8, idleMs: 120_000 };

interface Parked {
  dir: string;
  resolved: ResolvedSeed;
  timer: NodeJS.Timeout;
}

export class WorkspacePool {
  private readonly parked = new Map<string, Parked[]>();
  private parkedCount = 0;
  /** workspaces that are seeded fresh vs reused, for the bench and the tests */
  readonly stats = { cold: 0, reused: 0, resetFailed: 0 };

  constructor(
    private readonly workspacesDir: string,
    private readonly opts: PoolOptions = DEFAULT_POOL_OPTIONS,
  ) {
    sweepOrphans(workspacesDir);
    process.once('exit', () => this.drain());
  }

  /** A marked workspace holding the seed's commit (reused when one is parked), or empty with the reason. */
  async acquire(seed: WorkspaceSeed, info: Record<string, unknown>, limits: SeedLimits = DEFAULT_SEED_LIMITS): Promise<SeededLease> {
    const started = Date.now();
    const resolved = await resolveSeed(seed, limits);
    if ('error' in resolved) return { dir: createWorkspace(this.workspacesDir, info), seed: { seeded: false, reason: resolved.error, ms: Date.now() - started } };
    const key = keyOf(resolved);
    for (let p = this.take(key); p; p = this.take(key)) {
      const report = await resetSeededWorkspace(p.dir, resolved, limits);
      if (report) {
        remarkWorkspace(p.dir, info);
        this.stats.reused++;
        return { dir: p.dir, seed: { ...report, ms: Date.now() - started }, resolved };
      }
      // the agent left something we cannot undo (an unremovable file…): never reuse it
      this.stats.resetFailed++;
      removeWorkspace(p.dir);
    }
    const dir = createWorkspace(this.workspacesDir, info);
    const report = await checkoutSeed(dir, resolved, limits, started);
    this.stats.cold++;
    return { dir, seed: report, ...(report.seeded ? { resolved } : {}) };
  }

  /** After the run: a seeded workspace is parked for the next replay of its commit, anything else deleted. */
  release(lease: SeededLease): void {
    removeAgentHome(lease.dir);
    if (!lease.resolved || !fs.existsSync(path.join(lease.dir, WORKSPACE_MARKER))) {
      removeWorkspace(lease.dir);
      return;
    }
    const key = keyOf(lease.resolved);
    const list = this.parked.get(key) ?? [];
    if (list.length >= this.opts.perCommit) {
      removeWorkspace(lease.dir);
      return;
    }
    if (this.parkedCount >= this.opts.total) this.evictOldest();
    const entry: Parked = { dir: lease.dir, resolved: lease.resolved, timer: setTimeout(() => this.expire(key, entry), this.opts.idleMs) };
    entry.timer.unref();
    list.push(entry);
    this.parked.set(key, list);
    this.parkedCount++;
  }

  /** Deletes every parked workspace (at exit, or when a caller is done with replays). */
  drain(): void {
    for (const list of this.parked.values()) {
      for (const p of list) {
        clearTimeout(p.timer);
        removeWorkspace(p.dir);
      }
    }
    this.parked.clear();
    this.parkedCount = 0;
  }

  get parkedWorkspaces(): number {
    return this.parkedCount;
  }

  private take(key: string): Parked | undefined {
    const list = this.parked.get(key);
    const p = list?.pop();
    if (!p) return undefined;
    clearTimeout(p.timer);
    this.parkedCount--;
    if (list!.length === 0) this.parked.delete(key);
    return p;
  }

  private expire(key: string, entry: Parked): void {
    const list = this.parked.get(key);
    const i = list?.indexOf(entry) ?? -1;
    if (!list || i < 0) return;
    list.splice(i, 1);
    if (list.length === 0) this.parked.delete(key);
    this.parkedCount--;
    removeWorkspace(entry.dir);
  }

  private evictOldest(): void {
    const first = this.parked.entries().next().value as [string, Parked[]] | undefined;
    if (!first) return;
    const [key, list] = first;
    const p = list.shift()!;
    clearTimeout(p.timer);
    if (list.length === 0) this.parked.delete(key);
    this.parkedCount--;
    removeWorkspace(p.dir);
  }
}

function keyOf(r: ResolvedSeed): string {
  return `${r.gitDir}\0${r.commit}`;
}

const POOLS = new Map<string, WorkspacePool>();

/** The one pool of a workspaces folder in this process (every agent-CLI backend shares it). */
export function workspacePool(workspacesDir: string): WorkspacePool {
  const dir = path.resolve(workspacesDir);
  let pool = POOLS.get(dir);
  if (!pool) {
    pool = new WorkspacePool(dir);
    POOLS.set(dir, pool);
  }
  return pool;
}

/** Deletes the parked workspaces of every pool: a night's replays are over. */
export function drainWorkspacePools(): void {
  for (const pool of POOLS.values()) pool.drain();
}

/** Workspaces whose marker names a process that no longer runs: left by a crash, deleted. */
export function sweepOrphans(workspacesDir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(workspacesDir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!/^ws-[^.]+$/.test(name)) continue;
    const dir = path.join(workspacesDir, name);
    let pid: unknown;
    try {
      pid = (JSON.parse(fs.readFileSync(path.join(dir, WORKSPACE_MARKER), 'utf8')) as { pid?: unknown }).pid;
    } catch {
      continue; // not ours, or being written: leave it
    }
    if (typeof pid !== 'number' || pid === process.pid || isAlive(pid)) continue;
    removeWorkspace(dir);
    removed++;
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

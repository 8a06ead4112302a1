/**
 * TEST DOUBLE of the `TeamServer` interface (src/team/contract.ts), in memory, for the team night's
 * own tests (tests/unit/team-night.test.ts): it keeps the contract's promises (one live lease per
 * repository, fencing tokens, a stale renewal fails) so the night's logic can be tested without a
 * server. It is NOT the product's server and stands in for no PostgreSQL test: the real server
 * (src/store/team/) has its own tests against a throwaway PostgreSQL cluster.
 */
import crypto from 'node:crypto';
import type { NightLease, PooledTask, RepoKey, TeamNightSummary, TeamServer } from '../../src/team/contract.js';

export class InMemoryTeamServerDouble implements TeamServer {
  readonly tasks: PooledTask[] = [];
  readonly leases = new Map<RepoKey, NightLease>();
  readonly checkpoints = new Map<RepoKey, unknown>();
  readonly nights: TeamNightSummary[] = [];
  /** every checkpoint saved, in order (tests read how often the night checkpointed) */
  readonly checkpointLog: Array<{ repoKey: RepoKey; state: unknown }> = [];

  constructor(private readonly now: () => number = () => Date.now()) {}

  push(tasks: PooledTask[]): void {
    for (const t of tasks) if (!this.tasks.some((x) => x.contentHash === t.contentHash)) this.tasks.push(t);
  }

  async pooledTasks(repoKey: RepoKey): Promise<PooledTask[]> {
    return this.tasks.filter((t) => t.repoKey === repoKey).map((t) => structuredClone(t));
  }

  async acquireNight(repoKey: RepoKey, holder: string, ttlMs: number): Promise<NightLease | null> {
    const cur = this.leases.get(repoKey);
    if (cur && cur.expiresAt > this.now()) return null;
    const lease: NightLease = { repoKey, holder, token: crypto.randomUUID(), expiresAt: this.now() + ttlMs };
    this.leases.set(repoKey, lease);
    return { ...lease };
  }

  private live(lease: NightLease): boolean {
    const cur = this.leases.get(lease.repoKey);
    return !!cur && cur.token === lease.token && cur.expiresAt > this.now();
  }

  async renewNight(lease: NightLease, ttlMs: number): Promise<boolean> {
    if (!this.live(lease)) return false;
    this.leases.get(lease.repoKey)!.expiresAt = this.now() + ttlMs;
    return true;
  }

  async releaseNight(lease: NightLease): Promise<void> {
    if (this.leases.get(lease.repoKey)?.token === lease.token) this.leases.delete(lease.repoKey);
  }

  async saveCheckpoint(lease: NightLease, state: unknown): Promise<void> {
    if (!this.live(lease)) throw new Error('stale lease: checkpoint refused');
    const copy = structuredClone(state);
    this.checkpoints.set(lease.repoKey, copy);
    this.checkpointLog.push({ repoKey: lease.repoKey, state: copy });
  }

  async loadCheckpoint(repoKey: RepoKey): Promise<unknown | null> {
    const c = this.checkpoints.get(repoKey);
    return c === undefined ? null : structuredClone(c);
  }

  async recordNight(lease: NightLease, summary: TeamNightSummary): Promise<void> {
    if (this.leases.get(lease.repoKey)?.token !== lease.token) throw new Error('stale lease: summary refused');
    this.nights.push(summary);
  }
}

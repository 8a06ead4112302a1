/**
 * The daemon's seam to the rest of the pipeline: adapter roots, the incremental harvester, the
 * miner, and backend detection. Everything the daemon needs from other modules goes through this
 * one interface, so tests and the benchmark can inject their own and the daemon never reaches
 * into another module's internals.
 */
import type { Config } from '../core/config.js';
import type { Db } from '../store/db.js';

export interface WatchRoot {
  agent: string;
  path: string;
  exists: boolean;
  kind: string;
}

export interface HarvestOutcome {
  newSessionIds: string[];
  /** files read (changed) in this pass */
  filesRead: number;
  /** sessions created or updated in this pass */
  sessionsTouched: number;
  /** every file was read from its start (the first full pass after an upgrade that reads more) */
  reread?: boolean;
}

export interface BackendChoice {
  /** backend nights will use, or null when none is usable */
  name: string | null;
  detail: string;
}

export interface DaemonDeps {
  discoverRoots(config: Config, env: NodeJS.ProcessEnv): WatchRoot[];
  isTranscriptFile(agent: string, file: string): boolean;
  harvest(db: Db, config: Config, opts: { files?: string[]; signal?: AbortSignal }): Promise<HarvestOutcome>;
  mine(db: Db, config: Config, opts: { signal?: AbortSignal }): Promise<void>;
  /**
   * Team mode (issue 42): after each mining pass, push the opted-in repositories' tasks to the team's
   * server. One line per repository pushed ("ok: …" or the failure), [] when this machine joined no team.
   */
  teamPush?(db: Db, config: Config): Promise<Array<{ ok: boolean; line: string }>>;
  detectBackend(config: Config, env: NodeJS.ProcessEnv): Promise<BackendChoice>;
}

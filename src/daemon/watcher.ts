/**
 * Watches every agent transcript root with chokidar — including roots that do not exist yet.
 *
 * Existing roots go to one recursive watcher of directories (native fs events, no polling, no
 * awaitWriteFinish, ignoreInitial: the daemon runs one incremental harvest at start instead of
 * 10,000 "add" events); file changes arrive as the directories' raw events.
 * A missing root is handled by watching its nearest existing ancestor one level deep; when the
 * next path component appears we move down, and when the root itself appears we attach it and ask
 * for a rescan. A root that is deleted goes back to that state.
 */
import fs from 'node:fs';
import path from 'node:path';
import chokidar, { type FSWatcher } from 'chokidar';
import type { Stats } from 'node:fs';
import type { Logger } from '../core/logger.js';
import { isDirectory } from '../core/fsutil.js';
import type { WatchRoot } from './deps.js';

export interface WatchedRootStatus extends WatchRoot {
  /** 'root' = watched directly; 'ancestor' = waiting for it to appear, watching `via` */
  mode: 'root' | 'ancestor';
  via: string;
}

export interface WatcherOptions {
  roots: WatchRoot[];
  isTranscriptFile(agent: string, file: string): boolean;
  /** directories never watched (our state dir, replay workspaces, staging) */
  ignoreDirs: string[];
  /**
   * folder names never watched, by prefix: the per-project folders an agent CLI creates for our
   * own replay runs (Claude Code names them after the workspace path). The harvester would skip
   * those sessions anyway; not watching them saves the work.
   */
  ignoreNamePrefixes?: string[];
  onFile(file: string, agent: string): void;
  onRootAppeared(root: WatchRoot): void;
  logger: Logger;
}

export function isUnder(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The deepest existing directory on the way to `p` (may be `p` itself). */
export function nearestExistingAncestor(p: string, exists: (p: string) => boolean = isDirectory): string {
  let cur = path.resolve(p);
  while (!exists(cur)) {
    const up = path.dirname(cur);
    if (up === cur) return cur;
    cur = up;
  }
  return cur;
}


export class TranscriptWatcher {
  private main: FSWatcher | undefined;
  /** one small watcher per ancestor: chokidar's unwatch(parent) would also silence a watched child */
  private readonly ancestors = new Map<string, FSWatcher>();
  private readonly roots: Array<WatchRoot & { mode: 'root' | 'ancestor'; via: string }>;
  private readonly ignoreDirs: string[];
  /** first watcher error, kept for status (e.g. the inotify watch limit) */
  lastError: string | undefined;

  constructor(private readonly opts: WatcherOptions) {
    // de-duplicate roots (adapters may share a folder) and drop roots inside our own state
    const seen = new Set<string>();
    this.ignoreDirs = opts.ignoreDirs.map((d) => path.resolve(d));
    this.roots = [];
    for (const r of opts.roots) {
      const p = path.resolve(r.path);
      if (seen.has(p) || this.ignoreDirs.some((d) => isUnder(p, d))) continue;
      seen.add(p);
      this.roots.push({ ...r, path: p, exists: false, mode: 'ancestor', via: p });
    }
  }

  status(): WatchedRootStatus[] {
    return this.roots.map((r) => ({ ...r }));
  }

  private agentOf(file: string): string | undefined {
    let best: (typeof this.roots)[number] | undefined;
    for (const r of this.roots) if (r.mode === 'root' && isUnder(file, r.path) && (!best || r.path.length > best.path.length)) best = r;
    return best?.agent;
  }

  /**
   * Files are never watched one by one: a chokidar file watcher costs ~9 KB of native memory,
   * 90 MB for 10,000 transcripts. Directories are watched, and a directory's native watcher
   * already reports every change of a file inside it (chokidar's 'raw' event), which is all we need.
   */
  private ignored = (p: string, stats?: Stats): boolean => {
    if (this.isIgnoredPath(p)) return true;
    return !!stats?.isFile();
  };

  private isIgnoredPath(p: string): boolean {
    if (this.ignoreDirs.some((d) => isUnder(p, d))) return true;
    const prefixes = this.opts.ignoreNamePrefixes;
    if (prefixes?.length) {
      for (const r of this.roots) {
        if (r.mode !== 'root' || !isUnder(p, r.path) || p === r.path) continue;
        const first = path.relative(r.path, p).split(path.sep)[0];
        if (prefixes.some((x) => first.startsWith(x))) return true;
      }
    }
    return false;
  }

  private onRaw = (_event: string, name: string, details: { watchedPath?: string }) => {
    if (!name || !details?.watchedPath) return;
    const file = path.isAbsolute(name) ? name : path.join(details.watchedPath, name);
    if (this.isIgnoredPath(file)) return;
    const agent = this.agentOf(file);
    if (agent && this.opts.isTranscriptFile(agent, file)) this.opts.onFile(file, agent);
  };

  async start(): Promise<void> {
    this.main = chokidar.watch([], {
      persistent: true,
      ignoreInitial: true,
      followSymlinks: true,
      usePolling: false,
      awaitWriteFinish: false,
      atomic: false,
      ignorePermissionErrors: true,
      ignored: this.ignored,
    });
    this.main.on('raw', (ev, name, details) => this.onRaw(ev, String(name ?? ''), details as { watchedPath?: string }));
    this.main.on('unlinkDir', (dir) => this.onRootGone(dir));
    this.main.on('addDir', (dir) => this.onDirAdded(dir));
    this.main.on('error', (err) => this.onError(err));

    const mainReady = once(this.main, 'ready');
    for (const r of this.roots) this.place(r);
    // chokidar emits 'ready' once the first paths are scanned; a watcher given nothing never does
    const waits: Array<Promise<void>> = [...this.ancestorReady.values()];
    if (this.roots.some((r) => r.mode === 'root')) waits.push(mainReady);
    await Promise.all(waits);
    this.ancestorReady.clear();
  }

  private readonly ancestorReady = new Map<string, Promise<void>>();

  /** Ancestors are watched one level deep, directories only: cheap, and enough to see a root appear. */
  private watchAncestor(dir: string): void {
    if (this.ancestors.has(dir)) return;
    const w = chokidar.watch(dir, {
      persistent: true,
      ignoreInitial: true,
      depth: 0,
      usePolling: false,
      atomic: false,
      ignorePermissionErrors: true,
      ignored: (_p: string, stats?: Stats) => !!stats?.isFile(),
    });
    w.on('addDir', (d) => this.onAncestorChange(d));
    w.on('error', (err) => this.onError(err));
    this.ancestors.set(dir, w);
    // a root created while this watcher was starting would otherwise go unnoticed
    this.ancestorReady.set(dir, once(w, 'ready').then(() => this.onAncestorChange(dir)));
  }

  private onError(err: unknown): void {
    const e = err as NodeJS.ErrnoException;
    const msg =
      e.code === 'ENOSPC' || e.code === 'EMFILE'
        ? `file watch limit reached (${e.code}); raise it: sudo sysctl fs.inotify.max_user_watches=524288`
        : String(e.message ?? e);
    if (this.lastError !== msg) this.opts.logger.warn({ err: msg }, 'watcher error');
    this.lastError = msg;
  }

  /** Watches the root if it exists, else its nearest existing ancestor. */
  private place(r: (typeof this.roots)[number]): void {
    if (isDirectory(r.path)) {
      r.exists = true;
      r.mode = 'root';
      r.via = r.path;
      this.main!.add(r.path);
      return;
    }
    r.exists = false;
    r.mode = 'ancestor';
    r.via = nearestExistingAncestor(r.path);
    this.watchAncestor(r.via);
  }

  private onAncestorChange(dir: string): void {
    const abs = path.resolve(dir);
    for (const r of this.roots) {
      if (r.mode !== 'ancestor' || !isUnder(r.path, abs)) continue;
      const old = r.via;
      this.place(r);
      // place() may have switched the mode
      if ((r.mode as string) === 'root') {
        this.opts.logger.info({ agent: r.agent, root: r.path }, 'transcript folder appeared; watching it');
        this.opts.onRootAppeared({ agent: r.agent, path: r.path, exists: true, kind: r.kind });
      }
      this.releaseAncestor(old);
    }
  }

  /**
   * A folder that appears inside a root — a project folder moved (not written) into it, or a copy
   * restored from a backup — brings its transcripts with it without one file event each: every
   * transcript below it is handed on as if it had just been written.
   */
  private onDirAdded(dir: string): void {
    const abs = path.resolve(dir);
    if (this.isIgnoredPath(abs) || this.roots.some((r) => r.path === abs)) return;
    const agent = this.agentOf(abs);
    if (!agent) return;
    let names: string[];
    try {
      names = fs.readdirSync(abs, { recursive: true, encoding: 'utf8' }).slice(0, MOVED_DIR_MAX_ENTRIES);
    } catch {
      return; // gone again, or unreadable: the next harvest pass looks anyway
    }
    for (const n of names) {
      const file = path.join(abs, n);
      if (this.opts.isTranscriptFile(agent, file)) this.opts.onFile(file, agent);
    }
  }

  private onRootGone(dir: string): void {
    const abs = path.resolve(dir);
    for (const r of this.roots) {
      if (r.mode === 'root' && isUnder(r.path, abs)) {
        this.main!.unwatch(r.path);
        this.place(r);
        this.opts.logger.info({ agent: r.agent, root: r.path }, 'transcript folder removed; waiting for it to reappear');
      }
    }
  }

  private releaseAncestor(dir: string): void {
    if (this.roots.some((r) => r.mode === 'ancestor' && r.via === dir)) return;
    const w = this.ancestors.get(dir);
    this.ancestors.delete(dir);
    void w?.close();
  }

  async close(): Promise<void> {
    await Promise.all([this.main?.close(), ...[...this.ancestors.values()].map((w) => w.close())]);
    this.ancestors.clear();
  }
}

/** A moved-in folder is listed up to this many entries (a huge tree is left to the periodic pass). */
const MOVED_DIR_MAX_ENTRIES = 20_000;

function once(w: FSWatcher, event: 'ready'): Promise<void> {
  return new Promise((resolve) => w.once(event, () => resolve()));
}

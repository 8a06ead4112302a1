/**
 * The harvest pass: list transcript files, skip the unchanged ones with a `stat` each, parse the
 * new bytes of the others (worker threads when there is enough work), and write sessions, events
 * and per-file offsets to the store — one transaction per batch, so an interrupted pass leaves
 * every file either fully recorded or untouched. Nothing one bad file does escapes the loop.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { ensureCacheSize, withoutForeignKeys, type Db } from '../store/db.js';
import type { Config } from '../core/config.js';
import type { AgentId, Session, SessionKind } from '../core/records.js';
import type { Progress } from '../core/progress.js';
import { silentProgress } from '../core/progress.js';
import { resolvePaths } from '../core/paths.js';
import { throwIfAborted } from '../core/errors.js';
import { getAdapter, HARVEST_ADAPTERS, isAgentEnabled, rootEnvFrom } from '../../adapters/index.js';
import { deleteFileRow, fileAgents, fileRowsCommitted, forgetFileStamps, getFileRow, hasFileRows, loadFileStamps, recordFileFailure, upsertFileRow } from '../store/repos/files.js';
import { deleteSession, getSession, sessionSid, upsertSession } from '../store/repos/sessions.js';
import { deleteSessionEvents, insertEventRows, insertEvents, setEventFinal, setEventText, storedEventText } from '../store/repos/events.js';
import { joinContinuation } from './continue-text.js';
import { DAMAGED_LINE_REASONS } from './validate-output.js';
import { Classifier } from './classify.js';
import { chooseWorkers, runTasks, startWorkers, stopWorkers } from './pool.js';
import { withLeanJit } from './lean-jit.js';
import type { FileResult, FileTask } from './process-file.js';
import { listCandidates, storeStamps } from './listing.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import { agentNotices } from './agent-moves.js';
import { storeAgentNotices } from './agent-notices-stored.js';
import { statMany } from './stat-many.js';
import { projectMatcher, type ProjectMatcher } from '../core/project-glob.js';
import { storedSessionFolders, wipeProject } from '../store/repos/privacy.js';

export interface HarvestOptions {
  agents?: AgentId[];
  /** only sessions whose project is this directory (or below it) */
  project?: string;
  /** only files modified within this many ms */
  sinceMs?: number;
  /** only these paths (the daemon's watcher); non-transcripts are ignored */
  files?: string[];
  env?: NodeJS.ProcessEnv;
  stateDir?: string;
  signal?: AbortSignal;
  progress?: Progress;
  /** worker threads; default chosen from the amount of work (0 = parse inline) */
  workers?: number;
  /**
   * read every listed file from its start again, changed or not (after an upgrade that reads more
   * of a format): each session's events are replaced, nothing is duplicated
   */
  reread?: boolean;
}

/**
 * Bump when the harvest reads more of a format than before (2: the skill a Claude `/command` ask
 * invoked is stored with it). A store harvested by an older version re-reads every file once, by
 * itself, on its next full pass (as `harvest --reread` does), so its old sessions get what the new
 * version reads too.
 */
export const HARVEST_FORMAT_VERSION = 2;
const KV_FORMAT_VERSION = 'harvest.formatVersion';

export interface HarvestSummary {
  /** every file was read from its start: `--reread`, or the first full pass after such an upgrade */
  reread: boolean;
  files: number;
  filesChanged: number;
  bytesRead: number;
  lines: number;
  sessions: number;
  sessionsByKind: Record<SessionKind, number>;
  events: number;
  prompts: number;
  toolErrors: number;
  skipped: Record<string, number>;
  /** values replaced to be storable (a timestamp past year 9999, a number where text belongs…), by field */
  repaired: Record<string, number>;
  redactions: number;
  redactionsByKind: Record<string, number>;
  errors: Array<{ file: string; message: string }>;
  /** paths passed over that are not errors: a symbolic link loop, a dangling link, an unreadable folder */
  notes: Array<{ file: string; message: string }>;
  newSessionIds: string[];
  workers: number;
  /** time spent writing the store (the main thread's share of the pass) */
  writeMs: number;
  durationMs: number;
}

/** When two files claim one session, the agent's adapter says which one is its source (adapters/<agent>/paths.ts). */
function preferOver(agent: AgentId, candidate: string, owner: string): boolean {
  return getAdapter(agent).preferFile?.(candidate, owner) ?? false;
}

function underProject(project: string | null, want: string): boolean {
  if (!project) return false;
  const a = path.resolve(project);
  const b = path.resolve(want);
  return a === b || a.startsWith(b.endsWith(path.sep) ? b : b + path.sep);
}

export async function runHarvest(db: Db, config: Config, opts: HarvestOptions = {}): Promise<HarvestSummary> {
  return withLeanJit(() => harvestWithWorkers(db, config, opts));
}

async function harvestWithWorkers(db: Db, config: Config, opts: HarvestOptions): Promise<HarvestSummary> {
  // The first pass into an empty store reads every transcript there is: its worker threads are
  // started now and boot while this thread lists and stats the files (~0.1 s of a cold pass on
  // 10,000 files), instead of after. Unneeded ones (a small first harvest) are stopped unused.
  const early = opts.workers !== 0 && !opts.files && opts.sinceMs === undefined && !hasFileRows(db) ? startWorkers(opts.workers ?? chooseWorkers(Number.POSITIVE_INFINITY, opts.env ?? process.env)) : [];
  try {
    return await harvestPass(db, config, opts, early);
  } finally {
    await stopWorkers(early); // (those runTasks did not take over)
  }
}

async function harvestPass(db: Db, config: Config, opts: HarvestOptions, early: Worker[]): Promise<HarvestSummary> {
  const started = Date.now();
  const env = opts.env ?? process.env;
  const progress = opts.progress ?? silentProgress;
  const stateDir = opts.stateDir ?? resolvePaths({ env }).stateDir;
  const classifier = new Classifier(path.join(stateDir, 'workspaces'));
  const agents = (opts.agents ?? HARVEST_ADAPTERS.map((a) => a.id)).filter((a) => isAgentEnabled(config, a));
  const summary: HarvestSummary = {
    reread: !!opts.reread,
    files: 0,
    filesChanged: 0,
    bytesRead: 0,
    lines: 0,
    sessions: 0,
    sessionsByKind: { interactive: 0, headless: 0, subagent: 0, self: 0 },
    events: 0,
    prompts: 0,
    toolErrors: 0,
    skipped: {},
    repaired: {},
    redactions: 0,
    redactionsByKind: {},
    errors: [],
    notes: [],
    newSessionIds: [],
    workers: 0,
    writeMs: 0,
    durationMs: 0,
  };

  const excluded = projectMatcher(config.privacy.excludeProjects, rootEnvFrom(env).homedir);
  // A project added to privacy.excludeProjects since the last pass: what was stored of it goes now,
  // not only when its transcripts next change (its tasks and proposals carry its prompts too).
  if (config.privacy.excludeProjects.length) {
    for (const folder of storedSessionFolders(db)) {
      if (!excluded(folder)) continue;
      const { counts } = wipeProject(db, folder);
      summary.skipped['excluded-project-removed'] = (summary.skipped['excluded-project-removed'] ?? 0) + counts.sessions;
    }
  }

  const { candidates, paths, listed, unreadable } = listCandidates(db, config, agents, env, opts.files);
  summary.files = candidates.length;
  for (const dir of unreadable ?? []) notePassedOver(summary, dir, 'unreadable-folder');
  throwIfAborted(opts.signal);

  const known = loadFileStamps(db);
  // a pass over everything (not one agent, project or age) is the one that may bring the store up
  // to this version's format; a store with no file rows has nothing old to read again
  const fullPass = !opts.files && opts.sinceMs === undefined && !opts.project && HARVEST_ADAPTERS.every((a) => !isAgentEnabled(config, a.id) || agents.includes(a.id));
  const storedFormat = fullPass ? (kvGet<number>(db, KV_FORMAT_VERSION) ?? (known.size ? 1 : 0)) : HARVEST_FORMAT_VERSION;
  if (storedFormat > 0 && storedFormat < HARVEST_FORMAT_VERSION) summary.reread = true;
  const reread = summary.reread;
  const sinceCutoff = opts.sinceMs !== undefined ? Date.now() - opts.sinceMs : null;
  const tasks: Array<FileTask & { estBytes: number }> = [];
  const gone: string[] = [];
  const stats = statMany(paths, storeStamps(candidates));
  let knownListed = 0; // listed files that have a row
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i];
    const k = known.get(c.path); // [dev, ino, size, mtimeMs]
    if (k) knownListed++;
    const failed = stats.error(i);
    if (failed) {
      const passedOver = passOverReason(failed);
      if (passedOver) notePassedOver(summary, c.path, passedOver);
      else summary.errors.push({ file: c.path, message: failed.message });
      continue;
    }
    if (!stats.exists(i)) {
      if (k) gone.push(c.path);
      else if (isSymlink(c.path)) notePassedOver(summary, c.path, 'dangling-symlink');
      continue;
    }
    if (!stats.isFile(i)) continue;
    if (sinceCutoff !== null && stats.mtimeMs(i) < sinceCutoff) continue;
    if (k && !reread && stats.matches(i, k)) continue; // unchanged: one stat, done
    const sameFile = !reread && !!k && stats.sameFile(i, k); // (a re-read starts at byte 0)
    let offset = 0;
    let state: string | null = null;
    let headHash: string | null = null;
    let headLen = 0;
    let damaged: string | null = null;
    if (sameFile && getAdapter(c.agent).readMode(c.path) === 'append') {
      const row = getFileRow(db, c.path);
      if (row && row.offset > 0) {
        offset = row.offset;
        state = row.state;
        headHash = row.headHash;
        headLen = row.headLen;
        damaged = row.damaged ?? null;
      }
    }
    const stamp = stats.stamp(i);
    tasks.push({
      path: c.path,
      agent: c.agent,
      offset,
      state,
      headHash,
      headLen,
      damaged,
      maxLineBytes: config.harvest.maxLineBytes,
      stamp,
      estBytes: Math.max(0, stamp.size - offset),
    });
  }
  if (!opts.files && sinceCutoff === null && knownListed < known.size) {
    // full scan: rows of files that are no longer listed (the sessions stay)
    let agentOf: Map<string, string> | null = null;
    for (const p of known.keys()) {
      if (listed.has(p)) continue;
      agentOf ??= fileAgents(db);
      if (agents.includes(agentOf.get(p) as AgentId)) gone.push(p);
    }
  }
  if (gone.length) {
    db.transaction(() => gone.forEach((p) => deleteFileRow(db, p))).immediate();
    fileRowsCommitted(db);
  }

  // Event inserts land at random places in the (session, seq) and (kind, session) indexes: with
  // SQLite's default 2 MB page cache a big first harvest thrashes; 24 MB keeps the hot pages in memory.
  if (tasks.length > 50) ensureCacheSize(db, 24);
  const touched = new Map<string, SessionKind>();
  const writeCtx: WriteContext = { classifier, known, project: opts.project, excluded };
  // A batch is written in one transaction, first without a savepoint per file: a savepoint makes
  // SQLite keep the old content of every page the file's rows change (a statement journal, written
  // to a temporary file), ~5% of a cold pass's CPU. No file fails in the common case; when one
  // throws, the whole batch is rolled back and written again by `writeBatchByFile`.
  const writeBatchWhole = db.transaction((results: FileResult[], tallies: FileTally[]) => {
    for (const r of results) {
      const tally = emptyTally();
      writeResult(db, r, writeCtx, tally);
      tallies.push(tally);
    }
  });
  // Each file in a savepoint of its batch: a file whose rows cannot be stored rolls back alone,
  // its error is recorded on its row, and the batch goes on with the others.
  const writeFile = db.transaction((r: FileResult, tally: FileTally) => writeResult(db, r, writeCtx, tally));
  const writeBatchByFile = db.transaction((results: FileResult[]) => {
    for (const r of results) {
      const tally = emptyTally();
      try {
        writeFile(r, tally);
      } catch (err) {
        if (isStoreWide(err)) throw err; // the store itself failed (full, locked, read-only): the pass fails loudly
        const message = `not stored: ${(err as Error).message}; this file is read again on the next pass`;
        recordFileFailure(db, r.path, r.agent, message);
        summary.errors.push({ file: r.path, message });
        continue;
      }
      mergeTally(summary, tally, touched);
    }
  });
  // Results are committed in groups: every commit rewrites the index pages it touched, so fewer,
  // larger transactions (bounded in size and age, so other writers are not kept waiting) are cheaper.
  let pending: FileResult[] = [];
  let pendingEvents = 0;
  let pendingSince = 0;
  const flush = () => {
    if (!pending.length) return;
    const t0 = performance.now();
    // Foreign-key checks cost a sessions lookup per event row; every event row is written right
    // after its session's upsert, so they are switched off for the batch (synchronously: no other
    // code can run on this connection meanwhile; inside an outer transaction the pragma is a no-op).
    withoutForeignKeys(db, () => {
      // IMMEDIATE: take the write lock up front. A deferred transaction reads first (the session
      // lookup) and then fails with "database is locked" when another harvest (the daemon's, or a
      // second `harvest`) committed in between; with the lock taken first, it waits its turn instead.
      const tallies: FileTally[] = [];
      try {
        writeBatchWhole.immediate(pending, tallies);
      } catch (err) {
        if (isStoreWide(err)) throw err; // (as the file-by-file write would: the pass fails loudly)
        forgetFileStamps(db); // the rolled-back rows' stamps are not the store's
        tallies.length = 0;
        writeBatchByFile.immediate(pending); // (merges each file's tally as its savepoint is released)
      }
      for (const tally of tallies) mergeTally(summary, tally, touched);
      fileRowsCommitted(db); // (a batch that threw leaves its writes pending: the next pass reloads)
    });
    summary.writeMs += performance.now() - t0;
    pending = [];
    pendingEvents = 0;
  };
  const accept = (results: FileResult[]) => {
    if (!pending.length) pendingSince = Date.now();
    for (const r of results) {
      pending.push(r);
      pendingEvents += r.packed?.events ?? r.output?.events.length ?? 0;
    }
    if (pendingEvents >= 10_000 || pending.length >= 512 || Date.now() - pendingSince >= 1_000) flush();
  };
  const totalBytes = tasks.reduce((s, t) => s + t.estBytes, 0);
  const workers = opts.workers ?? chooseWorkers(totalBytes, env);
  summary.workers = workers;
  if (tasks.length) {
    progress.start('harvest', tasks.length);
    try {
      await runTasks(tasks, workers, {
        started: early,
        signal: opts.signal,
        onResults: (results) => {
          accept(results);
          progress.tick(results.length);
        },
      });
    } finally {
      flush(); // what was parsed before an abort is kept
    }
  }
  // (an interrupted pass leaves the old version recorded: the next full pass reads everything again)
  if (storedFormat < HARVEST_FORMAT_VERSION && !opts.signal?.aborted) kvSet(db, KV_FORMAT_VERSION, HARVEST_FORMAT_VERSION);
  // what `status` says about agents that went quiet or keep unreadable stores, as of this full pass
  if (!opts.signal?.aborted && !opts.files) storeAgentNotices(db, agentNotices(db, config, opts.env ?? process.env));
  for (const kind of touched.values()) summary.sessionsByKind[kind]++;
  summary.sessions = touched.size;
  summary.durationMs = Date.now() - started;
  summary.writeMs = Math.round(summary.writeMs);
  if (tasks.length) progress.done();
  return summary;
}

interface WriteContext {
  classifier: Classifier;
  /** files that had a row when the pass began (each file is written once a pass) */
  known: ReadonlyMap<string, unknown>;
  project?: string;
  /** privacy.excludeProjects: sessions of a matching project are not stored at all */
  excluded: ProjectMatcher;
}

/** What writing one file adds to the summary: merged only once the file's savepoint is released. */
type FileTally = Pick<
  HarvestSummary,
  'errors' | 'filesChanged' | 'bytesRead' | 'lines' | 'skipped' | 'repaired' | 'redactions' | 'redactionsByKind' | 'newSessionIds' | 'events' | 'prompts' | 'toolErrors'
> & { touched?: [string, SessionKind] };

function emptyTally(): FileTally {
  return { errors: [], filesChanged: 0, bytesRead: 0, lines: 0, skipped: {}, repaired: {}, redactions: 0, redactionsByKind: {}, newSessionIds: [], events: 0, prompts: 0, toolErrors: 0 };
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const k in from) into[k] = (into[k] ?? 0) + from[k];
}

function mergeTally(summary: HarvestSummary, t: FileTally, touched: Map<string, SessionKind>): void {
  for (const e of t.errors) summary.errors.push(e);
  summary.filesChanged += t.filesChanged;
  summary.bytesRead += t.bytesRead;
  summary.lines += t.lines;
  addCounts(summary.skipped, t.skipped);
  addCounts(summary.repaired, t.repaired);
  summary.redactions += t.redactions;
  addCounts(summary.redactionsByKind, t.redactionsByKind);
  for (const id of t.newSessionIds) summary.newSessionIds.push(id);
  summary.events += t.events;
  summary.prompts += t.prompts;
  summary.toolErrors += t.toolErrors;
  if (t.touched) touched.set(t.touched[0], t.touched[1]);
}

/**
 * SQLite failures of the store as a whole, not of one file's rows: retrying the next file cannot
 * help, so they end the pass (what earlier batches committed stays).
 */
const STORE_WIDE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CORRUPT|NOTADB|NOMEM|CANTOPEN|PERM|INTERRUPT|ABORT|PROTOCOL)/;
function isStoreWide(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STORE_WIDE.test(code);
}

/** Why a path that failed its `stat` is passed over with a note rather than reported as an error. */
function passOverReason(err: Error): string | null {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'symlink-loop';
  if (code === 'EACCES' || code === 'EPERM') return 'unreadable';
  return null;
}

const PASS_OVER_TEXT: Record<string, string> = {
  'symlink-loop': 'a symbolic link loop: skipped',
  'dangling-symlink': 'a symbolic link to nothing: skipped',
  unreadable: 'not readable (permissions): skipped',
  'unreadable-folder': 'a folder that could not be listed (permissions, a loop, an I/O error): its transcripts are skipped',
};

function notePassedOver(summary: HarvestSummary, file: string, reason: string): void {
  summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1;
  summary.notes.push({ file, message: PASS_OVER_TEXT[reason] ?? `${reason}: skipped` });
}

function isSymlink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The file's damaged lines (those no record of which could be stored) as stored on its row: this
 * read's, plus the earlier reads' when this one continued from an offset.
 */
function damageAfter(r: FileResult): string | null {
  let damage: Record<string, number> | null = null;
  for (const k of DAMAGED_LINE_REASONS) {
    const n = r.skipped[k];
    if (n) (damage ??= {})[k] = n;
  }
  const before = r.reset ? null : r.damagedBefore;
  if (!damage) return before ?? null;
  if (before) {
    try {
      addCounts(damage, JSON.parse(before) as Record<string, number>);
    } catch {
      // (an unreadable old count is dropped: this read's counts are still right)
    }
  }
  return JSON.stringify(damage);
}

function writeResult(db: Db, r: FileResult, ctx: WriteContext, summary: FileTally): void {
  if (r.gone) {
    deleteFileRow(db, r.path);
    return;
  }
  if (r.error) summary.errors.push({ file: r.path, message: r.error });
  if (r.retry || !r.output || !r.stamp) return; // keep the old row: the next pass tries again
  summary.filesChanged++;
  summary.bytesRead += r.bytesRead;
  summary.lines += r.lines;
  addCounts(summary.skipped, r.skipped);
  if (r.repaired) addCounts(summary.repaired, r.repaired);
  const fileRow = {
    path: r.path,
    agent: r.agent,
    dev: r.stamp.dev,
    ino: r.stamp.ino,
    size: r.stamp.size,
    mtimeMs: r.stamp.mtimeMs,
    offset: r.offset,
    headHash: r.headHash,
    headLen: r.headLen,
    sessionId: null as string | null,
    state: r.state,
    // a file read but not usable (a corrupt .zst) keeps its error until it changes: `doctor` lists it
    error: (r.error ?? null) as string | null,
    damaged: damageAfter(r),
  };
  const snap = r.output.session;
  if (!snap) {
    upsertFileRow(db, fileRow); // nothing identifying yet (only side-channel lines): continue from here later
    return;
  }
  const kind = ctx.classifier.kind(snap);
  const project = ctx.classifier.project(snap);
  if (ctx.project && !underProject(project, ctx.project)) return; // not recorded: a full pass reads it later
  if (ctx.excluded(project) ?? ctx.excluded(snap.cwd)) {
    // The user asked for this project never to be stored: no session, no events, and no parser
    // state (it can hold a title or carried text). The file row keeps only where reading stopped,
    // so the transcript is not read again until it grows. A session stored before the exclusion
    // was added goes now.
    if (getSession(db, snap.id)) deleteSession(db, snap.id);
    upsertFileRow(db, { ...fileRow, state: null });
    summary.skipped['excluded-project'] = (summary.skipped['excluded-project'] ?? 0) + 1;
    return;
  }
  fileRow.sessionId = snap.id;
  const existing = getSession(db, snap.id);
  if (existing && existing.file !== r.path && fs.existsSync(existing.file) && !preferOver(r.agent, r.path, existing.file)) {
    // a copy of a session another file already provides (VS Code workspace copies, archived + active)
    fileRow.error = `duplicate of ${existing.file}`;
    upsertFileRow(db, fileRow);
    summary.skipped['duplicate-file'] = (summary.skipped['duplicate-file'] ?? 0) + 1;
    return;
  }
  // A re-read from byte 0 replaces the stored events only when it holds at least as much: a file
  // that shrank (zero-filled after a crash, emptied, truncated, rewritten shorter) starts a new read
  // but never deletes stored history. Its events are added where their seq is free.
  const readPrompts = r.packed?.prompts ?? r.output.events.filter((e) => e.kind === 'prompt').length;
  const keepHistory = !!existing && existing.file === r.path && r.reset && readPrompts < existing.promptCount;
  if (keepHistory) {
    summary.skipped['shrunk-kept-history'] = (summary.skipped['shrunk-kept-history'] ?? 0) + 1;
    summary.errors.push({ file: r.path, message: `the transcript shrank (${existing.promptCount} → ${readPrompts} prompts): stored history kept, reading it anew` });
  }
  // a session with no row has no events yet: the lookup is skipped (it was ~2% of a cold pass)
  if (existing && !keepHistory && (r.reset || existing.file !== r.path)) deleteSessionEvents(db, snap.id);
  if (!keepHistory && (r.reset || (existing && existing.file !== r.path))) {
    const prevSession = ctx.known.has(r.path) ? getFileRow(db, r.path)?.sessionId : null; // (rewritten below)
    if (prevSession && prevSession !== snap.id) deleteSessionEvents(db, prevSession);
  }
  const session: Session = {
    id: snap.id,
    agent: r.agent,
    vendorId: snap.vendorId,
    project,
    cwd: snap.cwd,
    gitBranch: snap.gitBranch,
    startedAt: snap.startedAt,
    endedAt: snap.endedAt,
    kind,
    parentId: snap.parentId,
    file: r.path,
    promptCount: keepHistory ? Math.max(existing.promptCount, snap.promptCount) : snap.promptCount,
    toolErrorCount: keepHistory ? Math.max(existing.toolErrorCount, snap.toolErrorCount) : snap.toolErrorCount,
    title: keepHistory ? (existing.title ?? snap.title) : snap.title,
  };
  const sid = upsertSession(db, session);
  if (r.packed) insertEventRows(db, sid, r.packed.rows);
  else insertEvents(db, sid, r.output.events);
  for (const a of r.output.textAppends ?? []) {
    const target = a.sessionId === snap.id ? sid : sessionSid(db, a.sessionId);
    const stored = target === undefined ? undefined : storedEventText(db, target, a.seq);
    if (target === undefined || stored === undefined) continue; // (history kept elsewhere: nothing to continue)
    const joined = joinContinuation(stored, a.text, a.max, a.open);
    setEventText(db, target, a.seq, joined.text);
    summary.redactions += joined.redactions;
    for (const k of joined.kinds) summary.redactionsByKind[k] = (summary.redactionsByKind[k] ?? 0) + 1;
  }
  for (const u of r.output.finalUpdates) {
    // (an update for a session that is not stored has nothing to mark)
    const target = u.sessionId === snap.id ? sid : sessionSid(db, u.sessionId);
    if (target !== undefined) setEventFinal(db, target, u.seq, u.final);
  }
  upsertFileRow(db, fileRow);
  if (!existing) summary.newSessionIds.push(snap.id);
  summary.touched = [snap.id, kind];
  const counted = r.packed ?? {
    events: r.output.events.length,
    prompts: r.output.events.filter((e) => e.kind === 'prompt').length,
    toolErrors: r.output.events.filter((e) => e.kind === 'tool_result' && e.isError).length,
  };
  summary.events += counted.events;
  if (kind === 'interactive' || kind === 'headless') summary.prompts += counted.prompts;
  summary.toolErrors += counted.toolErrors;
  summary.redactions += r.redactions;
  for (const [k, v] of Object.entries(r.redactionKinds)) summary.redactionsByKind[k] = (summary.redactionsByKind[k] ?? 0) + v;
}

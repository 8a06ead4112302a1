/**
 * What every command gets: resolved paths, lazily loaded config and store, output helpers that
 * honour --json, and the progress renderer. Commands never print with console.log directly.
 */
import fs from 'node:fs';
import { resolvePaths, type SleepPaths } from '../core/paths.js';
import type { Config } from '../core/config.js';
import type { Db } from '../store/db.js';
import { SleepError } from '../core/errors.js';
import type { Progress } from '../core/progress.js';
import { silentProgress } from '../core/progress.js';
import { createCliProgress } from './progress.js';
import { jsonOutput } from './json-shape.js';
import { colourEnabled, painter, wrappedRows, type Painter, type StyleName } from './style.js';

export interface GlobalOptions {
  json?: boolean;
  debug?: boolean;
  color?: boolean;
}

/** The modules behind `ctx.config` and `ctx.db`, loaded by `prepare()`: zod and the SQLite binding cost a command that needs neither (issue 40). */
interface StoreModules {
  /** absent when the config needs no validating (config-defaults.ts, config-snapshot.ts): the schema stays unloaded */
  loadConfig?: typeof import('../core/config.js').loadConfig;
  saveSnapshot: typeof import('../core/config-snapshot.js').writeConfigSnapshot;
  openDb: typeof import('../store/db.js').openDb;
  folderReadOnly: typeof import('../store/db.js').folderReadOnly;
  onClose: typeof import('../store/nudge-refresh.js').refreshNudgeFile;
}

export class CliContext {
  readonly paths: SleepPaths;
  readonly json: boolean;
  readonly debug: boolean;
  readonly env: NodeJS.ProcessEnv;
  private _config?: Config;
  private _db?: Db;
  private modules?: StoreModules;
  readonly out: NodeJS.WriteStream;
  readonly err: NodeJS.WriteStream;

  constructor(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env) {
    this.env = env;
    this.paths = resolvePaths({ env });
    this.json = !!opts.json;
    this.debug = !!opts.debug;
    this.out = process.stdout;
    this.err = process.stderr;
  }

  /** Loads what `config` and `db` need; `action()` calls it before every body except a light one's (run.ts). */
  async loadStoreModules(): Promise<void> {
    if (this.modules) return;
    const [defaults, snapshot, { openDb, folderReadOnly }, { refreshNudgeFile }] = await Promise.all([
      import('../core/config-defaults.js'),
      import('../core/config-snapshot.js'),
      import('../store/db.js'),
      import('../store/nudge-refresh.js'),
    ]);
    // no config file and no override: the built-in defaults, known valid; else the config as validated
    // by an earlier command, if nothing it depends on changed since
    this._config ??= defaults.unconfiguredDefaults(this.paths, this.env) ?? snapshot.readConfigSnapshot(this.paths, this.env);
    const loadConfig = this._config ? undefined : (await import('../core/config.js')).loadConfig;
    this.modules = { loadConfig, saveSnapshot: snapshot.writeConfigSnapshot, openDb, folderReadOnly, onClose: refreshNudgeFile };
  }

  private get loaded(): StoreModules {
    if (!this.modules) throw new SleepError('INTERNAL', 'a light command used the config or the store (declare it with action(), not lightAction())');
    return this.modules;
  }

  get config(): Config {
    if (!this._config) {
      const { loadConfig, saveSnapshot } = this.loaded;
      if (!loadConfig) throw new SleepError('INTERNAL', 'the config module was not loaded');
      const loaded = loadConfig(this.paths, this.env);
      saveSnapshot(this.paths, this.env, loaded.fileText, loaded.config);
      this._config = loaded.config;
    }
    return this._config;
  }

  /**
   * The store. In a state folder we may not write (a read-only mount, another user's folder) it opens
   * read-only, so the commands that only read (`status`, `proposals list`, `history`, `skills`, ...)
   * still work; a write then fails with the read-only error and its hint (core/error-diagnosis.ts).
   */
  get db(): Db {
    if (!this._db) {
      const { openDb, folderReadOnly } = this.loaded;
      const file = this.paths.database;
      this._db = folderReadOnly(file) && fs.existsSync(file) ? openDb(file, { readonly: true }) : openDb(file);
    }
    return this._db;
  }

  /**
   * The store if there is one, undefined before anything created it. For a command that only reads
   * (`status`): before the first harvest it shows the empty state and leaves no store behind, so the
   * first command after an install does not pay for creating and migrating one (issue 40).
   */
  get existingDb(): Db | undefined {
    const opened = this._db !== undefined;
    return opened || fs.existsSync(this.paths.database) ? this.db : undefined;
  }

  /** For commands run inside long-lived processes to release the file. */
  close(): void {
    // what `hooks nudge` reads at every agent session start, so it need not open the store (nudge-file.ts)
    const db = this._db;
    this._db = undefined;
    if (!db) return;
    if (this.modules) this.modules.onClose(db, this.paths.database, () => db.close());
    else db.close();
  }

  get isTty(): boolean {
    return !!this.out.isTTY && !this.json;
  }

  /** ANSI styles for stdout: no-ops when the terminal shows no colour or NO_COLOR is set (style.ts). */
  get paint(): Painter {
    return painter(!this.json && colourEnabled(this.out, this.env));
  }

  /** Columns to wrap long text to: the terminal's, or undefined in a pipe (printed whole). */
  get wrapWidth(): number | undefined {
    return this.out.isTTY ? (this.out.columns ?? 80) : undefined;
  }

  /** `text` after `first`, wrapped to the terminal with a hanging indent (never cut); `style` paints each row. */
  printWrapped(first: string, text: string, style?: StyleName): void {
    const paint = style ? this.paint[style] : (t: string) => t;
    for (const row of wrappedRows(first, text, this.wrapWidth)) this.print(paint(row));
  }

  /** Plain text line to stdout (suppressed under --json). */
  print(line = ''): void {
    if (!this.json) this.out.write(line + '\n');
  }

  /**
   * Machine output: under --json, `data` tagged `"$schema": "skillopt-sleep/<schema>@1"` (its shape is
   * documented under that tag in docs/json/, indexed in its README) with every store timestamp as an
   * ISO 8601 string; else the text renderer.
   */
  emit(schema: string, data: object, renderText: () => void): void {
    if (this.json) this.out.write(JSON.stringify(jsonOutput(schema, data), null, 2) + '\n');
    else renderText();
  }

  /** Notes that are not data (warnings, hints) go to stderr so --json stays parseable. */
  note(line: string): void {
    this.err.write(line + '\n');
  }

  progress(): Progress {
    if (this.json) return silentProgress;
    return createCliProgress(this.err);
  }
}

/**
 * Runs a night in a CHILD process (`skillopt-sleep night`), so a crash or out-of-memory in
 * training never takes the watcher down. At most one night at a time: a second request while one
 * runs is answered "already running", and a night started by hand (the `night` lease) is respected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../core/logger.js';
import type { BackendChoice } from './deps.js';

export type NightTrigger = 'scheduled' | 'catch-up' | 'manual';

export interface NightOutcome {
  trigger: NightTrigger;
  status: 'done' | 'failed' | 'skipped' | 'aborted';
  reason: string;
  startedAt: number;
  endedAt: number;
  exitCode: number | null;
  signal: string | null;
  runId?: string;
  /** the night command's --json output, when it printed one */
  report?: unknown;
}

export interface NightRunnerOptions {
  /** argv to start a night: [execPath, cliPath, 'night', ...] */
  command: string[];
  env: NodeJS.ProcessEnv;
  logger: Logger;
  detectBackend(): Promise<BackendChoice>;
  /** another process (a manual `night`) holds the night lease: describe it, else undefined */
  otherNightRunning(): string | undefined;
  now?: () => number;
  /** grace between SIGTERM and SIGKILL when aborting */
  killGraceMs?: number;
}

const MAX_CAPTURE = 1_000_000;

export class NightRunner {
  private child: ChildProcess | undefined;
  private current: Promise<NightOutcome> | undefined;
  private lastSkipReason: string | undefined;
  constructor(private readonly opts: NightRunnerOptions) {}

  get running(): boolean {
    return this.current !== undefined;
  }

  get childPid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts a night unless one is running; resolves with its outcome. */
  run(trigger: NightTrigger, signal: AbortSignal): Promise<NightOutcome> {
    const now = this.opts.now ?? Date.now;
    if (this.current) {
      const t = now();
      return Promise.resolve({ trigger, status: 'skipped', reason: 'a night is already running', startedAt: t, endedAt: t, exitCode: null, signal: null });
    }
    this.current = this.runOnce(trigger, signal).finally(() => {
      this.current = undefined;
      this.child = undefined;
    });
    return this.current;
  }

  /** Waits for the running night (if any) to end. */
  async settle(): Promise<void> {
    if (this.current) await this.current.catch(() => undefined);
  }

  private lastBackend: BackendChoice | undefined;

  /** Why a night cannot start now (another night runs, no backend), or undefined if it can. */
  async preflight(): Promise<string | undefined> {
    if (this.current && this.child) return 'a night is already running';
    const other = this.opts.otherNightRunning();
    if (other) return other;
    const backend = await this.opts.detectBackend();
    this.lastBackend = backend;
    if (!backend.name) {
      const reason = `no backend available (${backend.detail}); nights are skipped until one is: see \`skillopt-sleep doctor\``;
      // say it once per distinct reason, not every night: no nagging loop in the logs
      if (this.lastSkipReason !== reason) this.opts.logger.warn(reason);
      this.lastSkipReason = reason;
      return reason;
    }
    this.lastSkipReason = undefined;
    return undefined;
  }

  private async runOnce(trigger: NightTrigger, signal: AbortSignal): Promise<NightOutcome> {
    const now = this.opts.now ?? Date.now;
    const startedAt = now();
    const skip = (reason: string): NightOutcome => ({ trigger, status: 'skipped', reason, startedAt, endedAt: now(), exitCode: null, signal: null });
    const why = await this.preflight();
    if (why) return skip(why);
    const backend = this.lastBackend!;
    if (signal.aborted) return skip('daemon is stopping');

    const [exe, ...args] = this.opts.command;
    this.opts.logger.info({ trigger, backend: backend.name, argv: args.slice(1) }, 'night starting');
    const child = spawn(exe, args, {
      env: { ...this.opts.env, SKILLOPT_SLEEP_NIGHT_TRIGGER: trigger },
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.child = child;
    let stdout = '';
    let stderrTail: string[] = [];
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_CAPTURE) stdout += d;
    });
    let partial = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        this.opts.logger.info({ night: child.pid }, line.slice(0, 2000));
        stderrTail = [...stderrTail.slice(-19), line];
      }
    });
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), this.opts.killGraceMs ?? 7000);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const { code, sig } = await new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((resolve) => {
      child.once('error', (err) => {
        stderrTail.push(String(err.message));
        resolve({ code: null, sig: null });
      });
      child.once('close', (c, s) => resolve({ code: c, sig: s }));
    });
    signal.removeEventListener('abort', onAbort);
    if (killTimer) clearTimeout(killTimer);
    if (partial.trim()) stderrTail.push(partial);

    let report: unknown;
    try {
      report = stdout.trim() ? JSON.parse(stdout) : undefined;
    } catch {
      report = undefined;
    }
    const r = (report ?? {}) as Record<string, unknown>;
    const runId = typeof r.runId === 'string' ? r.runId : typeof r.id === 'string' ? r.id : undefined;
    const endedAt = now();
    let outcome: NightOutcome;
    if (signal.aborted) {
      outcome = { trigger, status: 'aborted', reason: 'daemon stopped during the night', startedAt, endedAt, exitCode: code, signal: sig, runId, report };
    } else if (code === 0) {
      const summary = typeof r.summary === 'string' ? r.summary : typeof r.reason === 'string' ? r.reason : 'night finished';
      outcome = { trigger, status: 'done', reason: summary, startedAt, endedAt, exitCode: code, signal: sig, runId, report };
    } else if (typeof r.summary === 'string' && r.summary && !sig) {
      // a night that failed on its own terms (an infrastructure failure, nothing staged) exits
      // non-zero with its one-line reason in the report: that line is the log's reason, not the exit code
      outcome = { trigger, status: 'failed', reason: `${r.summary.slice(0, 500)} (exit code ${code})`, startedAt, endedAt, exitCode: code, signal: sig, runId, report };
    } else {
      const why = sig ? `killed by ${sig}` : `exit code ${code}`;
      const last = stderrTail.filter((l) => /error/i.test(l)).pop() ?? stderrTail[stderrTail.length - 1] ?? '';
      outcome = { trigger, status: 'failed', reason: `night process failed (${why})${last ? `: ${last.slice(0, 300)}` : ''}`, startedAt, endedAt, exitCode: code, signal: sig, runId, report };
    }
    this.opts.logger[outcome.status === 'failed' ? 'error' : 'info'](
      { trigger, status: outcome.status, exitCode: code, signal: sig, ms: endedAt - startedAt, runId },
      `night ${outcome.status}: ${outcome.reason}`,
    );
    return outcome;
  }
}

/**
 * Runs an agent CLI as a child process WITHOUT a shell: argv is passed as-is, the prompt goes on
 * stdin. The child leads its own process group so an abort (user signal or timeout) kills the
 * agent and anything it started. Output is capped so a runaway agent cannot exhaust memory.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SleepError } from '../core/errors.js';

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: string;
  signal?: AbortSignal;
  maxOutputBytes?: number;
  /** grace between SIGTERM and SIGKILL on abort */
  killGraceMs?: number;
}

export function runProcess(binary: string, argv: string[], opts: RunOptions): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new SleepError('ABORTED', 'operation aborted', { cause: opts.signal.reason }));
    const max = opts.maxOutputBytes ?? 32 * 1024 * 1024;
    const child = spawn(binary, argv, { cwd: opts.cwd, env: opts.env, shell: false, detached: process.platform !== 'win32', stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let truncated = false;
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        /* already gone */
      }
    };
    const onAbort = () => {
      kill('SIGTERM');
      killTimer = setTimeout(() => kill('SIGKILL'), opts.killGraceMs ?? 2000);
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => {
      if (outBytes + d.length > max) {
        truncated = true;
        onAbort();
        return;
      }
      outBytes += d.length;
      out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (errBytes < 1024 * 1024) err.push(d);
      errBytes += d.length;
    });
    child.stdin.on('error', () => {
      /* the child may exit before reading stdin (e.g. bad flags); its exit code tells the story */
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      if (e.code === 'ENOENT') {
        reject(new SleepError('BACKEND_UNAVAILABLE', `${binary} not found`, { hint: `install ${path.basename(binary)} or pick another backend (skillopt-sleep doctor)`, cause: e }));
      } else reject(new SleepError('BACKEND_UNAVAILABLE', `cannot start ${binary}: ${e.message}`, { cause: e }));
    });
    child.on('close', (code, signal) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      if (opts.signal?.aborted) {
        reject(new SleepError('ABORTED', `${path.basename(binary)} run aborted`, { cause: opts.signal.reason }));
        return;
      }
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), truncated });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Finds an executable on PATH (no shell, no `which`). */
/**
 * Our own `node_modules/.bin`: the agent CLIs there are devDependencies for the test suite (not
 * logged in, not the user's). `npx skillopt-sleep` puts that folder first on PATH, so without this
 * a user's night would silently run on our test copy instead of their own `claude`. The tests opt
 * in with SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS=1.
 */
const BUNDLED_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'node_modules', '.bin');
const BUNDLED_BIN_SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.bin');

export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (name.includes('/') || name.includes('\\')) return isExecutable(name) ? path.resolve(name) : undefined;
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  const skipBundled = env.SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS !== '1';
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    if (skipBundled && (path.resolve(dir) === BUNDLED_BIN || path.resolve(dir) === BUNDLED_BIN_SRC)) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

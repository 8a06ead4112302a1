/**
 * Talking to the running daemon: a unix socket in the state dir (a named pipe on Windows),
 * newline-delimited JSON, one request per connection. Costs nothing while idle (no polling).
 * `night --now` and `status` use it; `stop` uses a signal, which works even if the daemon hangs.
 */
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import type { SleepPaths } from '../core/paths.js';
import { SleepError } from '../core/errors.js';
import { sha256 } from '../core/fsutil.js';
import { readPidFile, recordLiveness } from './pidfile.js';
import type { NightOutcome } from './night-runner.js';

export type IpcRequest = { op: 'ping' } | { op: 'status' } | { op: 'night'; wait?: boolean };
export type IpcReply = Record<string, unknown> & { ok: boolean; done?: boolean };

/** Unix socket paths are limited to ~104 bytes; fall back to a hashed name in the temp dir. */
export function socketPathFor(stateDir: string, platform: NodeJS.Platform = process.platform): string {
  const tag = sha256(path.resolve(stateDir)).slice(0, 16);
  if (platform === 'win32') return `\\\\.\\pipe\\skillopt-sleep-${tag}`;
  const inState = path.join(stateDir, 'daemon.sock');
  return Buffer.byteLength(inState) < 100 ? inState : path.join(os.tmpdir(), `skillopt-sleep-${tag}.sock`);
}

export type IpcHandler = (req: IpcRequest, reply: (msg: IpcReply) => void) => Promise<void> | void;

export async function startIpcServer(socket: string, handler: IpcHandler): Promise<net.Server> {
  if (process.platform !== 'win32') fs.rmSync(socket, { force: true }); // a crashed daemon's socket; we hold the lease
  const server = net.createServer((conn) => {
    conn.setEncoding('utf8');
    let buf = '';
    let handled = false;
    conn.on('error', () => undefined); // a client that went away
    conn.on('data', (d: string) => {
      buf += d;
      if (buf.length > 65536) conn.destroy();
      const nl = buf.indexOf('\n');
      if (nl < 0 || handled) return;
      handled = true;
      const write = (msg: IpcReply) => {
        if (!conn.destroyed) conn.write(JSON.stringify(msg) + '\n');
        if (msg.done) conn.end();
      };
      let req: IpcRequest;
      try {
        req = JSON.parse(buf.slice(0, nl)) as IpcRequest;
      } catch {
        write({ ok: false, done: true, error: 'bad request' });
        return;
      }
      Promise.resolve(handler(req, write)).catch((err: unknown) => write({ ok: false, done: true, error: String((err as Error)?.message ?? err) }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (process.platform !== 'win32') fs.chmodSync(socket, 0o600);
  return server;
}

/** Sends one request; calls onMessage for each reply line; resolves with the final (done) one. */
export function ipcRequest(
  socket: string,
  req: IpcRequest,
  opts: { timeoutMs?: number; onMessage?: (m: IpcReply) => void } = {},
): Promise<IpcReply> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket);
    conn.setEncoding('utf8');
    let buf = '';
    let last: IpcReply | undefined;
    const timer = opts.timeoutMs ? setTimeout(() => conn.destroy(new Error('timed out waiting for the daemon')), opts.timeoutMs) : undefined;
    conn.on('connect', () => conn.write(JSON.stringify(req) + '\n'));
    conn.on('data', (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          last = JSON.parse(line) as IpcReply;
          opts.onMessage?.(last);
        } catch {
          /* ignore a garbled line */
        }
      }
    });
    conn.on('error', (err) => {
      if (timer) clearTimeout(timer);
      reject(err);
    });
    conn.on('close', () => {
      if (timer) clearTimeout(timer);
      if (last) resolve(last);
      else reject(new Error('the daemon closed the connection without answering'));
    });
  });
}

/** The socket of the live daemon, or undefined when none runs. */
export function liveDaemonSocket(paths: SleepPaths): string | undefined {
  const rec = readPidFile(paths.pidFile);
  if (!rec || recordLiveness(rec) !== 'live' || !rec.socket) return undefined;
  return rec.socket;
}

const notRunning = () =>
  new SleepError('NOT_FOUND', 'the daemon is not running', {
    hint: 'start it with `skillopt-sleep start`, or run a night in this terminal with `skillopt-sleep night`',
  });

export interface NightNowResult {
  accepted: boolean;
  reason: string;
  outcome?: NightOutcome;
}

/**
 * `night --now`: asks the running daemon to start a night immediately (in its child process, with
 * the overlap guard). With `wait`, resolves when the night ends, reporting progress through `onUpdate`.
 */
export async function requestNightNow(
  ctx: { paths: SleepPaths },
  opts: { wait?: boolean; onUpdate?: (line: string) => void } = {},
): Promise<NightNowResult> {
  const socket = liveDaemonSocket(ctx.paths);
  if (!socket) throw notRunning();
  let accepted = false;
  let reason = '';
  let final: IpcReply;
  try {
    final = await ipcRequest(socket, { op: 'night', wait: opts.wait ?? true }, {
      onMessage: (m) => {
        if (typeof m.accepted === 'boolean') {
          accepted = m.accepted;
          reason = String(m.reason ?? '');
          // a refusal is the caller's to report (once); only progress is a running update
          if (accepted) opts.onUpdate?.('the daemon started a night');
        }
      },
    });
  } catch (err) {
    throw new SleepError('NOT_FOUND', `cannot reach the daemon: ${(err as Error).message}`, {
      hint: '`skillopt-sleep status` shows its state; `skillopt-sleep restart` restarts it',
    });
  }
  const outcome = final.outcome as NightOutcome | undefined;
  if (outcome) reason = outcome.reason;
  return { accepted, reason, outcome };
}

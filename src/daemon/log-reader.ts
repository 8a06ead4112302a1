/**
 * Reading the daemon's rotated JSON-lines logs (pino-roll writes <name>.<n>.log, n growing) for
 * `skillopt-sleep logs`, and rendering a line for people.
 */
import fs from 'node:fs';
import path from 'node:path';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Log files of `name`, oldest first. */
export function logFiles(logsDir: string, name: string): string[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(logsDir);
  } catch {
    return [];
  }
  const re = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)\\.log$`);
  return entries
    .map((f) => ({ f, m: re.exec(f) }))
    .filter((x): x is { f: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
    .map((x) => path.join(logsDir, x.f));
}

/** The last `n` lines across the newest files. */
export function readLastLines(logsDir: string, name: string, n: number): string[] {
  const files = logFiles(logsDir, name);
  const out: string[] = [];
  for (let i = files.length - 1; i >= 0 && out.length < n; i--) {
    let text: string;
    try {
      text = fs.readFileSync(files[i], 'utf8');
    } catch {
      continue;
    }
    const lines = text.split('\n').filter((l) => l !== '');
    out.unshift(...lines.slice(Math.max(0, lines.length - (n - out.length))));
  }
  return out;
}

/** A structured field in a readable line: short ones whole, long lists and objects in brief (`--json` has them whole). */
function briefJson(v: unknown): string {
  const full = JSON.stringify(v);
  if (full === undefined || full.length <= MAX_FIELD_CHARS) return String(full);
  if (Array.isArray(v)) return `[${v.length} items]`;
  return `${full.slice(0, MAX_FIELD_CHARS - 1)}…`;
}

const MAX_FIELD_CHARS = 160;

export function formatLogLine(raw: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return raw;
  }
  const t = typeof o.time === 'number' ? new Date(o.time) : undefined;
  const pad = (x: number) => String(x).padStart(2, '0');
  const ts = t ? `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}` : '';
  const level = LEVELS[o.level as number] ?? String(o.level ?? '');
  const rest = Object.entries(o)
    .filter(([k]) => !['time', 'level', 'msg', 'pid', 'hostname', 'component'].includes(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : briefJson(v)}`)
    .join(' ');
  return `${ts} ${level.padEnd(5)} ${String(o.msg ?? '')}${rest ? `  ${rest}` : ''}`;
}

/** Prints lines appended to the newest log file (following rotation) until the signal fires. */
export async function followLog(logsDir: string, name: string, onLine: (l: string) => void, signal: AbortSignal, pollMs = 500): Promise<void> {
  let file = logFiles(logsDir, name).pop();
  let offset = file ? fs.statSync(file).size : 0;
  let partial = '';
  while (!signal.aborted) {
    await new Promise<void>((r) => {
      const t = setTimeout(r, pollMs);
      signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
    });
    const newest = logFiles(logsDir, name).pop();
    if (newest && newest !== file) {
      if (file) offset = drain(file, offset);
      file = newest;
      offset = 0;
      partial = '';
    }
    if (file) offset = drain(file, offset);
  }

  function drain(f: string, from: number): number {
    let size: number;
    try {
      size = fs.statSync(f).size;
    } catch {
      return from;
    }
    if (size < from) from = 0; // truncated
    if (size === from) return from;
    const fd = fs.openSync(f, 'r');
    try {
      const buf = Buffer.alloc(size - from);
      fs.readSync(fd, buf, 0, buf.length, from);
      const lines = (partial + buf.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l !== '') onLine(l);
    } finally {
      fs.closeSync(fd);
    }
    return size;
  }
}

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { followLog, formatLogLine, logFiles, readLastLines } from '../../src/daemon/log-reader.js';
import { createDaemonLogger } from '../../src/daemon/log-writer.js';
import { makeTempDir } from '../helpers/sandbox.js';

describe('daemon logs', () => {
  it('reads the last lines across rotated files in number order (10 after 9)', () => {
    const dir = makeTempDir();
    fs.writeFileSync(path.join(dir, 'daemon.9.log'), 'a\nb\n');
    fs.writeFileSync(path.join(dir, 'daemon.10.log'), 'c\nd\n');
    fs.writeFileSync(path.join(dir, 'night.11.log'), 'x\n');
    expect(logFiles(dir, 'daemon').map((f) => path.basename(f))).toEqual(['daemon.9.log', 'daemon.10.log']);
    expect(readLastLines(dir, 'daemon', 3)).toEqual(['b', 'c', 'd']);
    expect(readLastLines(dir, 'daemon', 10)).toEqual(['a', 'b', 'c', 'd']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders a JSON line for people and passes other text through', () => {
    const t = new Date(2026, 10, 29, 3, 0, 5).getTime();
    const line = JSON.stringify({ level: 40, time: t, pid: 1, component: 'daemon', msg: 'watcher error', err: 'ENOSPC' });
    expect(formatLogLine(line)).toBe('2026-11-29 03:00:05 WARN  watcher error  err=ENOSPC');
    expect(formatLogLine('not json')).toBe('not json');
    // long structured fields are shown in brief (strings, such as errors, stay whole)
    const roots = Array.from({ length: 17 }, (_, i) => ({ agent: 'copilot', path: `/home/dana/.config/Code/User/workspaceStorage/${i}`, exists: false }));
    const long = JSON.stringify({ time: Date.UTC(2026, 10, 29, 3), level: 30, msg: 'daemon started', roots, backend: { name: 'sim' }, err: 'x'.repeat(300) });
    const text = formatLogLine(long);
    expect(text).toContain('roots=[17 items] backend={"name":"sim"} err=' + 'x'.repeat(300));
  });

  it('the daemon logger writes JSON lines to daemon.<n>.log, private, and -f follows new lines', async () => {
    const dir = makeTempDir();
    const { logger, flush } = await createDaemonLogger({ logsDir: dir, name: 'daemon' });
    logger.info({ k: 1 }, 'hello');
    flush();
    const [file] = logFiles(dir, 'daemon');
    expect(path.basename(file)).toBe('daemon.1.log');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readLastLines(dir, 'daemon', 1)[0])).toMatchObject({ msg: 'hello', k: 1, component: 'daemon' });

    const seen: string[] = [];
    const ac = new AbortController();
    const following = followLog(dir, 'daemon', (l) => seen.push(l), ac.signal, 30);
    await new Promise((r) => setTimeout(r, 60));
    logger.info('later');
    flush();
    const end = Date.now() + 3000;
    while (!seen.some((l) => l.includes('later')) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await following;
    expect(seen.some((l) => l.includes('"later"'))).toBe(true);
    expect(seen.some((l) => l.includes('"hello"'))).toBe(false); // -f starts at the end
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

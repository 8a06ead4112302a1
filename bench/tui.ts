/**
 * Review TUI benchmark: time to the first rendered frame of `review` with 50 staged proposals, one
 * of them a 5,000-line diff, read from a real SQLite store (proposals staged by the trainer's
 * `stageProposal` in a temp SKILLOPT_SLEEP_HOME), rendered by Ink to a fake 120×40 terminal.
 *
 * Figures:
 *  - first frame, list of 50 proposals (cold: the first render in this process, JIT not warm);
 *  - first frame, `review --id` on the 5,000-line diff (cold and warm median);
 *  - baseline in the same run: first frame on a 20-line diff; ratio 5,000-line / 20-line shows
 *    the diff view is virtualised (cost does not grow with the diff);
 *  - scrolling: PgDn in the 5,000-line diff, key → next frame (median), with Ink's frame limiter off.
 * Usage: npm run bench -- tui [--proposals N] [--lines N]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from './types.js';
import type { ReviewServices } from '../src/tui/services.js';
import { openDb, type Db } from '../src/store/db.js';
import { resolvePaths, type SleepPaths } from '../src/core/paths.js';
import { defaultConfig } from '../src/core/config.js';
import { stageProposal } from '../src/proposals/staging.js';
import { upsertSession } from '../src/store/repos/sessions.js';
import type { Proposal } from '../src/core/records.js';

const TARGET_MS = 300;

// loaded in run(), after NODE_ENV is set as `review` sets it (React's production build)
let React: typeof import('react');
let render: typeof import('ink').render;
let App: typeof import('../src/tui/App.js').App;
let createStoreServices: typeof import('../src/tui/store-services.js').createStoreServices;

function arg(args: string[], name: string, def: number): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : def;
}

class FakeStdout extends EventEmitter {
  columns = 120;
  rows = 40;
  isTTY = true;
  frames: Array<{ at: number; text: string }> = [];
  write(s: string): boolean {
    this.frames.push({ at: performance.now(), text: s });
    return true;
  }
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private pending: string | null = null;
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  read(): string | null {
    const p = this.pending;
    this.pending = null;
    return p;
  }
  press(data: string): void {
    this.pending = data;
    this.emit('readable');
  }
}

const tick = () => new Promise((r) => setImmediate(r));

async function waitForFrame(out: FakeStdout, after: number, needle: string, timeoutMs = 10_000): Promise<number> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    const f = out.frames.find((x, i) => i >= after && x.text.includes(needle));
    if (f) return f.at;
    await tick();
  }
  throw new Error(`no frame with "${needle}" within ${timeoutMs} ms`);
}

function skillText(lines: number, changed: boolean): string {
  return (
    `---\nname: s\ndescription: bench\n---\n` +
    Array.from({ length: lines }, (_, i) => (changed && i % 10 === 0 ? `line ${i} changed: link the PR in every entry` : `line ${i}: keep the changelog tidy and short`)).join('\n') +
    '\n'
  );
}

function stage(db: Db, paths: SleepPaths, root: string, name: string, lines: number, createdAt: number): Proposal {
  const file = path.join(root, 'project', '.claude', 'skills', name, 'SKILL.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const base = skillText(lines, false);
  fs.writeFileSync(file, base);
  // proposals write only inside git work trees the store has seen sessions in (proposals/targets.ts)
  const project = path.join(root, 'project');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  upsertSession(db, { id: 'claude-code:bench', agent: 'claude-code', vendorId: 'bench', project, cwd: project, gitBranch: null, startedAt: 1, endedAt: 2, kind: 'interactive', parentId: null, file: '/nonexistent/bench.jsonl', title: null, promptCount: 1, toolErrorCount: 0 });
  return stageProposal(db, paths, {
    target: { agent: 'claude-code', path: file, name, kind: 'skill', readBy: ['claude-code', 'copilot'], project: path.join(root, 'project') },
    baseContent: base,
    candidate: skillText(lines, true),
    result: { accepted: true, baselineScore: 0.4, candidateScore: 0.8, perTask: [], edits: [], notes: [] },
    runId: null,
    now: createdAt,
  });
}

interface FrameTime {
  wall: number;
  /** CPU time of this process (user + system) until the frame: what the work costs, without the wait for a busy machine */
  cpu: number;
}

async function firstFrame(services: ReviewServices, initialId: string | undefined, needle: string): Promise<FrameTime> {
  const out = new FakeStdout();
  const stdin = new FakeStdin();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const inst = render(React.createElement(App, { services, initialId }), {
    stdout: out as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const at = await waitForFrame(out, 0, needle);
  const c = process.cpuUsage(c0);
  inst.unmount();
  inst.cleanup();
  return { wall: at - t0, cpu: (c.user + c.system) / 1000 };
}

async function scrollLatency(services: ReviewServices, id: string, presses: number): Promise<number> {
  const out = new FakeStdout();
  const stdin = new FakeStdin();
  const inst = render(React.createElement(App, { services, initialId: id }), {
    stdout: out as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 0, // frame limiter off: measure the render, not the 30 fps throttle
  });
  await waitForFrame(out, 0, 'hunk 1/');
  const times: number[] = [];
  for (let i = 0; i < presses; i++) {
    const before = out.frames.length;
    const t = performance.now();
    stdin.press('\u001B[6~'); // PgDn
    const end = performance.now() + 5000;
    while (out.frames.length === before && performance.now() < end) await tick();
    times.push(performance.now() - t);
  }
  inst.unmount();
  inst.cleanup();
  return median(times);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function run(args: string[]): Promise<BenchResult[]> {
  process.env.NODE_ENV ??= 'production';
  React = (await import('react')).default;
  render = (await import('ink')).render;
  App = (await import('../src/tui/App.js')).App;
  createStoreServices = (await import('../src/tui/store-services.js')).createStoreServices;
  const count = arg(args, 'proposals', 50);
  const lines = arg(args, 'lines', 5000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-tui-'));
  const env = { ...process.env, SKILLOPT_SLEEP_HOME: path.join(root, 'home'), HOME: path.join(root, 'fake-home') };
  const paths = resolvePaths({ env });
  const db = openDb(paths.database);
  try {
    const now = Date.now();
    const huge = stage(db, paths, root, 'huge-skill', lines, now);
    const small = stage(db, paths, root, 'small-skill', 20, now - 1000);
    for (let i = 2; i < count; i++) stage(db, paths, root, `skill-${String(i).padStart(2, '0')}`, 40, now - i * 60_000);
    const hugeRows = huge.diff.split('\n').length;
    const services = createStoreServices({ db, paths, config: defaultConfig(), env, suspend: (fn) => fn() });

    const listCold = await firstFrame(services, undefined, `${count} waiting`);
    const hugeCold = await firstFrame(services, huge.id, 'hunk 1/');
    const warm = async (id: string | undefined, needle: string) => {
      const xs: number[] = [];
      for (let i = 0; i < 5; i++) xs.push((await firstFrame(services, id, needle)).wall);
      return median(xs);
    };
    const listWarm = await warm(undefined, `${count} waiting`);
    const hugeWarm = await warm(huge.id, 'hunk 1/');
    const smallWarm = await warm(small.id, 'hunk 1/');
    const scroll = await scrollLatency(services, huge.id, 40);

    const ok = (v: number) => v <= TARGET_MS;
    const ratio = hugeWarm / Math.max(0.001, smallWarm);
    return [
      { name: 'machine load average (1 min), for reading the wall times', value: round(os.loadavg()[0]), unit: 'load' },
      { name: `first frame: list of ${count} proposals (cold, wall)`, value: round(listCold.wall), unit: 'ms', target: `<= ${TARGET_MS}`, pass: ok(listCold.wall) },
      { name: `first frame: list of ${count} proposals (cold, CPU)`, value: round(listCold.cpu), unit: 'ms', target: `<= ${TARGET_MS}`, pass: ok(listCold.cpu) },
      { name: `first frame: list of ${count} proposals (warm median)`, value: round(listWarm), unit: 'ms', target: `<= ${TARGET_MS}`, pass: ok(listWarm) },
      { name: `first frame: ${hugeRows}-line diff, ${count} listed (cold, wall)`, value: round(hugeCold.wall), unit: 'ms', target: `<= ${TARGET_MS}`, pass: ok(hugeCold.wall) },
      { name: `first frame: ${hugeRows}-line diff (warm median)`, value: round(hugeWarm), unit: 'ms', target: `<= ${TARGET_MS}`, pass: ok(hugeWarm) },
      { name: 'baseline: first frame, 20-line diff (warm median)', value: round(smallWarm), unit: 'ms' },
      { name: `ratio ${hugeRows}-line / 20-line diff first frame`, value: round(ratio), unit: 'x', target: '<= 3', pass: ratio <= 3 },
      { name: `PgDn in the ${hugeRows}-line diff, key → frame (median)`, value: round(scroll), unit: 'ms', target: '<= 50', pass: scroll <= 50 },
    ];
  } finally {
    db.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const round = (v: number) => Math.round(v * 10) / 10;

/**
 * A night that fails loudly (non-zero exit, its one-line reason in the --json report) is logged by
 * the daemon with that reason, not only "exit code 1"; a night that crashed without a report
 * still gets its exit code and stderr.
 */
import { describe, expect, it } from 'vitest';
import { NightRunner } from '../../src/daemon/night-runner.js';
import type { Logger } from '../../src/core/logger.js';

function recordingLogger(lines: string[]): Logger {
  const put = (...args: unknown[]) => lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  return { info: put, warn: put, error: put, debug: put } as unknown as Logger;
}

function runner(script: string, lines: string[]): NightRunner {
  return new NightRunner({
    command: [process.execPath, '-e', script],
    env: process.env,
    logger: recordingLogger(lines),
    detectBackend: async () => ({ name: 'sim', detail: 'test' }),
    otherNightRunning: () => undefined,
  });
}

describe('the daemon logs why a night failed', () => {
  it('uses the report’s one-line reason when the night exits non-zero with one', async () => {
    const lines: string[] = [];
    const report = { status: 'failed', summary: 'night failed: target: HTTP 404 model `gpt-5-mnii` does not exist; nothing staged' };
    const out = await runner(`process.stdout.write(${JSON.stringify(JSON.stringify(report))}); process.exitCode = 1;`, lines).run('manual', new AbortController().signal);
    expect(out.status).toBe('failed');
    expect(out.exitCode).toBe(1);
    expect(out.reason).toMatch(/^night failed: target: HTTP 404 .*\(exit code 1\)$/);
    expect(out.reason.split('\n')).toHaveLength(1);
    expect(lines.some((l) => l.includes('night failed: night failed: target: HTTP 404'))).toBe(true);
  });

  it('without a report: the exit code and the last stderr line', async () => {
    const lines: string[] = [];
    const out = await runner(`console.error('Error: out of memory'); process.exit(3);`, lines).run('manual', new AbortController().signal);
    expect(out.status).toBe('failed');
    expect(out.reason).toBe('night process failed (exit code 3): Error: out of memory');
  });
});

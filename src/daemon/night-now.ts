/**
 * `skillopt-sleep night --now`: instead of training in this terminal, ask the running daemon to
 * start its night immediately (same child process, same overlap guard, same log). Hooks into the
 * night command through its extension points, so night.ts itself stays the trainer's.
 */
import type { Command } from 'commander';
import { nightCommandExtensions, nightDelegates } from '../cli/commands/night.js';
import type { NightReport } from '../night/report.js';
import { SleepError } from '../core/errors.js';
import { requestNightNow } from './ipc.js';

nightCommandExtensions.push((cmd: Command) => {
  cmd.option('--now', 'ask the running daemon to start its night immediately (waits for it and prints the report)');
});

nightDelegates.push(async (ctx, opts) => {
  if (!opts.now) return null;
  if (opts.dryRun || opts.project || opts.skill || opts.backend) {
    throw new SleepError('USAGE', '--now runs the daemon’s regular night; it cannot be combined with --dry-run, --project, --skill or --backend', {
      hint: 'drop --now to run a customised night in this terminal',
      exitCode: 2,
    });
  }
  const res = await requestNightNow(ctx, { wait: true, onUpdate: (l) => ctx.note(l) });
  if (!res.accepted) {
    throw new SleepError('BACKEND_UNAVAILABLE', `the daemon did not start a night: ${res.reason}`, {
      hint: '`skillopt-sleep status` shows the daemon; `skillopt-sleep doctor` says what is missing',
    });
  }
  const report = res.outcome?.report as NightReport | undefined;
  if (report && typeof report === 'object' && typeof report.id === 'string') return report;
  throw new SleepError('INTERNAL', `the night ${res.outcome?.status ?? 'ended'} without a report: ${res.reason}`, {
    hint: '`skillopt-sleep logs` shows the night process output',
  });
});

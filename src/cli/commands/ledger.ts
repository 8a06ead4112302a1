import type { Command } from 'commander';
import { action } from '../run.js';
import { parseDuration } from '../../core/clock.js';
import { UsageError } from '../../core/errors.js';
import { listEgress, totalsByDestination } from '../../llm/ledger.js';
import { wholeNumberOption } from '../options.js';

/** `ledger [--since 24h] [--run ID] [--json]`: every outbound model call and totals per destination. */
export function register(program: Command): void {
  program
    .command('ledger')
    .description('show what left this machine: one row per outbound model call, with totals per destination')
    .option('--since <duration>', 'only calls in this window (e.g. 24h, 7d)', '24h')
    .option('--run <id>', 'only calls of this run')
    .option('--limit <n>', 'show at most this many rows (totals count all)', '200')
    .action(
      action((ctx, opts: { since: string; run?: string; limit: string }) => {
        let sinceMs: number;
        try {
          sinceMs = Date.now() - parseDuration(opts.since);
        } catch (err) {
          throw new UsageError((err as Error).message, 'e.g. --since 24h or --since 7d');
        }
        const limit = wholeNumberOption('--limit', opts.limit, 1);
        const rows = listEgress(ctx.db, { sinceMs, runId: opts.run });
        const totals = totalsByDestination(rows);
        const shown = rows.slice(-limit);
        ctx.emit('ledger', { since: new Date(sinceMs).toISOString(), calls: rows.length, totals, rows: shown }, () => {
          if (rows.length === 0) {
            ctx.print(`no outbound model calls since ${new Date(sinceMs).toISOString()} (nothing left this machine)`);
            return;
          }
          ctx.print(`time                 role       backend    destination                          bytes  redact  tokens in/out   cost     ok`);
          for (const r of shown) {
            ctx.print(
              [
                new Date(r.ts).toISOString().slice(0, 19).replace('T', ' '),
                r.role.padEnd(10),
                r.backend.padEnd(10),
                r.destination.slice(-36).padEnd(36),
                String(r.bytesSent).padStart(6),
                String(r.redactions).padStart(7),
                `${r.tokensIn}/${r.tokensOut}`.padStart(14),
                `$${r.costUsd.toFixed(4)}`.padStart(8),
                r.ok ? '  ok' : `  FAIL ${r.error ?? ''}`.slice(0, 60),
              ].join(' '),
            );
          }
          if (shown.length < rows.length) ctx.print(`(${rows.length - shown.length} older rows not shown; --limit)`);
          ctx.print('');
          ctx.print('totals per destination:');
          for (const t of totals) {
            ctx.print(
              `  ${t.backend} → ${t.destination}: ${t.calls} calls (${t.failed} failed), ${t.bytesSent} bytes sent, ${t.redactions} redactions, ${t.tokensIn + t.tokensOut} tokens (${t.cacheReadTokens} cache-read), $${t.costUsd.toFixed(4)}`,
            );
          }
        });
      }),
    );
}

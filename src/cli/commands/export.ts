/**
 * `export [--project P] [--out FILE]`: the store as JSONL — what skillopt-sleep knows about you,
 * readable without SQLite. Line 1 is a header (`$schema`, when, which tables, what is left out);
 * every other line is `{"table": …, "row": {…}}`. Everything was redacted when it was stored; each
 * row is run through the redactor again on the way out (a rule added since then applies too).
 * Timestamps (`ts`, `*_at`, `*At` in ms) are written as ISO 8601 UTC.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { action } from '../run.js';
import { isoTimestamps, schemaTag } from '../json-shape.js';
import { resolveProjectOption } from '../project.js';
import { SleepError } from '../../core/errors.js';
import { redactValue } from '../../core/redact.js';
import { ensurePrivateDir, fsyncDir } from '../../core/fsutil.js';
import { endStream, writeLines } from '../big-output.js';
import { EXPORT_TABLES, NOT_EXPORTED, exportRows, projectExportTables } from '../../store/repos/privacy.js';

export function register(program: Command): void {
  program
    .command('export')
    .description('write the store as JSONL (header line, then one {table, row} per line; redacted; ISO timestamps)')
    .option('--project <p>', "only this project's sessions, events, tasks, proposals and banned edits")
    .option('--out <file>', 'write to FILE (created 0600) instead of stdout')
    .action(
      action(async (ctx, opts: { project?: string; out?: string }) => {
        if (!fs.existsSync(ctx.paths.database)) throw new SleepError('NOT_FOUND', 'nothing is stored yet', { hint: 'run `skillopt-sleep harvest` first' });
        const project = opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: true }) : undefined;
        const tables = project ? projectExportTables() : [...EXPORT_TABLES];
        const outFile = opts.out ? path.resolve(opts.out) : null;
        const tmp = outFile ? `${outFile}.${process.pid}.tmp` : null;
        if (outFile) ensurePrivateDir(path.dirname(outFile));
        const fd = tmp ? fs.openSync(tmp, 'w', 0o600) : null;
        // through a stream, at the reader's pace (big-output.ts: a sync write to a piped stdout fails with EAGAIN)
        const sink = fd !== null ? fs.createWriteStream('', { fd, autoClose: false }) : ctx.out;
        const counts: Record<string, number> = {};
        let redactions = 0;
        function* lines(): Generator<string> {
          yield JSON.stringify({ $schema: schemaTag('export'), exportedAt: new Date().toISOString(), project: project ?? null, tables, notExported: [...NOT_EXPORTED] });
          for (const table of tables) {
            counts[table] = 0;
            for (const row of exportRows(ctx.db, table, project)) {
              yield JSON.stringify({ table, row: isoTimestamps(redactValue(row, (n) => (redactions += n))) });
              counts[table]++;
            }
          }
        }
        let closed = false; // stdout closed early (`export | head`): stop writing, not an error
        try {
          closed = (await writeLines(sink, lines())) === 'closed';
          if (fd !== null && tmp && outFile) {
            if (closed) throw new Error(`${tmp} was closed while the export was written`);
            await endStream(sink);
            fs.fsyncSync(fd);
            fs.closeSync(fd);
            fs.renameSync(tmp, outFile);
            fsyncDir(path.dirname(outFile));
          }
        } catch (err) {
          if (fd !== null && tmp) {
            try {
              fs.closeSync(fd);
            } catch {
              // (already closed)
            }
            fs.rmSync(tmp, { force: true });
          }
          throw err;
        }
        if (closed) return;
        const total = Object.values(counts).reduce((a, b) => a + b, 0);
        // the summary goes to stderr: stdout may be the export itself
        if (outFile) {
          if (ctx.json) ctx.note(JSON.stringify({ $schema: schemaTag('export-summary'), ok: true, file: outFile, rows: counts, redactions }));
          else ctx.note(`wrote ${total} rows (${Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', ')}) to ${outFile}${redactions ? `; ${redactions} more secrets redacted on the way out` : ''}`);
        } else if (!ctx.json) ctx.note(`exported ${total} rows${redactions ? `; ${redactions} more secrets redacted on the way out` : ''}`);
      }),
    );
}

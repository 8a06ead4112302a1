import type { Command } from 'commander';
import { resolveProjectOption } from '../project.js';
import { action } from '../run.js';
import type { AgentId } from '../../core/records.js';
import { AGENT_IDS, resolveAgentName } from '../../../adapters/index.js';
import { parseDuration } from '../../core/clock.js';
import { UsageError } from '../../core/errors.js';
import { runHarvest, type HarvestSummary } from '../../harvest/ingest.js';

export function parseAgentOption(v: string | undefined): AgentId[] | undefined {
  if (!v) return undefined;
  const out: AgentId[] = [];
  for (const a of v.split(',').map((s) => s.trim())) {
    const id = resolveAgentName(a);
    if (!id) throw new UsageError(`unknown agent "${a}"`, `use one of ${AGENT_IDS.join(', ')}`);
    out.push(id);
  }
  return out;
}

function formatCounts(rec: Record<string, number>): string {
  const parts = Object.entries(rec)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}

export function renderSummary(s: HarvestSummary, print: (line: string) => void): void {
  print(`files      ${s.files} seen, ${s.filesChanged} read (${(s.bytesRead / 1e6).toFixed(1)} MB, ${s.lines} lines)`);
  print(`sessions   ${s.sessions} updated (${formatCounts(s.sessionsByKind)}), ${s.newSessionIds.length} new`);
  print(`events     ${s.events} (${s.prompts} prompts, ${s.toolErrors} tool errors)`);
  print(`skipped    ${formatCounts(s.skipped)}`);
  print(`redactions ${s.redactions}${s.redactions ? ` (${formatCounts(s.redactionsByKind)})` : ''}`);
  if (Object.keys(s.repaired).length) print(`repaired   ${formatCounts(s.repaired)} (values that could not be stored as they were)`);
  for (const n of s.notes.slice(0, 10)) print(`note       ${n.file}: ${n.message}`);
  if (s.notes.length > 10) print(`note       … and ${s.notes.length - 10} more`);
  for (const e of s.errors.slice(0, 10)) print(`error      ${e.file}: ${e.message}`);
  if (s.errors.length > 10) print(`error      … and ${s.errors.length - 10} more`);
  print(`took       ${(s.durationMs / 1000).toFixed(2)} s`);
}

export function register(program: Command): void {
  program
    .command('harvest')
    .description('read new transcript lines of Claude Code, Codex and Copilot into the store (one pass)')
    .option('--agent <agent>', `only this agent (${AGENT_IDS.join(', ')}; comma list)`)
    .option('--project <dir>', 'only sessions of this project directory')
    .option('--since <duration>', 'only files modified within this duration (e.g. 72h, 7d)')
    .option('--reread', 'read every transcript again from its start (after an upgrade); sessions are replaced, not duplicated')
    .action(
      action(async (ctx, opts: { agent?: string; project?: string; since?: string; reread?: boolean }) => {
        let sinceMs: number | undefined;
        if (opts.since) {
          try {
            sinceMs = parseDuration(opts.since);
          } catch (err) {
            throw new UsageError((err as Error).message, 'e.g. --since 72h');
          }
        }
        const ac = new AbortController();
        const onSig = () => ac.abort();
        process.once('SIGINT', onSig);
        try {
          const summary = await runHarvest(ctx.db, ctx.config, {
            agents: parseAgentOption(opts.agent),
            project: opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: false }) : undefined,
            sinceMs,
            reread: !!opts.reread,
            env: ctx.env,
            stateDir: ctx.paths.stateDir,
            signal: ac.signal,
            progress: ctx.progress(),
          });
          ctx.emit('harvest', summary, () => {
            renderSummary(summary, (l) => ctx.print(l));
            if (summary.reread && !opts.reread) ctx.print('note       this version reads more of the transcripts: every file was read again from its start, once');
          });
          return summary.errors.length && !summary.filesChanged ? 1 : 0;
        } finally {
          process.off('SIGINT', onSig);
        }
      }),
    );
}

import { terminalSafe } from '../../core/terminal-text.js';
import type { Command } from 'commander';
import { resolveProjectOption } from '../project.js';
import { action } from '../run.js';
import { SessionKind } from '../../core/records.js';
import { SleepError, UsageError } from '../../core/errors.js';
import { findSession, listSessions, type SessionRow } from '../../store/repos/sessions.js';
import { countEvents, listEvents } from '../../store/repos/events.js';
import { parseAgentOption } from './harvest.js';
import { wholeNumberOption } from '../options.js';

function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
}

function oneLine(text: string, max: number): string {
  const t = terminalSafe(text).replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function register(program: Command): void {
  const sessions = program.command('sessions').description('inspect harvested sessions');

  sessions
    .command('list')
    .description('list harvested sessions, newest first')
    .option('--agent <agent>', 'only this agent (claude-code, codex, copilot)')
    .option('--project <dir>', 'only this project directory (and below)')
    .option('--kind <kind>', 'interactive, headless, subagent or self')
    .option('--limit <n>', 'at most this many', '50')
    .action(
      action((ctx, opts: { agent?: string; project?: string; kind?: string; limit: string }) => {
        const agents = parseAgentOption(opts.agent);
        let kind: SessionKind | undefined;
        if (opts.kind) {
          const k = SessionKind.safeParse(opts.kind);
          if (!k.success) throw new UsageError(`unknown kind "${opts.kind}"`, 'use interactive, headless, subagent or self');
          kind = k.data;
        }
        const limit = wholeNumberOption('--limit', opts.limit, 1);
        const rows = listSessions(ctx.db, { agent: agents?.[0], project: opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: true }) : undefined, kind, limit });
        ctx.emit('sessions', { sessions: rows }, () => {
          if (!rows.length) {
            ctx.print('no sessions yet: run `skillopt-sleep harvest`');
            return;
          }
          for (const s of rows) {
            ctx.print(
              `${s.id.padEnd(50)} ${s.kind.padEnd(11)} ${when(s.startedAt)}  ${String(s.promptCount).padStart(3)}p ${String(s.toolErrorCount).padStart(2)}e  ${s.project ?? '-'}${s.title ? `  "${oneLine(s.title, 40)}"` : ''}`,
            );
          }
        });
      }),
    );

  sessions
    .command('show <id>')
    .description('show one session and its events (id, vendor id, or a unique prefix)')
    .option('--limit <n>', 'at most this many events', '200')
    .action(
      action((ctx, id: string, opts: { limit: string }) => {
        const found = findSession(ctx.db, id);
        if (!found.length) throw new SleepError('NOT_FOUND', `no session "${id}"`, { hint: '`skillopt-sleep sessions list` shows the ids' });
        if (found.length > 1 && found[0].id !== id) {
          throw new UsageError(`"${id}" matches ${found.length} sessions: ${found.map((s) => s.id).join(', ')}`, 'give more of the id');
        }
        const s: SessionRow = found[0];
        const limit = Math.max(1, Number(opts.limit) || 200);
        const events = listEvents(ctx.db, s.id, { limit });
        const total = countEvents(ctx.db, s.id);
        ctx.emit('session', { session: s, events, totalEvents: total }, () => {
          ctx.print(`${s.id}  (${s.agent}, ${s.kind}${s.parentId ? `, child of ${s.parentId}` : ''})`);
          ctx.print(`project  ${s.project ?? '-'}   cwd ${s.cwd ?? '-'}${s.gitBranch ? `   branch ${s.gitBranch}` : ''}`);
          ctx.print(`time     ${when(s.startedAt)} → ${when(s.endedAt)}   ${s.promptCount} prompts, ${s.toolErrorCount} tool errors`);
          if (s.title) ctx.print(`title    ${terminalSafe(s.title)}`);
          ctx.print(`file     ${s.file}`);
          ctx.print('');
          for (const e of events) {
            const tag =
              e.kind === 'prompt' ? 'USER ' : e.kind === 'text' ? (e.meta.final ? 'FINAL' : 'AGENT') : e.kind === 'tool_call' ? 'CALL ' : e.isError ? 'ERROR' : 'RESULT';
            ctx.print(`${String(e.seq).padStart(4)} ${tag.padEnd(6)} ${e.toolName ? `[${e.toolName}] ` : ''}${oneLine(e.text, 140)}`);
          }
          if (total > events.length) ctx.print(`… ${total - events.length} more events (--limit)`);
        });
      }),
    );
}

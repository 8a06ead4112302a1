import type { Command } from 'commander';
import { action } from '../run.js';
import { collectStatus, fmtDuration, fmtTime, sessionsLabel } from '../../daemon/lifecycle.js';
import { packageVersion } from '../../core/version.js';
import { retentionChecks, retentionStatus } from '../../harvest/retention-status.js';
import { describeProblem, transcriptProblems, type TranscriptProblems } from '../../harvest/transcript-problems.js';
import { storedAgentNotices } from '../../harvest/agent-notices-stored.js';

/** Before the first harvest: no file read yet, so none with a problem. */
const NO_TRANSCRIPT_PROBLEMS: TranscriptProblems = { files: 0, errors: 0, damagedLines: 0, sample: [] };

export function register(program: Command): void {
  program
    .command('status')
    .description('daemon state, watched folders, what was ingested, last night, proposals waiting, next night')
    .action(
      action(async (ctx) => {
        // status only reads: before the first harvest there is no store, and status creates none (issue 40)
        const db = ctx.existingDb;
        const collected = await collectStatus(ctx.paths, db, ctx.config);
        // agents that delete their own transcripts: their window and what our store keeps (for scripts too)
        // transcript files whose last read failed or lost lines (what `doctor` warns about too)
        // an agent that went quiet because its users moved to another, and stores that cannot be read (as of the last harvest)
        const s = {
          ...collected,
          retention: retentionStatus(ctx),
          transcriptProblems: db ? transcriptProblems(db) : NO_TRANSCRIPT_PROBLEMS,
          agentNotices: db ? storedAgentNotices(db) : [],
        };
        ctx.emit('status', s, () => {
          const h = s.health;
          const p = (k: string, v: string) => ctx.print(`${k.padEnd(12)} ${v}`);
          if (s.running) {
            p('daemon:', `${s.state} (pid ${s.pid}, up ${fmtDuration(s.uptimeMs ?? 0)})`);
            // after an upgrade the old daemon keeps running the old code until restarted
            if (h?.version && h.version !== packageVersion())
              p('version:', `the daemon runs ${h.version}, this is ${packageVersion()}; \`skillopt-sleep restart\` switches it`);
          } else if (s.state === 'crashed')
            p('daemon:', `not running — it stopped without saying goodbye (last heartbeat ${h ? fmtTime(h.heartbeatAt) : '?'}); \`skillopt-sleep start\` recovers`);
          else if (s.state === 'stopped') p('daemon:', `stopped${h?.stoppedAt ? ` since ${fmtTime(h.stoppedAt)}` : ''}${h?.stopReason ? ` (${h.stopReason})` : ''}; \`skillopt-sleep start\` starts it`);
          else p('daemon:', 'never started; `skillopt-sleep start` starts it');
          if (h) {
            const present = h.roots.filter((r) => r.exists).length;
            p('watching:', `${present} of ${h.roots.length} transcript folders present`);
            for (const r of h.roots.filter((x) => x.exists)) ctx.print(`  ${r.agent.padEnd(12)} ${r.path}  (${sessionsLabel(r.sessions)})`);
            const waiting = [...new Set(h.roots.filter((x) => !x.exists && !h.roots.some((y) => y.exists && y.agent === x.agent)).map((x) => x.agent))];
            for (const a of waiting) ctx.print(`  ${a.padEnd(12)} none yet; watching for it`);
            if (s.running) {
              p('ingested:', `${h.filesIngested} file reads, ${h.sessionsIngested} session updates, ${h.newSessions} new sessions since start; queue ${h.queueDepth}${h.harvesting ? ' (harvesting)' : ''}`);
              if (h.lastHarvestError) p('harvest:', `last error: ${h.lastHarvestError}`);
              if (h.watcherError) p('watcher:', h.watcherError);
            }
            // agents that delete their own transcripts: how long they keep them, what our store keeps
            for (const r of retentionChecks(ctx)) p('retention:', `${r.detail}${r.status === 'warn' && r.fix ? ` — ${r.fix}` : ''}`);
            p('backend:', h.backend.name ? h.backend.detail || h.backend.name : `none (${h.backend.detail}); nights are skipped until one is available`);
            if (s.running) p('memory:', `${Math.round(h.rssBytes / 1048576)} MB resident`);
          }
          for (const n of s.agentNotices) p(n.kind === 'went-quiet' ? 'moved:' : 'unreadable:', n.detail);
          const tp = s.transcriptProblems;
          if (tp.files) {
            p('transcripts:', `${tp.files} file${tp.files === 1 ? '' : 's'} with problems (${tp.errors} not stored, ${tp.damagedLines} damaged lines skipped; \`skillopt-sleep doctor\` lists them)`);
            for (const f of tp.sample) ctx.print(`  ${describeProblem(f)}`);
          }
          if (s.lastNight) {
            const n = s.lastNight;
            p('last night:', `${n.status} ${fmtTime(n.startedAt)}${n.trigger ? ` (${n.trigger})` : ''}${n.reason ? ` — ${n.reason}` : ''}`);
          } else p('last night:', 'none yet');
          p('proposals:', s.stagedProposals ? `${s.stagedProposals} staged, waiting for review (\`skillopt-sleep review\`)` : 'none waiting');
          p('next night:', `${s.nextNightAt ? fmtTime(s.nextNightAt) : '?'} (${s.schedule.cron}${s.schedule.timezone ? ` ${s.schedule.timezone}` : ', local time'})${s.running ? '' : ' — only while the daemon runs'}`);
          p('data:', s.dataDir);
        });
      }),
    );
}

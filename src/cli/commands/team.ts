/**
 * `team join | push | status | leave`: team mode on a shared PostgreSQL (issue 42, docs/TEAM.md).
 * Opt-in per repository: only the repositories joined here ever send anything, and only their mined
 * tasks (redacted, tagged with an opaque member id), never a transcript. The URL's password is kept
 * in a private credentials file (or PGPASSWORD / ~/.pgpass) and printed nowhere.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { action } from '../run.js';
import { SleepError } from '../../core/errors.js';
import { findRepoRoot } from '../../../adapters/skills-common.js';

/** The repository a --project names (a path, or the current folder): its root, which must be a git repository. */
function repositoryOf(value: string | undefined): string {
  const start = path.resolve(value ?? process.cwd());
  const root = findRepoRoot(start);
  if (!root) {
    throw new SleepError('INVALID_INPUT', `${start} is not inside a git repository`, { hint: 'team mode works per repository: pass --project with the repository folder' });
  }
  return root;
}

const ago = (ms: number) => {
  const s = Math.round(Math.abs(ms) / 1000);
  return s < 90 ? `${s}s` : s < 5400 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
};

export function register(program: Command): void {
  const team = program
    .command('team')
    .description("team mode: pool one repository's mined tasks with your team on a shared PostgreSQL (opt-in per repository; docs/TEAM.md)");

  team
    .command('join <postgres-url>')
    .description('opt a repository in: the server (postgres://user[:password]@host:port/db) gets its mined tasks, redacted, from the next push on')
    .option('--project <repo>', 'the repository folder (default: the repository of the current folder)')
    .action(
      action(async (ctx, url: string, opts: { project?: string }) => {
        const { joinTeam } = await import('../../team/member.js');
        const project = repositoryOf(opts.project);
        const out = await joinTeam({ paths: ctx.paths, config: ctx.config, env: ctx.env }, url, project);
        ctx.emit('team-join', { ok: true, ...out }, () => {
          ctx.print(`${out.alreadyJoined ? 'already opted in' : 'opted in'}: ${out.project} → ${out.server} (schema v${out.schemaVersion})`);
          ctx.print(`member id ${out.memberId} (opaque: your name is never sent); password: ${out.credentials === 'file' ? 'kept in the private credentials file' : 'from PGPASSWORD or ~/.pgpass'}`);
          ctx.print('nothing is sent until `skillopt-sleep team push` or the daemon\'s next mining pass; `team leave --wipe` takes it all back');
        });
      }),
    );

  team
    .command('push')
    .description("send the opted-in repositories' new and changed mined tasks (redacted; never transcripts); recorded in the egress ledger")
    .option('--project <repo>', 'only this opted-in repository')
    .action(
      action(async (ctx, opts: { project?: string }) => {
        const { pushTeam } = await import('../../team/member.js');
        const project = opts.project ? repositoryOf(opts.project) : undefined;
        const progress = ctx.progress();
        progress.start('team push');
        const out = await pushTeam({ paths: ctx.paths, config: ctx.config, env: ctx.env, db: ctx.db }, { project, onBatch: (p, sent, total) => progress.tick(0, `${path.basename(p)}: ${sent}/${total} tasks sent`) });
        progress.done();
        const failed = out.reports.filter((r) => !r.ok);
        ctx.emit('team-push', { ok: failed.length === 0, server: out.server, repos: out.reports }, () => {
          for (const r of out.reports) {
            if (!r.ok) ctx.print(`${r.project}: FAILED: ${r.error}`);
            else {
              const o = r.outcome!;
              ctx.print(`${r.project}: ${o.sent} task(s) sent (${o.inserted} new, ${o.replaced} replaced), ${o.unchanged} unchanged, ${o.retired} retired; ${o.bytes} bytes to ${out.server}${o.retries ? `; ${o.retries} retr${o.retries === 1 ? 'y' : 'ies'}` : ''}`);
            }
          }
        });
        if (failed.length) {
          ctx.note(`hint: nothing is lost: the next push sends what did not arrive (\`skillopt-sleep doctor\` checks the connection)`);
          return 1;
        }
      }),
    );

  team
    .command('status')
    .description('the team server, this machine\'s opted-in repositories, what the server pools for each, the night lease and the last team night')
    .action(
      action(async (ctx) => {
        const { teamStatus } = await import('../../team/member.js');
        const s = await teamStatus({ paths: ctx.paths, config: ctx.config, env: ctx.env });
        ctx.emit('team-status', s, () => {
          if (!s.joined) {
            ctx.print('team mode is off: no repository is opted in (`skillopt-sleep team join <postgres-url> --project <repo>`)');
            return;
          }
          ctx.print(`server ${s.server} (${s.reachable ? `schema v${s.schemaVersion}` : `UNREACHABLE: ${s.error}`}); member id ${s.memberId}`);
          const now = Date.now();
          for (const r of s.repos) {
            ctx.print(`${r.project} (repo ${r.repoKey.slice(0, 12)}): ${r.pushed} task(s) pushed from here`);
            if (r.server) ctx.print(`  pooled: ${r.server.tasks} task(s) from ${r.server.members} member(s), ${r.server.sessions} session(s); ${r.server.optedIn} member(s) opted in`);
            if (r.lease) ctx.print(`  night lease: ${r.lease.live ? `held by ${r.lease.holder}, expires in ${ago(r.lease.expiresAt - now)}` : 'free'}`);
            if (r.lastNight) {
              const n = r.lastNight as { status?: string; finishedAt?: number; branch?: string };
              ctx.print(`  last team night: ${n.status ?? '?'}${n.branch ? ` (${n.branch})` : ''}${n.finishedAt ? `, ${ago(now - n.finishedAt)} ago` : ''}`);
            }
          }
        });
        return s.joined && !s.reachable ? 1 : 0;
      }),
    );

  team
    .command('leave')
    .description('opt a repository out (nothing more is sent); --wipe also deletes your rows of it from the server')
    .option('--project <repo>', 'the repository folder (default: the repository of the current folder)')
    .option('--wipe', 'delete the tasks you pushed for it from the server (and your member row when it was your last repository)')
    .action(
      action(async (ctx, opts: { project?: string; wipe?: boolean }) => {
        const { leaveTeam } = await import('../../team/member.js');
        const project = repositoryOf(opts.project);
        const out = await leaveTeam({ paths: ctx.paths, config: ctx.config, env: ctx.env }, project, { wipe: !!opts.wipe });
        ctx.emit('team-leave', { ok: true, ...out }, () => {
          ctx.print(`opted out: ${out.project}; nothing more is sent to ${out.server}`);
          if (out.wiped) ctx.print(`deleted from the server: ${out.deleted.tasks} task(s)${out.deleted.member ? ' and your member row' : ''}`);
          else ctx.print('your pushed tasks stay on the server (`team leave --wipe` deletes them)');
          if (out.leftTeam) ctx.print('no repository is opted in any more: the membership and credentials files are removed');
        });
      }),
    );
}

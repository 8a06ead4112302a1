/**
 * `hooks install|remove|show|nudge`: the opt-in morning nudge. `install` adds a session-start hook
 * to each agent that has one whose output you see (Claude Code's settings.json, Codex's
 * hooks.json; Copilot CLI ignores a sessionStart hook's output, so it gets none); the hook runs
 * `hooks nudge`, which prints one line — "2 skill proposals waiting: skillopt-sleep review" — and
 * nothing when none wait. `remove` restores each file exactly as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { action, lightAction } from '../run.js';
import type { CliContext } from '../context.js';
import { HOOK_TAG } from '../../../adapters/kit/session-hook.js';
import { UsageError } from '../../core/errors.js';
import type { AgentId } from '../../core/records.js';
import { countStagedInDatabase, readNudgeCount } from '../../store/nudge-file.js';

// `hooks nudge` runs at the start of every agent session: this module's static imports stay light
// (no store, no agent adapters); the other subcommands load theirs when they run (issue 40).
const adapters = () => import('../../../adapters/index.js');
const sessionHooks = () => import('../session-hooks.js');

async function agentOpt(v: string | undefined): Promise<AgentId | undefined> {
  if (v === undefined) return undefined;
  const id = (await adapters()).resolveAgentName(v);
  if (!id) throw new UsageError(`unknown agent "${v}"`);
  return id;
}

/**
 * `install` and `remove` share their frame: an `--agent` filter, resolved (an unknown name is a
 * usage error) before any settings file is touched, over the agents that have a hook.
 */
function perAgentCommand(hooks: Command, name: string, description: string, run: (ctx: CliContext, only: AgentId | undefined) => Promise<void>): void {
  hooks
    .command(name)
    .description(description)
    .option('--agent <a>', 'only this agent')
    .action(action(async (ctx, opts: { agent?: string }) => run(ctx, await agentOpt(opts.agent))));
}

/**
 * The one line, or null when nothing waits. Reads the nudge file (store/nudge-file.ts), the
 * database only when that is missing or older than the database's last write. Never throws: a hook must not break a session start.
 */
export async function nudgeLine(ctx: CliContext): Promise<string | null> {
  try {
    if (!fs.existsSync(ctx.paths.database)) return null;
    const n = readNudgeCount(ctx.paths.database) ?? (await countStagedInDatabase(ctx.paths.database));
    if (!n) return null;
    return `${n} skill proposal${n === 1 ? '' : 's'} waiting: skillopt-sleep review`;
  } catch {
    return null;
  }
}

export function register(program: Command): void {
  const hooks = program.command('hooks').description('opt-in morning nudge: a session-start hook in your agents that says when proposals wait for review');

  perAgentCommand(
    hooks,
    'install',
    "add the session-start hook to the user settings of each agent that has one (see `hooks show`); backup kept, atomic write",
    async (ctx, only) => {
      const [{ agentDisplayName }, { hookAgents, installHook }, { cliPath }] = await Promise.all([adapters(), sessionHooks(), import('../../daemon/lifecycle.js')]);
      const results = hookAgents(only).map((a) => installHook(ctx.paths, a, ctx.env, cliPath(), { evenIfUnused: !!only }));
      ctx.emit('hooks-install', { ok: true, hooks: results }, () => {
        for (const r of results) {
          const what = { installed: 'added the session-start hook to', already: 'the hook is already in', skipped: 'not used here (no folder for' }[r.status];
          ctx.print(`${agentDisplayName(r.agent)}: ${what} ${r.status === 'skipped' ? `${path.dirname(r.file)}); \`--agent ${r.agent}\` installs it anyway` : r.file}`);
          if (r.caveat) ctx.print(`  note: ${r.caveat}`);
        }
        ctx.print('each new session now starts with one line when proposals wait ("2 skill proposals waiting: skillopt-sleep review"), nothing otherwise');
        ctx.print('`skillopt-sleep hooks remove` restores the files exactly');
      });
    },
  );

  perAgentCommand(
    hooks,
    'remove',
    'take the hook out again: each file is restored byte for byte (only our entry is removed if you edited it since)',
    async (ctx, only) => {
      const [{ agentDisplayName }, { hookAgents, removeHook }] = await Promise.all([adapters(), sessionHooks()]);
      const results = hookAgents(only).map((a) => removeHook(ctx.paths, a, ctx.env));
      ctx.emit('hooks-remove', { ok: true, hooks: results }, () => {
        for (const r of results) {
          const what = {
            restored: `restored ${r.file} exactly as it was before install`,
            deleted: `removed ${r.file} (install had created it)`,
            edited: `removed our hook from ${r.file} (you changed the file since install, so only our entry was taken out; the file before this is kept at ${r.keptCopy})`,
            absent: `no hook of ours in ${r.file}`,
          }[r.status];
          ctx.print(`${agentDisplayName(r.agent)}: ${what}`);
        }
      });
    },
  );

  hooks
    .command('show')
    .description('which agents have the hook installed, and where')
    .action(
      action(async (ctx) => {
        const [{ AGENTS, agentDisplayName }, { hookStates }] = await Promise.all([adapters(), sessionHooks()]);
        const states = hookStates(ctx.env);
        const waiting = await nudgeLine(ctx);
        ctx.emit('hooks-show', { hooks: states, waiting }, () => {
          for (const s of states) ctx.print(`${agentDisplayName(s.agent)}: ${s.installed ? 'installed' : 'not installed'} (${s.file})${s.installed && s.caveat ? ` — ${s.caveat}` : ''}`);
          for (const a of AGENTS.filter((x) => !x.sessionStartHook)) ctx.print(`${a.displayName}: no hook (it has no user-level session-start hook whose output you would see)`);
        });
      }),
    );

  hooks
    .command('nudge')
    .description('print "N skill proposals waiting: skillopt-sleep review", or nothing when none wait (what the hook runs)')
    .option('--agent <a>', 'format the line for this agent (with --from-hook)')
    .option(HOOK_TAG, "run by an agent's hook: print the agent's hook reply (a JSON systemMessage)")
    .action(
      lightAction(async (ctx, opts: { agent?: string; fromHook?: boolean }) => {
        const line = await nudgeLine(ctx);
        // --json always answers (null: nothing waits); the hook and the plain line say nothing then
        if (ctx.json && !opts.fromHook) {
          ctx.emit('hooks-nudge', { waiting: line || null }, () => undefined);
          return 0;
        }
        if (!line) return 0;
        // Claude Code and Codex show a hook reply's systemMessage to the user (plain stdout would go to the model)
        if (opts.fromHook) ctx.out.write(JSON.stringify({ systemMessage: line, suppressOutput: true }) + '\n');
        else ctx.print(line);
        return 0;
      }),
    );
}

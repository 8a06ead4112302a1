import type { Command } from 'commander';
import { resolveProjectOption } from '../project.js';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { runMining, type MineSummary } from '../../mine/index.js';
import type { Backend } from '../../core/protocol.js';
import { errorMessage } from '../../core/errors.js';

/**
 * `--project P`: an absolute or relative path, or the folder name of a known project
 * (e.g. `ledgerline` for /home/dana/src/ledgerline) when exactly one matches.
 */
async function minerBackend(ctx: CliContext): Promise<Backend | undefined> {
  if (!ctx.config.mining.useLlm) return undefined;
  try {
    const { createRoleBackends } = await import('../../llm/registry.js');
    const roles = createRoleBackends(ctx.config, { db: ctx.db, env: ctx.env });
    if (!roles.miner) ctx.note('note: no backend for the miner role; mining with heuristics only');
    return roles.miner;
  } catch (err) {
    ctx.note(`note: miner backend unavailable (${errorMessage(err)}); mining with heuristics only`);
    return undefined;
  }
}

export function renderSummary(ctx: CliContext, s: MineSummary): void {
  ctx.print(`mined ${s.sessions} session(s), ${s.prompts} ask(s) in ${(s.durationMs / 1000).toFixed(1)} s`);
  ctx.print(`clusters ${s.clusters}, of which recurring ${s.recurringTasks}`);
  ctx.print(`splits: train ${s.bySplit.train}, val ${s.bySplit.val}, test ${s.bySplit.test}`);
  if (s.skillLoads.loaded) {
    const top = Object.entries(s.skillLoads.bySkill).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
    ctx.print(`skills loaded by the agent: in ${s.skillLoads.loaded} of ${s.skillLoads.asks} ask(s) read (${top.map(([k, n]) => `${k} ${n}`).join(', ')})`);
  }
  for (const t of s.thin) {
    ctx.print(
      `thin data: ${t.project ?? '(cross-project)'} has ${t.valTasks} validation task(s); needs ${t.needed} more (about ${t.moreTasks} more recurring tasks), tasks keep accumulating across nights`,
    );
  }
  if (s.llm.calls) ctx.print(`miner: ${s.llm.calls} call(s), ${s.llm.failures.length} failed, ${s.llm.invalidChecks.length} invalid check(s) dropped`);
  for (const e of s.llm.invalidChecks.slice(0, 5)) ctx.print(`  dropped check: ${e}`);
  for (const v of s.integrity) ctx.print(`SPLIT VIOLATION (${v.kind}): ${v.message}`);
}

export function register(program: Command): void {
  program
    .command('mine')
    .description('cluster recurring asks from harvested sessions into judged tasks (incremental)')
    .option('--project <path>', 'only sessions of this project (path or folder name)')
    .action(
      action(async (ctx, opts: { project?: string }) => {
        const project = opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: true }) : undefined;
        const miner = await minerBackend(ctx);
        const summary = await runMining(ctx.db, ctx.config, { project, backends: { miner }, progress: ctx.progress() });
        ctx.emit('mine', { ok: true, ...summary }, () => renderSummary(ctx, summary));
      }),
    );
}

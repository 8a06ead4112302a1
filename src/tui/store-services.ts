/**
 * The real ReviewServices: proposals and evidence from the SQLite store, decisions through the
 * trainer's apply/reject/revert (atomic writes, backups, receipts), the next night from
 * `schedule.cron`, $EDITOR and re-runs with the UI suspended.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import cron from 'node-cron';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Config } from '../core/config.js';
import type { Proposal } from '../core/records.js';
import { listProposals } from '../store/repos/proposals.js';
import { mergeCommandOf, readTeamProposal } from '../proposals/team-proposal.js';
import { applyProposal, rejectProposal, revertProposal } from '../proposals/apply.js';
import { liveHash } from '../proposals/journal.js';
import { lintEdit } from '../proposals/risk-lint.js';
import { contentForEdits } from '../proposals/partial.js';
import { forgetRejectedEdit } from '../proposals/forget.js';
import { listRejectedEdits } from '../store/repos/rejected-edits.js';
import { editHash } from '../skilldoc/edit-key.js';
import { errorMessage } from '../core/errors.js';
import type { NextNight, ReviewServices } from './services.js';
import { loadEvidence, loadLedgerSummary, loadReport } from './store-evidence.js';
import { replayWithConfiguredBackends, rescoreEdits, type ReplayScorer } from './rescore.js';
import { editInEditor } from '../core/editor.js';
import { agentName, homeRelative, readersOf } from './format.js';
import { agentsInProject } from '../store/repos/sessions.js';

/** Runs `fn` with the UI handed back to the terminal (Ink cleared, raw mode off), then resumes. */
export type Suspend = <T>(fn: () => T) => T;

export interface StoreServicesInput {
  db: Db;
  paths: SleepPaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  suspend: Suspend;
  /** whether the daemon is up (the empty screen says how nights run); the CLI knows, the UI may not ask the daemon */
  daemonRunning?: () => boolean;
  /** why the running daemon skips its nights (from its health record), or undefined */
  nightsSkipped?: () => string | undefined;
  /** replays a subset when the cache cannot score it; default: the configured backends; null: never replay */
  replay?: ReplayScorer | null;
  now?: () => number;
}

export function nextNightFrom(cronExpr: string, timezone: string | undefined): NextNight {
  if (!cron.validate(cronExpr)) return { cron: cronExpr, timezone, at: null, error: 'not a valid cron expression' };
  try {
    const task = cron.createTask(cronExpr, () => undefined, timezone ? { timezone } : {});
    // getNextRuns works on a task that was never started (getNextRun needs it running)
    const at = task.getNextRuns(1)[0] ?? null;
    void task.destroy();
    return { cron: cronExpr, timezone, at };
  } catch (err) {
    return { cron: cronExpr, timezone, at: null, error: errorMessage(err) };
  }
}

const CLI_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../cli/main.js');

export function createStoreServices(input: StoreServicesInput): ReviewServices {
  const { db, paths, config, env, suspend } = input;
  const now = input.now ?? (() => Date.now());
  return {
    now,
    listProposals: () => listProposals(db),
    team(p: Proposal) {
      const t = readTeamProposal(p.dir);
      return t ? { branch: t.branch, merge: mergeCommandOf(t) } : null;
    },
    staleness(p: Proposal) {
      const missing = !fs.existsSync(p.skillTarget.path);
      const live = liveHash(p.skillTarget.path);
      return { stale: live !== p.baseHash, liveHash: live, missing: missing && p.baseHash !== '' };
    },
    ledgerSummary: () => loadLedgerSummary(db, now()),
    nextNight: () => ({ ...nextNightFrom(config.schedule.cron, config.schedule.timezone), daemonRunning: input.daemonRunning?.(), nightsSkipped: input.nightsSkipped?.() }),
    missedBy(p) {
      if (!p.skillTarget.project) return [];
      const readers = new Set(readersOf(p));
      return agentsInProject(db, p.skillTarget.project).filter((a) => !readers.has(a));
    },
    risk(p, opts = {}) {
      // the same check apply makes (proposals/apply.ts): the text it would write over the file as it is now
      let live = '';
      try {
        live = fs.readFileSync(p.skillTarget.path, 'utf8');
      } catch {
        /* a new file */
      }
      const content = opts.content ?? (opts.editIds && opts.editIds.length ? contentForEdits(p, opts.editIds, paths) : p.candidate);
      return lintEdit(live, content);
    },
    evidence: (p) => loadEvidence(db, p),
    report: (p) => loadReport(p),
    async apply(id, opts) {
      const out = applyProposal(db, paths, id, { ...opts, editIds: opts.editIds && opts.editIds.length ? opts.editIds : undefined, env });
      const readers = out.readBy.length ? out.readBy.map(agentName).join(', ') : 'no agent detected for this location';
      const n = opts.editIds?.length ?? 0;
      const what = out.partial ? `${n} edit${n === 1 ? '' : 's'} of ${out.proposal.skillTarget.name}` : out.proposal.skillTarget.name;
      const copies = out.copies.length ? ` (+ ${out.copies.length} cop${out.copies.length === 1 ? 'y' : 'ies'} for ${[...new Set(out.copies.flatMap((c) => c.readBy))].map(agentName).join(', ')})` : '';
      return {
        message: `Applied ${what} → ${homeRelative(out.path)}${copies} · read by ${readers} · backup kept · u undoes`,
        path: out.path,
        readBy: out.readBy,
      };
    },
    async reject(id, reason) {
      const p = rejectProposal(db, paths, id, reason);
      const n = p.rememberedEdits;
      // the same promise as `reject` and the README: banned until forgotten (F here, `forget EDIT` in the CLI)
      return { message: `Rejected ${p.skillTarget.name}${reason ? ` (${reason})` : ''}: ${n} edit${n === 1 ? '' : 's'} will not be proposed again unless you forget them (F)` };
    },
    async forget(id, editIds) {
      const p = listProposals(db).find((x) => x.id === id);
      if (!p) throw new Error(`proposal ${id} is gone`);
      const banned = new Set(listRejectedEdits(db, p.skillTarget.path).map((r) => r.editHash));
      const wanted = p.edits.filter((e) => (editIds ? editIds.includes(e.id) : e.status === 'accepted') && banned.has(editHash(e)));
      // PROPOSAL:EDIT names exactly this proposal's edit (a bare hash prefix could match another skill's)
      for (const e of wanted) forgetRejectedEdit(db, `${p.id}:${e.id}`);
      if (wanted.length === 0) return { message: `${p.skillTarget.name}: none of ${editIds ? 'these edits' : 'its edits'} is banned any more; nothing to forget` };
      return { message: `Forgot ${wanted.length} rejected edit${wanted.length === 1 ? '' : 's'} of ${p.skillTarget.name}: a later night may propose ${wanted.length === 1 ? 'it' : 'them'} again` };
    },
    async revert(id) {
      const out = revertProposal(db, paths, id, { env });
      return { message: `Reverted ${out.proposal.skillTarget.name}: ${homeRelative(out.path)} ${out.restored === 'removed' ? 'removed (it did not exist before)' : 'restored as it was'}`, path: out.path };
    },
    async rescore(id, editIds, signal) {
      const p = listProposals(db).find((x) => x.id === id);
      if (!p) throw new Error(`proposal ${id} is gone`);
      const replay = input.replay === undefined ? replayWithConfiguredBackends(db, config, env) : (input.replay ?? undefined);
      return rescoreEdits(db, p, editIds, config.training.gateMetric, replay, signal);
    },
    async editText(text, fileName) {
      return suspend(() => editInEditor(text, fileName, env));
    },
    async rerun(p) {
      // a path names the skill exactly; our managed skill is known by name (its file may not exist yet)
      const args = [CLI_MAIN, 'night', '--skill', p.skillTarget.kind === 'managed' ? p.skillTarget.name : p.skillTarget.path];
      if (p.skillTarget.project) args.push('--project', p.skillTarget.project);
      const r = suspend(() => {
        process.stdout.write(`\n$ skillopt-sleep ${args.slice(1).join(' ')}\n`);
        return spawnSync(process.execPath, args, { stdio: 'inherit', env });
      });
      if (r.status !== 0) throw new Error(`the re-run exited with code ${r.status ?? r.signal}; see \`skillopt-sleep logs\``);
      return { message: `Re-ran training for ${p.skillTarget.name}: a new proposal is listed if it beat the current file` };
    },
  };
}

/**
 * The production DaemonDeps: adapters (discoverRoots, isTranscriptFile), harvest (runHarvest),
 * mine (runMining) and llm (detectBackends), narrowed to the daemon's small types.
 */
import fs from 'node:fs';
import type { Config } from '../core/config.js';
import type { Db } from '../store/db.js';
import { resolvePaths } from '../core/paths.js';
import { isSleepError } from '../core/errors.js';
import { discoverRoots, isTranscriptFile } from '../../adapters/index.js';
import type { AgentId } from '../core/records.js';
import { runHarvest, type HarvestSummary } from '../harvest/ingest.js';
import { runMining } from '../mine/index.js';
import { detectBackends, type Detection } from '../llm/detect.js';
import { teamStateFile } from '../team/membership.js';
import type { BackendChoice, DaemonDeps, HarvestOutcome } from './deps.js';

export function harvestOutcome(s: HarvestSummary): HarvestOutcome {
  return { newSessionIds: s.newSessionIds, filesRead: s.filesChanged, sessionsTouched: s.sessions, reread: s.reread };
}

/** The backend the night's target role will use, if it is actually usable. */
export function nightBackend(d: Detection): BackendChoice {
  const t = d.roles.target;
  if (!t.backend) return { name: null, detail: t.reason };
  const avail = d.available.find((a) => a.name === t.backend);
  if (avail && !avail.available) return { name: null, detail: `${t.backend} is configured but ${avail.detail}` };
  const model = t.model ? `; model ${t.model}` : '';
  return { name: t.backend, detail: `${t.backend} — ${t.reason}${model}` };
}

export function createDefaultDeps(): DaemonDeps {
  return {
    discoverRoots: (config: Config, env: NodeJS.ProcessEnv) => discoverRoots(config, env),
    isTranscriptFile: (agent: string, file: string) => isTranscriptFile(agent as AgentId, file),
    harvest: async (db: Db, config: Config, opts) => {
      const env = process.env;
      const s = await runHarvest(db, config, { files: opts.files, signal: opts.signal, env, stateDir: resolvePaths({ env }).stateDir });
      return harvestOutcome(s);
    },
    mine: async (db, config, opts) => {
      try {
        await runMining(db, config, { signal: opts.signal });
      } catch (err) {
        // a night (or a manual `mine`) holds the mining lease: it mines the same sessions
        if (isSleepError(err) && err.code === 'LEASE_HELD') return;
        throw err;
      }
    },
    detectBackend: async (config, env) => nightBackend(detectBackends(config, env)),
    teamPush: async (db, config) => {
      const env = process.env;
      const paths = resolvePaths({ env });
      // the team modules (and the PostgreSQL client) load only on a machine that joined a team
      if (!fs.existsSync(teamStateFile(paths))) return [];
      const { pushTeam } = await import('../team/member.js');
      const out = await pushTeam({ paths, config, env, db }, { retry: { attempts: 3, baseMs: 500, maxMs: 2_000 } });
      return out.reports.map((r) =>
        r.ok && r.outcome
          ? { ok: true, line: `${r.project}: ${r.outcome.sent} task(s) sent, ${r.outcome.unchanged} unchanged, to ${out.server}` }
          : { ok: false, line: `${r.project}: ${r.error ?? 'failed'} (the next pass sends it again)` },
      );
    },
  };
}

export async function loadDefaultDeps(): Promise<DaemonDeps> {
  return createDefaultDeps();
}

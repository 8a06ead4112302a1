/**
 * The user's control over what the store keeps: forget one project (`wipe --project`) and read
 * the whole store back out (`export`). Whole-store wipes delete the database file itself
 * (src/cli/commands/wipe.ts); this module is the SQL for the parts that need it.
 */
import type { Db } from '../db.js';

/** The tables `export` writes, in an order a reader can follow (sessions before their events). */
export const EXPORT_TABLES = ['sessions', 'events', 'tasks', 'task_occurrences', 'cluster_members', 'proposals', 'receipts', 'rejected_edits', 'runs', 'steps', 'rollouts', 'ledger'] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];

/** Tables that are caches or bookkeeping, not the user's data (rebuilt on demand): not exported. */
export const NOT_EXPORTED = ['files', 'llm_cache', 'clusters', 'cluster_keys', 'mine_df', 'leases', 'kv', 'schema_migrations'] as const;

/** Columns that hold JSON text: exported as JSON values, not strings. */
const JSON_COLUMNS = new Set(['record', 'meta', 'outcome', 'info']);

function underClause(col: string): string {
  return `(${col} = @project OR substr(${col}, 1, length(@inside)) = @inside)`;
}

function projectArgs(project: string) {
  const p = project.replace(/\/+$/, '');
  return { project: p, inside: `${p}/` };
}

/** The WHERE clause that limits one table to a project (null: the table is left out of a project export). */
function projectFilter(table: ExportTable): string | null {
  const sessionIn = `(SELECT id FROM sessions WHERE ${underClause('project')} OR ${underClause('cwd')})`;
  switch (table) {
    case 'sessions':
      return `${underClause('project')} OR ${underClause('cwd')}`;
    case 'events':
      return `sid IN (SELECT sid FROM sessions WHERE ${underClause('project')} OR ${underClause('cwd')})`;
    case 'tasks':
      return underClause('project');
    case 'task_occurrences':
      return `session_id IN ${sessionIn} OR task_id IN (SELECT id FROM tasks WHERE ${underClause('project')})`;
    case 'cluster_members':
      return `${underClause('project')} OR session_id IN ${sessionIn}`;
    case 'proposals':
      return `${underClause("json_extract(record, '$.skillTarget.project')")} OR ${underClause('skill_path')}`;
    case 'receipts':
      return underClause('path');
    case 'rejected_edits':
      return underClause('skill_key');
    default:
      return null;
  }
}

/** Every row of a table (of one project's part, when given), JSON columns parsed. */
export function* exportRows(db: Db, table: ExportTable, project?: string): Generator<Record<string, unknown>> {
  let sql = `SELECT * FROM ${table}`;
  let args: Record<string, string> = {};
  if (project) {
    const where = projectFilter(table);
    if (!where) return;
    sql += ` WHERE ${where}`;
    args = projectArgs(project);
  }
  for (const row of db.prepare(sql).iterate(args) as Iterable<Record<string, unknown>>) {
    for (const [k, v] of Object.entries(row)) {
      if (JSON_COLUMNS.has(k) && typeof v === 'string') {
        try {
          row[k] = JSON.parse(v);
        } catch {
          // (a column that is not valid JSON is exported as its text)
        }
      }
    }
    yield row;
  }
}

/** Which tables a project export covers (the others hold no per-project data). */
export function projectExportTables(): ExportTable[] {
  return EXPORT_TABLES.filter((t) => projectFilter(t) !== null);
}

export interface ProjectWipeCounts {
  sessions: number;
  events: number;
  tasks: number;
  occurrences: number;
  clusterMembers: number;
  clusters: number;
  rollouts: number;
  proposals: number;
  rejectedEdits: number;
  transcriptsForgotten: number;
  responseCache: number;
}

/**
 * Deletes everything the store holds about one project (its folder and the folders inside it):
 * sessions and their events, its mined tasks with their occurrences and rollouts, its mining
 * members (and clusters left empty), its proposals and the edits banned for its files. The
 * response cache is cleared whole (its entries cannot be told apart by project). The transcript
 * files' rows keep only where reading stopped (no session, no parser state), so what was already
 * read is not read back in; new work there is harvested as usual (unless the project is excluded).
 * Returns the counts and the proposal folders to remove.
 */
export function wipeProject(db: Db, project: string): { counts: ProjectWipeCounts; proposalDirs: string[] } {
  const args = projectArgs(project);
  const run = db.transaction(() => {
    const sessionIds = db.prepare(`SELECT id FROM sessions WHERE ${underClause('project')} OR ${underClause('cwd')}`).pluck().all(args) as string[];
    const taskIds = db.prepare(`SELECT id FROM tasks WHERE ${underClause('project')}`).pluck().all(args) as string[];
    db.exec('CREATE TEMP TABLE IF NOT EXISTS wipe_sessions(id TEXT PRIMARY KEY); DELETE FROM wipe_sessions;');
    db.exec('CREATE TEMP TABLE IF NOT EXISTS wipe_tasks(id TEXT PRIMARY KEY); DELETE FROM wipe_tasks;');
    const addSession = db.prepare('INSERT OR IGNORE INTO wipe_sessions(id) VALUES (?)');
    const addTask = db.prepare('INSERT OR IGNORE INTO wipe_tasks(id) VALUES (?)');
    for (const id of sessionIds) addSession.run(id);
    for (const id of taskIds) addTask.run(id);
    const proposals = db
      .prepare(`SELECT id, json_extract(record, '$.dir') AS dir FROM proposals WHERE ${underClause("json_extract(record, '$.skillTarget.project')")} OR ${underClause('skill_path')}`)
      .all(args) as Array<{ id: string; dir: string | null }>;
    const counts: ProjectWipeCounts = {
      sessions: sessionIds.length,
      events: db.prepare('DELETE FROM events WHERE sid IN (SELECT sid FROM sessions WHERE id IN (SELECT id FROM wipe_sessions))').run().changes,
      occurrences: db.prepare('DELETE FROM task_occurrences WHERE session_id IN (SELECT id FROM wipe_sessions) OR task_id IN (SELECT id FROM wipe_tasks)').run().changes,
      rollouts: db.prepare('DELETE FROM rollouts WHERE task_id IN (SELECT id FROM wipe_tasks)').run().changes,
      tasks: db.prepare('DELETE FROM tasks WHERE id IN (SELECT id FROM wipe_tasks)').run().changes,
      clusterMembers: db.prepare(`DELETE FROM cluster_members WHERE ${underClause('project')} OR session_id IN (SELECT id FROM wipe_sessions)`).run(args).changes,
      clusters: 0,
      proposals: 0,
      rejectedEdits: db.prepare(`DELETE FROM rejected_edits WHERE ${underClause('skill_key')}`).run(args).changes,
      transcriptsForgotten: db.prepare('UPDATE files SET session_id = NULL, state = NULL WHERE session_id IN (SELECT id FROM wipe_sessions)').run().changes,
      responseCache: db.prepare('DELETE FROM llm_cache').run().changes,
    };
    // a cluster whose every member was in this project is gone too (its centroid holds their words)
    counts.clusters = db.prepare('DELETE FROM clusters WHERE id NOT IN (SELECT DISTINCT cluster_id FROM cluster_members)').run().changes;
    db.prepare('UPDATE clusters SET task_id = NULL WHERE task_id IN (SELECT id FROM wipe_tasks)').run();
    db.prepare('DELETE FROM sessions WHERE id IN (SELECT id FROM wipe_sessions)').run();
    const delProposal = db.prepare('DELETE FROM proposals WHERE id = ?');
    const delReceipts = db.prepare('DELETE FROM receipts WHERE proposal_id = ?');
    for (const p of proposals) {
      delReceipts.run(p.id);
      counts.proposals += delProposal.run(p.id).changes;
    }
    db.exec('DELETE FROM wipe_sessions; DELETE FROM wipe_tasks;');
    return { counts, proposalDirs: proposals.flatMap((p) => (p.dir ? [p.dir] : [])) };
  });
  return run.immediate();
}

/** Every folder sessions were stored under (their project, else their cwd), for the exclusion sweep. */
export function storedSessionFolders(db: Db): string[] {
  return db.prepare('SELECT DISTINCT coalesce(project, cwd) FROM sessions WHERE coalesce(project, cwd) IS NOT NULL').pluck().all() as string[];
}

/** How much the store holds, by table (for the wipe confirmation). */
export function tableCounts(db: Db): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ['sessions', 'events', 'tasks', 'proposals', 'runs', 'ledger'] as const) out[t] = db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  return out;
}

/** How much of one project the store holds (for the wipe confirmation). */
export function projectCounts(db: Db, project: string): { sessions: number; tasks: number; proposals: number } {
  const args = projectArgs(project);
  return {
    sessions: db.prepare(`SELECT count(*) FROM sessions WHERE ${underClause('project')} OR ${underClause('cwd')}`).pluck().get(args) as number,
    tasks: db.prepare(`SELECT count(*) FROM tasks WHERE ${underClause('project')}`).pluck().get(args) as number,
    proposals: db.prepare(`SELECT count(*) FROM proposals WHERE ${underClause("json_extract(record, '$.skillTarget.project')")} OR ${underClause('skill_path')}`).pluck().get(args) as number,
  };
}

/** Team-mode test fixtures: mined tasks in a member's store, and the whole team database as text. */
import pg from 'pg';
import { openDb } from '../../src/store/db.js';
import { upsertTask } from '../../src/store/repos/tasks.js';
import { makeTask } from './tasks.js';

/** `n` active tasks of `project` in the store at `dbFile`, each naming `marker` (a word to grep for). */
export function seedProjectTasks(dbFile: string, project: string, n: number, marker: string, opts: { secret?: string } = {}): void {
  const db = openDb(dbFile);
  try {
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        upsertTask(
          db,
          makeTask({
            id: `${marker}-task-${i}`,
            project,
            intent: `${marker}: update the changelog entry ${i} for the release in ${project}/CHANGELOG.md${i === 0 && opts.secret ? ` with api_key=${opts.secret}` : ''}`,
            context: `the changelog of ${marker} keeps one line per change; ${'context '.repeat(40)}`,
            judge: { checks: [{ id: 'c1', op: 'contains', value: `entry ${i}`, weight: 1, sealed: false }], reference: { kind: 'rule' } },
            split: i % 5 === 0 ? 'val' : 'train',
            corrections: [`${marker}: no, keep the PR number at the end (${i})`],
            occurrences: 2,
          }),
        );
      }
    })();
  } finally {
    db.close();
  }
}

/** Every row of every table of the database, as JSON text (what an isolation test greps). */
export async function dumpDatabase(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = await c.query<{ t: string }>("SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS t FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'");
    const parts: string[] = [];
    for (const { t } of tables.rows) {
      const rows = await c.query<{ j: string }>(`SELECT row_to_json(x)::text AS j FROM ${t} x`);
      parts.push(`-- ${t}`, ...rows.rows.map((r) => r.j));
    }
    return parts.join('\n');
  } finally {
    await c.end();
  }
}

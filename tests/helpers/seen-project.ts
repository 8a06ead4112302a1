/** Proposals only write inside projects the store has seen sessions in (src/proposals/targets.ts): tests that stage for a project record one. */
import type { Db } from '../../src/store/db.js';
import { upsertSession } from '../../src/store/repos/sessions.js';

export function markProjectSeen(db: Db, project: string, id = `claude-code:seen-${project}`): void {
  upsertSession(db, {
    id,
    agent: 'claude-code',
    vendorId: id.replace(/^claude-code:/, ''),
    project,
    cwd: project,
    gitBranch: null,
    startedAt: 1,
    endedAt: 2,
    kind: 'interactive',
    parentId: null,
    file: `/nonexistent/${id}.jsonl`,
    title: null,
    promptCount: 1,
    toolErrorCount: 0,
  });
}

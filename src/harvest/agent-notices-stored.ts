/**
 * The agent notices (agent-moves.ts) as the last harvest pass left them, for `status`: computing
 * them loads every agent's record, which a one-line command must not pay for (issue 40), so each
 * full harvest pass stores them and `status` reads one row.
 */
import type { Db } from '../store/db.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import type { AgentNotice } from './agent-moves.js';

const KV_AGENT_NOTICES = 'harvest.agentNotices';

export function storeAgentNotices(db: Db, notices: AgentNotice[]): void {
  kvSet(db, KV_AGENT_NOTICES, notices);
}

/** What the last harvest pass found; empty before the first one. */
export function storedAgentNotices(db: Db): AgentNotice[] {
  return kvGet<AgentNotice[]>(db, KV_AGENT_NOTICES) ?? [];
}

/**
 * The agents that delete their own transcripts, with only what `status` and `doctor` say of them:
 * names, config section and the retention reader. A light list beside the registry (index.ts) so
 * `status` does not load every agent's parser and CLI driver to print these lines (issue 40).
 * tests/unit/agent-retention.test.ts holds it equal to the registry's agents with a retention.
 */
import type { AgentId } from '../src/core/records.js';
import type { AgentRecord } from './agent.js';
import { claudeIdentity } from './claude-code/identity.js';
import { claudeRetention } from './claude-code/retention.js';

export type RetainingAgent = Pick<AgentRecord, 'displayName' | 'configKey'> & {
  id: AgentId;
  transcriptRetention: NonNullable<AgentRecord['transcriptRetention']>;
};

/** In registry order. */
export const RETAINING_AGENTS: readonly RetainingAgent[] = [{ ...claudeIdentity, transcriptRetention: claudeRetention }];

/** Shared bits of the agent-CLI integration tests: where the dev-installed CLIs are, a task to perform. */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './sandbox.js';
import type { LlmRequest, PerformPayload } from '../../src/core/protocol.js';
import type { Task } from '../../src/core/records.js';

export const NODE_BIN = path.join(REPO_ROOT, 'node_modules', '.bin');

/** Why a real CLI cannot run here (missing devDependency), or null when it can. */
export function cliMissing(binary: 'claude' | 'codex' | 'copilot'): string | null {
  const pkg = binary === 'claude' ? '@anthropic-ai/claude-code' : binary === 'codex' ? '@openai/codex' : '@github/copilot';
  const p = path.join(NODE_BIN, binary);
  if (!fs.existsSync(p)) return `${binary} CLI not installed in node_modules/.bin (devDependency ${pkg}); run npm install`;
  // claude's npm package ships a tiny stub that its postinstall replaces with the native binary
  if (binary === 'claude' && fs.statSync(fs.realpathSync(p)).size < 4096) return `${pkg} postinstall did not run (bin/claude.exe is still the stub); run npm rebuild ${pkg}`;
  return null;
}

export function sampleTask(intent: string): Task {
  return {
    id: 'task_release_notes',
    project: null,
    intent,
    context: '',
    reference: { kind: 'rule' },
    judge: { checks: [] },
    split: 'train',
    origin: 'real',
    occurrences: 2,
    firstSeen: 0,
    lastSeen: 0,
    status: 'active',
    agents: [],
  } as unknown as Task;
}

export function performRequest(prompt: string, skill: { name: string; content: string }): LlmRequest<'perform'> {
  const task = sampleTask(prompt);
  const payload: PerformPayload = { intent: task.intent, context: task.context, skill, sample: 0 };
  return { role: 'target', operation: 'perform', prompt, payload, runId: 'run_cli' };
}

/** Shared bits of the agent-CLI integration tests: where the dev-installed CLIs are, tasks to perform. */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './sandbox.js';
import type { LlmRequest, PerformPayload } from '../../src/core/protocol.js';
import type { Check, Task } from '../../src/core/records.js';

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

export function sampleTask(intent: string, checks: Check[] = [], project: string | null = null): Task {
  return {
    id: 'task_release_notes',
    project,
    intent,
    context: '',
    judge: { checks, reference: { kind: 'rule' } },
    split: 'train',
    origin: 'real',
    occurrences: 2,
    firstSeen: 0,
    lastSeen: 0,
    status: 'active',
    reviewed: false,
    corrections: [],
    agents: [],
  };
}

export function performRequest(prompt: string, skill: { name: string; content: string }): LlmRequest<'perform'> {
  const task = sampleTask(prompt);
  const payload: PerformPayload = { intent: task.intent, context: task.context, skill, sample: 0 };
  return { role: 'target', operation: 'perform', prompt, payload, runId: 'run_cli' };
}

/**
 * The changelog task of the done-criteria: its answer is right only when the agent read the seeded
 * CHANGELOG.md (the existing 1.2.0 entry must survive) and edited it (the new entry is in the file).
 */
export function changelogTask(project: string | null): Task {
  return {
    ...sampleTask('Add the changelog entry for PR 418 (fixes the export crash) as version 1.2.1.', [
      { id: 'keeps-history', op: 'contains', value: '## 1.2.0', target: 'file:CHANGELOG.md', weight: 1, sealed: false },
      { id: 'new-entry', op: 'contains', value: 'PR 418', target: 'file:CHANGELOG.md', weight: 1, sealed: false },
    ], project),
    id: 'task_changelog',
  };
}

/** Every file under an agent home (or any folder), for "unchanged after a night" assertions. */
export function countFiles(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((rel) => fs.lstatSync(path.join(dir, String(rel))).isFile()).length;
}

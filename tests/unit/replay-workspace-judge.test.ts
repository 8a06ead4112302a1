/**
 * The pure parts of replays in a seeded workspace: checks that read a changed file or the diff,
 * the rubric judge seeing the changes, the outcome check, the model end-of-life table (kept in step
 * with the bundled Anthropic SDK's own), the Codex provider-only config and the CLI flags that keep
 * replays out of the user's agents.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckSchema, type ReplayWorkspace } from '../../src/core/records.js';
import { validateCheck } from '../../src/core/checks.js';
import { evaluateTargeted, judgeResponse, withChanges } from '../../src/replay/judge.js';
import { MODEL_END_OF_LIFE, modelLifeStatus } from '../../src/llm/model-eol.js';
import { modelLifeChecks } from '../../src/llm/doctor-probe.js';
import { ConfigSchema } from '../../src/core/config.js';
import { buildClaudeInvocation } from '../../adapters/claude-code/exec.js';
import { buildCodexInvocation, codexProviderConfig } from '../../adapters/codex/exec.js';
import { REPO_ROOT } from '../helpers/sandbox.js';
import { sampleTask } from '../helpers/llm-cli.js';

const ws = (over: Partial<ReplayWorkspace> = {}): ReplayWorkspace => ({
  seeded: true,
  skillDelivery: 'native',
  changedFiles: [{ path: 'CHANGELOG.md', status: 'modified', content: '# Changelog\n\n## 1.2.1\n- Fixed (PR 418)\n\n## 1.2.0\n' }],
  diff: '+## 1.2.1\n+- Fixed (PR 418)\n',
  ...over,
});

describe('checks on what the agent changed', () => {
  const check = (target: string, value: string) => CheckSchema.parse({ id: 'c', op: 'contains', value, target });

  it('file:<path> reads the changed file, diff reads the diff, reply stays the default', () => {
    expect(evaluateTargeted(check('file:CHANGELOG.md', 'PR 418'), 'nothing here', [], ws()).passed).toBe(true);
    expect(evaluateTargeted(check('file:./CHANGELOG.md', '## 1.2.0'), '', [], ws()).passed).toBe(true);
    expect(evaluateTargeted(check('diff', '+- Fixed'), '', [], ws()).passed).toBe(true);
    expect(evaluateTargeted(check('reply', 'PR 418'), 'the reply names PR 418', [], ws()).passed).toBe(true);
    const r = evaluateTargeted(check('file:CHANGELOG.md', '## 1.3.0'), '', [], ws());
    expect(r).toMatchObject({ passed: false });
    expect(r.feedback).toContain('the changed CHANGELOG.md must include "## 1.3.0"');
  });

  it('a file the agent did not change fails, with feedback that says so (and none when sealed)', () => {
    const r = evaluateTargeted(check('file:src/routes.ts', 'x'), 'x', [], ws());
    expect(r).toMatchObject({ passed: false, score: 0 });
    expect(r.feedback).toMatch(/must change src\/routes.ts/);
    expect(evaluateTargeted({ ...check('file:src/routes.ts', 'x'), sealed: true }, 'x', [], undefined).feedback).toBe('');
  });

  it('a bad target is a clear validation error', () => {
    expect(() => CheckSchema.parse({ id: 'c', op: 'contains', value: 'x', target: 'files' })).toThrow(/target is reply, diff or file:<path>/);
    expect(() => validateCheck({ id: 'c', op: 'contains', value: 'x', target: 'file:', weight: 1, sealed: false })).toThrow(/target must be reply, diff or file:<path>/);
  });

  it('the rubric judge is shown the changed files and the diff; the outcome command scores by exit code', async () => {
    expect(withChanges('done', ws())).toContain('- modified: CHANGELOG.md');
    expect(withChanges('done', ws())).toContain('+- Fixed (PR 418)');
    expect(withChanges('done', undefined)).toBe('done');
    const task = sampleTask('fix lint', [{ id: 'k', op: 'no_refusal', weight: 1, sealed: false }]);
    const outcome = { command: 'npm run lint', exitCode: 1, timedOut: false, network: 'no network (unshare -n)', ms: 10, tail: 'no var' };
    const failed = await judgeResponse(task, 'Fixed it.', [], undefined, { workspace: ws({ outcome }) });
    expect(failed.hardScore).toBe(0);
    expect(failed.softScore).toBeCloseTo(0.5);
    expect(failed.feedback).toMatch(/`npm run lint` failed .* exited with 1/);
    const passed = await judgeResponse(task, 'Fixed it.', [], undefined, { workspace: ws({ outcome: { ...outcome, exitCode: 0 } }) });
    expect(passed.hardScore).toBe(1);
    const hung = await judgeResponse(task, 'Fixed it.', [], undefined, { workspace: ws({ outcome: { ...outcome, exitCode: null, timedOut: true } }) });
    expect(hung.hardScore).toBe(0);
    expect(hung.feedback).toMatch(/killed at its time limit/);
  });
});

describe('models past their end of life', () => {
  it('matches the bundled Anthropic SDK deprecation table', () => {
    const sdk = fs.readFileSync(path.join(REPO_ROOT, 'node_modules/@anthropic-ai/sdk/internal/data/deprecated-models.js'), 'utf8');
    const names = [...sdk.matchAll(/'([a-z0-9.-]+)':\s*'[^']+'/g)].map((m) => m[1]).sort();
    expect(Object.keys(MODEL_END_OF_LIFE).sort()).toEqual(names);
  });

  it('retired after the day, deprecated before, current when none is announced; doctor fails the default only when retired', () => {
    expect(modelLifeStatus('claude-sonnet-4-5', new Date('2026-12-01T00:00:00Z'))).toEqual({ model: 'claude-sonnet-4-5', endOfLife: '2026-11-30', state: 'retired' });
    expect(modelLifeStatus('anthropic/claude-sonnet-4-5', new Date('2026-11-30T12:00:00Z')).state).toBe('deprecated');
    expect(modelLifeStatus('claude-sonnet-4-6', new Date('2026-12-01T00:00:00Z')).state).toBe('current');
    expect(modelLifeChecks(ConfigSchema.parse({}), new Date('2026-12-01T00:00:00Z'))).toEqual([]); // the default model exists today
    const old = modelLifeChecks(ConfigSchema.parse({ backends: { anthropic: { model: 'claude-sonnet-4-5' } } }), new Date('2026-12-01T00:00:00Z'));
    expect(old).toEqual([expect.objectContaining({ name: 'model claude-sonnet-4-5', status: 'fail' })]);
    // a model no config names but the ledger shows an agent CLI running (its own default) is checked too
    const used = modelLifeChecks(ConfigSchema.parse({}), new Date('2026-12-01T00:00:00Z'), [
      { backend: 'claude', model: 'claude-sonnet-4-5-20250929' },
      { backend: 'codex', model: 'gpt-5.1-codex' },
    ]);
    expect(used).toEqual([
      expect.objectContaining({ name: 'model claude-sonnet-4-5-20250929', status: 'fail', detail: expect.stringContaining('used by the claude backend in the last 30 days, not configured') }),
    ]);
    expect(used[0].fix).toMatch(/roles\.target\.model/);
  });
});

describe('agent CLI flags for replays', () => {
  it('claude never persists the session; codex is ephemeral, workspace-write for the target with /tmp excluded, read-only without a shell otherwise', () => {
    expect(buildClaudeInvocation({ prompt: 'p', workspace: '/w', mode: 'agent' }).argv).toContain('--no-session-persistence');
    const agent = buildCodexInvocation({ prompt: 'p', workspace: '/w', mode: 'agent' }).argv;
    expect(agent).toEqual(expect.arrayContaining(['--ephemeral', 'workspace-write', 'sandbox_workspace_write.exclude_slash_tmp=true', 'sandbox_workspace_write.exclude_tmpdir_env_var=true']));
    expect(agent).not.toContain('shell_tool');
    const text = buildCodexInvocation({ prompt: 'p', workspace: '/w', mode: 'text' }).argv;
    expect(text).toEqual(expect.arrayContaining(['--ephemeral', 'read-only', 'shell_tool', 'unified_exec']));
  });

  it('only the model-provider part of a Codex config.toml reaches the private home', () => {
    const toml = [
      'model = "gpt-5-mini"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'experimental_instructions_file = "/home/me/instr.md"',
      '[model_providers.fake]',
      'name = "fake"',
      'base_url = "http://127.0.0.1:1/v1"',
      '[mcp_servers.github]',
      'command = "gh-mcp"',
      '[profiles.work]',
      'model = "o3"',
    ].join('\n');
    expect(codexProviderConfig(toml)).toBe('model = "gpt-5-mini"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:1/v1"\n');
    expect(codexProviderConfig('[mcp_servers.x]\ncommand = "y"\n')).toBe('');
  });
});

describe('cache-read tokens are kept apart', () => {
  it('from the claude result event into the ledger and its totals', async () => {
    const { parseClaudeOutput } = await import('../../adapters/claude-code/exec.js');
    const { openDb } = await import('../../src/store/db.js');
    const { recordEgress, listEgress, totalsByDestination } = await import('../../src/llm/ledger.js');
    const { makeTempDir } = await import('../helpers/sandbox.js');
    const out = [
      JSON.stringify({ type: 'system', subtype: 'init', model: 'claude-sonnet-4-6', session_id: 's' }),
      JSON.stringify({ type: 'result', subtype: 'success', result: 'ok', total_cost_usd: 0.02, usage: { input_tokens: 100, cache_read_input_tokens: 9000, cache_creation_input_tokens: 50, output_tokens: 20 } }),
    ].join('\n');
    const parsed = parseClaudeOutput(out);
    expect(parsed).toMatchObject({ tokensIn: 9150, cacheReadTokens: 9000, tokensOut: 20, costUsd: 0.02, model: 'claude-sonnet-4-6' });
    const dir = makeTempDir();
    const db = openDb(path.join(dir, 'l.db'));
    try {
      const base = { ts: 1, runId: 'r', role: 'target', backend: 'claude', model: 'claude-sonnet-4-6', destination: 'claude', bytesSent: 10, redactions: 0, contentHash: 'h', tokensOut: 20, costUsd: 0.02, ok: true, error: null };
      recordEgress(db, { ...base, tokensIn: 9150, cacheReadTokens: 9000 });
      recordEgress(db, { ...base, tokensIn: 100 });
      const rows = listEgress(db, { runId: 'r' });
      expect(rows.map((r) => r.cacheReadTokens)).toEqual([9000, 0]);
      expect(totalsByDestination(rows)[0]).toMatchObject({ calls: 2, tokensIn: 9250, cacheReadTokens: 9000 });
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the night report line about replay workspaces', () => {
  const base = { taskId: 't', skillHash: 'h', sample: 0, backend: 'claude', model: 'm', response: '', toolsCalled: [], hardScore: 1, softScore: 1, checks: [], feedback: '', tokensIn: 0, tokensOut: 0, costUsd: 0, latencyMs: 0, cached: false };
  const commit = 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0';

  it('says the commit each replay started from, reuse, empty workspaces and why, skill loading and outcome runs', async () => {
    const { summarizeReplayWorkspaces, describeReplayWorkspaces } = await import('../../src/replay/index.js');
    const outcome = { command: 'npm run lint', exitCode: null, timedOut: true, network: 'x', ms: 1, tail: '' };
    const s = summarizeReplayWorkspaces([
      { ...base, workspace: ws({ skillLoaded: true, commit, ref: 'refs/heads/main' }) },
      { ...base, workspace: ws({ skillLoaded: true, commit, ref: 'refs/heads/main', reused: true }) },
      { ...base, workspace: ws({ seeded: false, reason: 'no repository is recorded for this task', changedFiles: [], skillLoaded: false, outcome }) },
      base,
    ]);
    expect(s).toMatchObject({ rollouts: 4, withWorkspace: 3, seeded: 2, reused: 1, commits: { 'a1b2c3d4e5f6 on main': 2 }, skillLoaded: 2, skillNotLoaded: 1, changedFiles: 2, outcome: { ran: 1, passed: 0, timedOut: 1 } });
    expect(describeReplayWorkspaces(s)).toBe(
      'replays: 2/3 seeded from the repository at a1b2c3d4e5f6 on main, 1 in a reused workspace reset to it (1 empty: no repository is recorded for this task), skill loaded by the agent in 2/3, files changed in 2, outcome command passed 0/1 (1 killed at the limit)',
    );
  });

  it('names several commits with their counts and the note of a branch that was gone', async () => {
    const { summarizeReplayWorkspaces, describeReplayWorkspaces } = await import('../../src/replay/index.js');
    const other = 'ffffeeeeddddccccbbbbaaaa9999888877776666';
    const s = summarizeReplayWorkspaces([
      { ...base, workspace: ws({ commit, ref: 'refs/heads/main' }) },
      { ...base, workspace: ws({ commit: other, ref: 'HEAD', reason: 'branch feature/x is gone; used HEAD' }) },
    ]);
    expect(describeReplayWorkspaces(s)).toBe(
      'replays: 2/2 seeded from the repository at a1b2c3d4e5f6 on main (1), ffffeeeedddd on HEAD (1) (1: branch feature/x is gone; used HEAD), files changed in 2',
    );
    expect(describeReplayWorkspaces(summarizeReplayWorkspaces([base]))).toBe('');
  });

  it('the night report prints the line under its skill', async () => {
    const { renderNightReport } = await import('../../src/night/report.js');
    const { summarizeReplayWorkspaces } = await import('../../src/replay/index.js');
    const replays = summarizeReplayWorkspaces([{ ...base, workspace: ws({ commit, ref: 'refs/heads/main' }) }]);
    const text = renderNightReport({
      schema: 'skillopt-sleep.night.v1',
      id: 'n1',
      status: 'nothing_staged',
      dryRun: false,
      startedAt: '2026-12-01T00:00:00Z',
      endedAt: null,
      project: null,
      deadline: null,
      backends: null,
      harvest: null,
      mining: null,
      forecast: null,
      limits: { maxUsd: 1, maxTokens: 1, maxCalls: 1, maxTasks: 1, deadline: '06:00' },
      used: { usd: 0, tokens: 0, calls: 0 },
      items: [{ target: { name: 'changelog', path: '/p/SKILL.md', kind: 'skill', readBy: [] }, project: null, routedBy: 'project', tasks: { train: 1, val: 1, test: 0, ids: { train: [], val: [], test: [] } }, status: 'not_improved', replays }],
      proposals: [],
      summary: 's',
      notes: [],
      recovered: [],
    });
    expect(text).toContain('- **changelog** replays: 1/1 seeded from the repository at a1b2c3d4e5f6 on main, files changed in 1');
  });
});

/**
 * Every transcript fixture in tests/fixtures, parsed by its adapter, matches its agent's
 * expected.json: prompts, final answers, tool names in order, tool-error counts, and the files that
 * must be skipped as sub-agents.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentOfFile } from '../../adapters/index.js';
import { processFile } from '../../src/harvest/process-file.js';
import { CLAUDE_PROJECT_DIR, expectedFor, FIXTURE_AGENTS, fixtureFile, VSCODE_WORKSPACE, type FixtureAgent } from '../helpers/fixtures.js';

function parseFixture(home: FixtureAgent, rel: string) {
  const file = fixtureFile(home, rel);
  const agent = agentOfFile(file);
  if (!agent) throw new Error(`not recognised as a transcript: ${rel}`);
  const r = processFile({ path: file, agent, offset: 0, state: null, headHash: null, headLen: 0, maxLineBytes: 8 << 20 });
  if (!r.output) throw new Error(r.error ?? 'no output');
  return { agent, result: r, session: r.output.session, events: r.output.events };
}

function expectedErrors(v: number | string | undefined): number {
  if (typeof v === 'number') return v;
  if (!v) return 0;
  const lead = Number(/^(\d+)/.exec(v)?.[1] ?? 0);
  const plus = [...v.matchAll(/\+ (\d+)/g)].reduce((s, m) => s + Number(m[1]), 0);
  return lead + plus;
}

const normTool = (t: string) => t.replace(/\s+\(.*\)$/, '').replace(/^shell\(apply_patch\)$/, 'apply_patch');

describe.each(FIXTURE_AGENTS)('%s fixtures match expected.json', (home) => {
  const expected = expectedFor(home);
  it('has an oracle entry for every transcript', () => expect(Object.keys(expected).length).toBeGreaterThanOrEqual(3));
  for (const [rel, exp] of Object.entries(expected)) {
    it(rel, () => {
      const { session, events, result } = parseFixture(home, rel);
      if (exp.skip !== undefined && !exp.prompts) {
        expect(session?.kind).toBe('subagent');
        expect(session?.parentId).toBeTruthy();
        return;
      }
      expect(result.error).toBeUndefined();
      const vendor = exp.sessionId ?? exp.thread_id;
      expect(session?.vendorId).toBe(vendor);
      const prompts = events.filter((e) => e.kind === 'prompt').map((e) => e.text);
      expect(prompts).toEqual((exp.prompts ?? []).map((p) => p.replace(/\s+\(only via .*\)$/, '')));
      const finals = events.filter((e) => e.meta.final === true).map((e) => e.text);
      const wantFinals = (exp.finals ?? []).filter((f) => !f.startsWith('<'));
      expect(finals).toEqual(wantFinals);
      expect(events.filter((e) => e.kind === 'tool_call').map((e) => e.toolName)).toEqual((exp.tools ?? []).map(normTool));
      const errors = events.filter((e) => e.isError).length;
      expect(errors).toBe(expectedErrors(exp.tool_errors));
      expect(session?.promptCount).toBe(prompts.length);
    });
  }
});

describe('fixture files that are not plain transcripts', () => {
  it('holds back the truncated last line of the four ✂ files', () => {
    for (const [home, rel] of [
      ['claude-code', `${CLAUDE_PROJECT_DIR}/9c1e4a3d-6b27-4e0f-8d52-31f7a0c6b9e4.jsonl`],
      ['codex', 'sessions/2026/10/15/rollout-2026-10-15T16-20-05-01a13fef-3d0b-7735-afdb-86863e345c95.jsonl'],
      ['copilot-cli', 'session-state/b91e6a2c-3d4f-4a5b-8c6d-7e8f9a0b1c2d/events.jsonl'],
      ['copilot-vscode', `User/workspaceStorage/${VSCODE_WORKSPACE}/chatSessions/1b7e2c4d-5a6f-4e8b-9c0d-2e3f4a5b6c7d.jsonl`],
    ] as const) {
      const { result } = parseFixture(home, rel);
      const size = fs.statSync(fixtureFile(home, rel)).size;
      expect(fs.readFileSync(fixtureFile(home, rel), 'utf8').endsWith('\n'), rel).toBe(false);
      expect(result.pending, rel).toBeGreaterThan(0);
      if (home !== 'copilot-vscode') expect(result.offset + result.pending, rel).toBe(size);
      expect(result.skipped.malformed ?? 0, rel).toBe(0);
    }
  });

  it('does not treat history.jsonl, session_index.jsonl or workspace.json as transcripts', () => {
    for (const [home, rel] of [
      ['claude-code', 'history.jsonl'],
      ['codex', 'history.jsonl'],
      ['codex', 'session_index.jsonl'],
      ['copilot-vscode', `User/workspaceStorage/${VSCODE_WORKSPACE}/workspace.json`],
    ] as const) {
      expect(fs.existsSync(fixtureFile(home, rel)), rel).toBe(true);
      expect(agentOfFile(fixtureFile(home, rel)), rel).toBeNull();
    }
  });
});

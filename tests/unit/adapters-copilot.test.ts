/** Copilot pitfalls: VS Code mutation-log replay (docs/transcript-formats.md §3.2/3.5) and Copilot CLI events (§4.5). */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyMutation, VscodeChatParser } from '../../adapters/copilot/vscode.js';
import { CopilotCliParser, copilotExitIsError } from '../../adapters/copilot/cli-events.js';
import { copilotCliHomes, isCopilotTranscript, vscodeUserDirs } from '../../adapters/copilot/paths.js';
import { defaultConfig } from '../../src/core/config.js';
import { readCopilotSessionUsage } from '../../adapters/copilot/exec.js';

describe('ObjectMutationLog replay', () => {
  it('applies set, push with truncation, set without v, and delete in order', () => {
    let s: unknown = applyMutation(undefined, { kind: 0, v: { requests: [], title: 'x' } });
    s = applyMutation(s, { kind: 2, k: ['requests'], v: [{ response: [{ value: 'a' }, { value: 'b' }] }] });
    s = applyMutation(s, { kind: 2, k: ['requests', 0, 'response'], i: 1, v: [{ value: 'B!' }] });
    s = applyMutation(s, { kind: 1, k: ['requests', 0, 'vote'], v: 1 });
    s = applyMutation(s, { kind: 1, k: ['requests', 0, 'vote'] });
    s = applyMutation(s, { kind: 3, k: ['title'] });
    expect(s).toEqual({ requests: [{ response: [{ value: 'a' }, { value: 'B!' }] }] });
    expect(() => applyMutation(s, { kind: 1, k: ['missing', 0, 'x'], v: 1 })).toThrow();
  });

  it('survives a bad entry, skips system-initiated requests, takes the final response value', () => {
    const p = new VscodeChatParser('/u/workspaceStorage/w/chatSessions/s1.jsonl');
    p.line({ kind: 0, v: { sessionId: 's1', creationDate: 1, requests: [] } });
    p.line({ kind: 2, k: ['requests'], v: [{ requestId: 'r1', timestamp: 2, message: { text: 'lint it' }, response: [{ value: 'draft' }] }] });
    p.line({ kind: 1, k: ['nope', 3, 'x'], v: 1 }); // bad path: counted, not fatal
    p.line({ kind: 2, k: ['requests', 0, 'response'], i: 0, v: [{ value: 'Final answer.' }] });
    p.line({ kind: 1, k: ['requests', 0, 'modelState'], v: { value: 1, completedAt: 3 } });
    p.line({ kind: 2, k: ['requests'], v: [{ requestId: 'r2', timestamp: 4, isSystemInitiated: true, message: { text: 'terminal exited' }, response: [] }] });
    const out = p.flush();
    expect(out.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['lint it']);
    expect(out.events.filter((e) => e.meta.final).map((e) => e.text)).toEqual(['Final answer.']);
    expect(out.skipped['replay-error']).toBe(1);
    expect(out.skipped['system-initiated']).toBe(1);
  });
});

describe('Copilot CLI parser', () => {
  const ev = (type: string, data: object, extra: object = {}) => ({ type, data, id: Math.random().toString(36), timestamp: '2026-10-01T00:00:00.000Z', parentId: null, ...extra });
  it('skips sub-agent events and hidden skill messages, reads exit markers', () => {
    const p = new CopilotCliParser('/c/session-state/abc/events.jsonl', undefined);
    for (const e of [
      ev('session.start', { sessionId: 'abc', context: { cwd: '/w', gitRoot: '/w', branch: 'main' } }),
      ev('user.message', { content: 'run tests' }),
      ev('user.message', { content: '<skill-context name="x">…', source: 'skill-x' }),
      ev('assistant.message', { content: '', toolRequests: [{ toolCallId: 't1', name: 'bash', arguments: { command: 'npm test' } }] }),
      ev('assistant.message', { content: 'sub-agent text', toolRequests: [] }, { agentId: 'explore-1' }),
      ev('tool.execution_complete', { toolCallId: 't1', success: true, result: { content: 'FAIL\n<exited with exit code 1>' } }),
      ev('assistant.message', { content: 'Tests fail in parse.ts.', toolRequests: [] }),
    ])
      p.line(e);
    const out = p.flush();
    expect(out.events.map((e) => e.kind)).toEqual(['prompt', 'tool_call', 'tool_result', 'text']);
    expect(out.events[2].isError).toBe(true);
    expect(out.events[3].meta.final).toBe(true);
    expect(out.session?.gitRoot).toBe('/w');
    expect(out.skipped.subagent).toBe(1);
    expect(copilotExitIsError('ok\n<exited with exit code 0>')).toBe(false);
  });
});

describe('Copilot paths', () => {
  it('VS Code user dirs per OS and portable; COPILOT_HOME', () => {
    const cfg = defaultConfig();
    expect(vscodeUserDirs(cfg, { env: {}, platform: 'linux', homedir: '/home/u' })).toContain('/home/u/.config/Code - Insiders/User');
    expect(vscodeUserDirs(cfg, { env: {}, platform: 'darwin', homedir: '/Users/u' })).toContain('/Users/u/Library/Application Support/Code/User');
    expect(vscodeUserDirs(cfg, { env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, platform: 'win32', homedir: 'C:\\Users\\u' })).toContain(
      'C:\\Users\\u\\AppData\\Roaming\\VSCodium\\User',
    );
    expect(vscodeUserDirs(cfg, { env: { VSCODE_PORTABLE: '/p' }, platform: 'linux', homedir: '/home/u' })).toContain('/p/user-data/User');
    expect(copilotCliHomes(cfg, { env: { COPILOT_HOME: '/cp' }, platform: 'linux', homedir: '/home/u' })).toEqual(['/cp']);
    expect(isCopilotTranscript('/u/workspaceStorage/abc/chatSessions/s.jsonl')).toBe(true);
    expect(isCopilotTranscript('/u/globalStorage/emptyWindowChatSessions/s.json')).toBe(true);
    expect(isCopilotTranscript('/u/workspaceStorage/abc/workspace.json')).toBe(false);
    expect(isCopilotTranscript('/cp/session-state/abc/events.jsonl')).toBe(true);
    expect(isCopilotTranscript('/cp/session-state/abc.jsonl')).toBe(true);
    expect(isCopilotTranscript('/cp/session-state/abc/workspace.yaml')).toBe(false);
  });
});

describe("Copilot's token counts from its own session log", () => {
  const write = (lines: unknown[]): string => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-cp-usage-'));
    fs.mkdirSync(path.join(home, 'session-state', 'sess-1'), { recursive: true });
    fs.writeFileSync(path.join(home, 'session-state', 'sess-1', 'events.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return home;
  };
  const parsed = { text: 'done', tokensIn: 0, tokensOut: 0, toolsCalled: [], sessionId: 'sess-1' };
  const record = (inputTokens: number, outputTokens: number, cacheReadTokens = 0) => ({ type: 'session.usage_record', data: { usage: { model: 'gpt-5-mini', inputTokens, outputTokens, cacheReadTokens } } });

  it('takes the totals of session.shutdown (per model) when the run ended cleanly', () => {
    const home = write([
      record(100, 10),
      record(200, 20, 150),
      { type: 'session.shutdown', data: { modelMetrics: { 'gpt-5-mini': { requests: { count: 2 }, usage: { inputTokens: 300, outputTokens: 30, cacheReadTokens: 150, cacheWriteTokens: 0 } } } } },
    ]);
    expect(readCopilotSessionUsage(home, parsed)).toEqual({ tokensIn: 300, tokensOut: 30, cacheReadTokens: 150, model: 'gpt-5-mini' });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('sums the per-call records when the process was cut before its shutdown event', () => {
    const home = write([record(100, 10), record(200, 20)]);
    expect(readCopilotSessionUsage(home, parsed)).toEqual({ tokensIn: 300, tokensOut: 30, model: 'gpt-5-mini' });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('finds nothing without a session id, a log, or counts (the caller estimates then)', () => {
    const home = write([{ type: 'session.start', data: {} }]);
    expect(readCopilotSessionUsage(home, parsed)).toBeUndefined();
    expect(readCopilotSessionUsage(home, { ...parsed, sessionId: undefined })).toBeUndefined();
    expect(readCopilotSessionUsage(home, { ...parsed, sessionId: '../../etc' })).toBeUndefined();
    expect(readCopilotSessionUsage('/nonexistent', parsed)).toBeUndefined();
    fs.rmSync(home, { recursive: true, force: true });
  });
});

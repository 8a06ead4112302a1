/** Codex pitfalls beyond the shared fixtures (docs/transcript-formats.md §2.6). */
import { describe, expect, it } from 'vitest';
import { cleanCodexPrompt, CodexParser, codexOutputIsError, codexPrefilter, uuidV7Ms } from '../../adapters/codex/parse.js';
import { codexHomes, codexIdFromPath, isCodexTranscript } from '../../adapters/codex/paths.js';
import { defaultConfig } from '../../src/core/config.js';

const FILE = '/h/.codex/sessions/2026/10/20/rollout-2026-10-20T10-00-00-019a0000-0000-7000-8000-000000000001.jsonl';
const env = (type: string, payload: object, ts = '2026-10-20T08:00:00.000Z') => ({ timestamp: ts, type, payload });
const userMsg = (text: string) => env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const asstMsg = (text: string, phase?: string) => env('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], ...(phase ? { phase } : {}) });

function parse(rows: object[], file = FILE) {
  const p = new CodexParser(file, undefined);
  for (const r of rows) p.line(r as Record<string, unknown>);
  return p.flush();
}

/** A UUIDv7 for a given millisecond time. */
function v7(ms: number): string {
  const h = ms.toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7000-8000-000000000000`;
}

describe('Codex parser', () => {
  it('strips several injected blocks before the real prompt, and the 2025 request marker', () => {
    expect(cleanCodexPrompt('<environment_context>\n<cwd>/w</cwd>\n</environment_context>\n<user_instructions>x</user_instructions>\nfix the bug')).toBe('fix the bug');
    expect(cleanCodexPrompt('# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>')).toBe('');
    expect(cleanCodexPrompt('<subagent_notification>{"agent_id":"x"}</subagent_notification>')).toBe('');
    expect(cleanCodexPrompt('context…\n## My request for Codex:\nadd a test')).toBe('add a test');
  });

  it('reads exit status from every output format', () => {
    expect(codexOutputIsError('Chunk ID: a\nWall time: 1 seconds\nProcess exited with code 2\nOutput:\n')).toBe(true);
    expect(codexOutputIsError('Chunk ID: a\nProcess exited with code 0\nOutput:\nok')).toBe(false);
    expect(codexOutputIsError('Exit code: 1\nWall time: 0.1 seconds\nOutput:\n')).toBe(true);
    expect(codexOutputIsError('{"output":"x","metadata":{"exit_code":127,"duration_seconds":0.1}}')).toBe(true);
    expect(codexOutputIsError('{"output":"x","metadata":{"exit_code":0}}')).toBe(false);
    expect(codexOutputIsError('apply_patch verification failed: Failed to find expected lines')).toBe(true);
    expect(codexOutputIsError('aborted by user after 9.4s')).toBe(true);
    expect(codexOutputIsError('Process running with session ID 3')).toBe(false);
  });

  it('reads prompts from response items only (legacy user_message events are duplicates)', () => {
    const out = parse([
      env('session_meta', { id: '019a0000-0000-7000-8000-000000000001', cwd: '/w', source: 'cli', history_mode: 'legacy' }),
      userMsg('do it'),
      env('event_msg', { type: 'user_message', message: 'do it' }),
      asstMsg('working on it', 'commentary'),
      env('event_msg', { type: 'agent_message', message: 'working on it', phase: 'commentary' }),
      asstMsg('done'),
      env('event_msg', { type: 'task_complete', last_agent_message: 'done' }),
    ]);
    expect(out.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['do it']);
    expect(out.events.filter((e) => e.meta.final).map((e) => e.text)).toEqual(['done']);
  });

  it('drops the replayed parent history of a fork', () => {
    const forkAt = Date.parse('2026-10-20T08:00:00.000Z');
    const out = parse([
      env('session_meta', { id: '019a0000-0000-7000-8000-000000000001', forked_from_id: 'parent', timestamp: '2026-10-20T08:00:00.000Z', cwd: '/w', source: 'cli' }),
      env('session_meta', { id: 'parent', cwd: '/w', source: 'cli' }),
      env('turn_context', { turn_id: v7(forkAt - 60_000), cwd: '/w' }),
      userMsg('old parent prompt'),
      asstMsg('old answer', 'final_answer'),
      env('turn_context', { turn_id: v7(forkAt + 1000), cwd: '/w' }),
      userMsg('new prompt in the fork'),
    ]);
    expect(out.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['new prompt in the fork']);
    expect(out.session?.id).toBe('codex:019a0000-0000-7000-8000-000000000001');
    expect(out.skipped['fork-replay']).toBeGreaterThan(0);
  });

  it('classifies exec and sub-agent rollouts', () => {
    expect(parse([env('session_meta', { id: 'a', originator: 'codex_exec', source: 'exec' })]).session?.kind).toBe('headless');
    const sub = parse([env('session_meta', { id: 'b', source: { subagent: { thread_spawn: { parent_thread_id: 'p', depth: 1 } } } })]).session;
    expect(sub?.kind).toBe('subagent');
    expect(sub?.parentId).toBe('codex:p');
  });

  it('prefilters bookkeeping lines without parsing them', () => {
    expect(codexPrefilter('{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}')).toBe('event');
    expect(codexPrefilter('{"timestamp":"t","type":"world_state","payload":{"full":true}}')).toBe('side-channel');
    expect(codexPrefilter('{"timestamp":"t","ordinal":3,"type":"response_item","payload":{"type":"reasoning","summary":[]}}')).toBe('side-channel');
    expect(codexPrefilter('{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete"}}')).toBeNull();
    expect(codexPrefilter('{"timestamp":"t","type":"response_item","payload":{"type":"message"}}')).toBeNull();
  });

  it('paths: CODEX_HOME, ids from file names (forks: the last UUID)', () => {
    expect(codexHomes(defaultConfig(), { env: { CODEX_HOME: '/c' }, platform: 'linux', homedir: '/home/u' })).toEqual(['/c']);
    expect(codexHomes(defaultConfig(), { env: {}, platform: 'linux', homedir: '/home/u' })).toEqual(['/home/u/.codex']);
    expect(codexIdFromPath('/c/sessions/2026/10/20/rollout-2026-10-20T10-00-00-aaaaaaaa-0000-7000-8000-000000000001_bbbbbbbb-0000-7000-8000-000000000002.jsonl')).toBe(
      'bbbbbbbb-0000-7000-8000-000000000002',
    );
    expect(isCodexTranscript('/c/archived_sessions/rollout-x.jsonl')).toBe(true);
    expect(isCodexTranscript('/c/history.jsonl')).toBe(false);
    expect(uuidV7Ms(v7(1234567))).toBe(1234567);
  });
});

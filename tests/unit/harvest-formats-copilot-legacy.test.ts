/**
 * Copilot CLI legacy sessions `~/.copilot/history-session-state/session_<id>_<ts>.json`
 * (docs/transcript-formats.md §4.1): one JSON document with `chatMessages` and `timeline`.
 *
 * The fixture below is written for this project (fictional content) in the shape other readers of
 * these files parse: file name `session_<uuid>_<timestamp>.json` and the fields `sessionId`,
 * `startTime`, `chatMessages` (`{role, content, tool_calls?}`), `timeline` (`{id, timestamp, type,
 * text}`) and `<reminder>` tags in user content (a `CopilotSessionSource` TypeScript reader); timeline
 * types `user`/`copilot`/`tool_call_requested`/`tool_call_completed`/`info` with `callId`, `name`,
 * `toolTitle`, `intentionSummary`, `arguments`, `result {type, log}` (a GitHub Copilot timeline
 * parser, and a Rust usage tracker's legacy analyzer); OpenAI-style `tool_calls[].function
 * {name, arguments}` and `role: "tool"` messages (promptimizer's ingest tests).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentOfFile } from '../../adapters/index.js';
import { CopilotLegacyParser, copilotLegacyName } from '../../adapters/copilot/legacy.js';
import { copilotReadMode, createCopilotParser } from '../../adapters/copilot/parse.js';
import { copilotRoots, isCopilotLegacyFile, isCopilotTranscript, listCopilotFiles } from '../../adapters/copilot/paths.js';
import { processFile } from '../../src/harvest/process-file.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { getSession } from '../../src/store/repos/sessions.js';
import { listEvents } from '../../src/store/repos/events.js';
import { makeSandbox, makeTempDir, type Sandbox } from '../helpers/sandbox.js';

const SID = '5b0e1c2d-8a9f-4e3b-a6c7-0d1e2f3a4b5c';
const FILE_NAME = `session_${SID}_1758186723114.json`;
const PARSE_TS = '/home/dana/src/ledgerline/src/parse.ts';
const T = (s: number) => new Date(Date.parse('2025-09-18T09:12:03.114Z') + s * 1000).toISOString();

/** A legacy session: two turns, a viewed file, a failing test run, an info entry. */
function legacyDoc(): Record<string, unknown> {
  const viewArgs = { command: 'view', path: PARSE_TS };
  const bashArgs = { command: 'npx vitest run test/parse.test.ts', description: 'Run the parser tests' };
  return {
    sessionId: SID,
    startTime: T(0),
    selectedModel: 'claude-sonnet-4',
    chatMessages: [
      { role: 'system', content: 'You are the GitHub Copilot CLI, a terminal assistant…' },
      {
        role: 'user',
        content: "<reminder>\nToday's date is 2025-09-18. The current working directory is /home/dana/src/ledgerline.\n</reminder>\nadd a unit test for parseAmount (negatives, thousands separators, empty string)",
      },
      {
        role: 'assistant',
        content: "I'll read the parser first.",
        tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'str_replace_editor', arguments: JSON.stringify(viewArgs) } }],
      },
      { role: 'tool', tool_call_id: 'toolu_01', name: 'str_replace_editor', content: 'export function parseAmount(text: string): number {\n  …\n}' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_02', type: 'function', function: { name: 'bash', arguments: JSON.stringify(bashArgs) } }] },
      { role: 'tool', tool_call_id: 'toolu_02', name: 'bash', content: 'FAIL test/parse.test.ts > parseAmount > negatives\n<exited with exit code 1>' },
      { role: 'assistant', content: 'Added three tests in test/parse.test.ts; the negatives case fails: parseAmount drops the sign.' },
      { role: 'user', content: 'fix the sign handling' },
      { role: 'assistant', content: 'Fixed: parseAmount now keeps a leading minus; all parser tests pass.' },
    ],
    timeline: [
      { id: 't1', timestamp: T(2), type: 'user', text: 'add a unit test for parseAmount (negatives, thousands separators, empty string)', mentions: [], expandedText: 'add a unit test for parseAmount (negatives, thousands separators, empty string)' },
      { id: 't2', timestamp: T(5), type: 'copilot', text: "I'll read the parser first." },
      { id: 't3', timestamp: T(5), type: 'tool_call_requested', callId: 'toolu_01', name: 'str_replace_editor', toolTitle: 'str_replace_editor', intentionSummary: 'View src/parse.ts', arguments: viewArgs },
      { id: 't4', timestamp: T(6), type: 'tool_call_completed', callId: 'toolu_01', name: 'str_replace_editor', toolTitle: 'str_replace_editor', arguments: viewArgs, result: { type: 'success', log: 'export function parseAmount(text: string): number {\n  …\n}' } },
      { id: 't5', timestamp: T(20), type: 'tool_call_requested', callId: 'toolu_02', name: 'bash', toolTitle: 'Run the parser tests', arguments: bashArgs },
      { id: 't6', timestamp: T(31), type: 'tool_call_completed', callId: 'toolu_02', name: 'bash', toolTitle: 'Run the parser tests', arguments: bashArgs, result: { type: 'failure', log: 'FAIL test/parse.test.ts > parseAmount > negatives' } },
      { id: 't7', timestamp: T(32), type: 'info', text: 'Tool output truncated to 30000 characters' },
      { id: 't8', timestamp: T(40), type: 'copilot', text: 'Added three tests in test/parse.test.ts; the negatives case fails: parseAmount drops the sign.' },
      { id: 't9', timestamp: T(120), type: 'user', text: 'fix the sign handling' },
      { id: 't10', timestamp: T(150), type: 'copilot', text: 'Fixed: parseAmount now keeps a leading minus; all parser tests pass.' },
    ],
  };
}

function parseDoc(doc: Record<string, unknown>, file = `/h/.copilot/history-session-state/${FILE_NAME}`) {
  const p = new CopilotLegacyParser(file);
  p.line(doc);
  return p.flush();
}

describe('Copilot CLI legacy session parser', () => {
  it('reads the timeline: prompts, answers, tool calls and results with errors, timestamps', () => {
    const out = parseDoc(legacyDoc());
    const ev = out.events;
    expect(out.session?.id).toBe(`copilot:${SID}`);
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['add a unit test for parseAmount (negatives, thousands separators, empty string)', 'fix the sign handling']);
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => [e.toolName, e.text])).toEqual([
      ['str_replace_editor', `view ${PARSE_TS}`],
      ['bash', 'npx vitest run test/parse.test.ts'],
    ]);
    const results = ev.filter((e) => e.kind === 'tool_result');
    expect(results.map((e) => [e.toolName, !!e.isError])).toEqual([
      ['str_replace_editor', false],
      ['bash', true],
    ]);
    expect(results[1].text).toContain('FAIL test/parse.test.ts');
    expect(ev.filter((e) => e.meta.final).map((e) => e.text)).toEqual([
      'Added three tests in test/parse.test.ts; the negatives case fails: parseAmount drops the sign.',
      'Fixed: parseAmount now keeps a leading minus; all parser tests pass.',
    ]);
    expect(ev.find((e) => e.kind === 'tool_call')?.meta.intent).toBe('View src/parse.ts');
    expect(ev[0].ts).toBe(Date.parse(T(2)));
    expect(out.session?.startedAt).toBe(Date.parse(T(0)));
    expect(out.session?.endedAt).toBe(Date.parse(T(150)));
    expect(out.session?.promptCount).toBe(2);
    expect(out.session?.toolErrorCount).toBe(1);
    expect(out.skipped['side-channel']).toBe(1);
  });

  it('falls back to chatMessages when the timeline has no user entries', () => {
    const doc = legacyDoc();
    doc.timeline = [];
    const out = parseDoc(doc);
    const ev = out.events;
    // the injected <reminder> block is not part of the prompt; the system message is skipped
    expect(ev.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['add a unit test for parseAmount (negatives, thousands separators, empty string)', 'fix the sign handling']);
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => [e.toolName, e.text, e.meta.callId])).toEqual([
      ['str_replace_editor', `view ${PARSE_TS}`, 'toolu_01'],
      ['bash', 'npx vitest run test/parse.test.ts', 'toolu_02'],
    ]);
    expect(ev.filter((e) => e.kind === 'tool_result').map((e) => [e.toolName, !!e.isError])).toEqual([
      ['str_replace_editor', false],
      ['bash', true], // `<exited with exit code 1>`
    ]);
    expect(ev.filter((e) => e.meta.final).map((e) => e.text)).toEqual([
      'Added three tests in test/parse.test.ts; the negatives case fails: parseAmount drops the sign.',
      'Fixed: parseAmount now keeps a leading minus; all parser tests pass.',
    ]);
    expect(out.session?.startedAt).toBe(Date.parse(T(0)));
    expect(out.skipped['side-channel']).toBe(1);
  });

  it('takes cwd, branch and title when present; the id from the file name when sessionId is missing', () => {
    const doc = legacyDoc();
    delete doc.sessionId;
    doc.context = { cwd: '/home/dana/src/ledgerline', branch: 'main' };
    doc.summary = 'parseAmount tests';
    const out = parseDoc(doc);
    expect(out.session?.vendorId).toBe(SID);
    expect(out.session?.cwd).toBe('/home/dana/src/ledgerline');
    expect(out.session?.gitBranch).toBe('main');
    expect(out.session?.title).toBe('parseAmount tests');
    expect(out.events.find((e) => e.kind === 'prompt')?.cwd).toBe('/home/dana/src/ledgerline');
    expect(copilotLegacyName(`/x/history-session-state/${FILE_NAME}`)).toEqual({ id: SID, ts: 1758186723114 });
    expect(copilotLegacyName('/x/history-session-state/abc.json')).toEqual({ id: 'abc', ts: 0 });
  });

  it('survives odd shapes without throwing', () => {
    for (const doc of [{}, { timeline: 'x', chatMessages: 5 }, { chatMessages: [null, 1, { role: 'tool' }, { role: 'assistant', tool_calls: [{}] }] }, { timeline: [{ type: 'user' }, { type: 'tool_call_completed' }, 7] }]) {
      expect(() => parseDoc(doc as Record<string, unknown>)).not.toThrow();
    }
  });
});

describe('Copilot CLI legacy paths', () => {
  it('recognizes history-session-state documents, reads them whole, lists the newest per session', () => {
    const f = `/cp/history-session-state/${FILE_NAME}`;
    expect(isCopilotLegacyFile(f)).toBe(true);
    expect(isCopilotTranscript(f)).toBe(true);
    expect(agentOfFile(f)).toBe('copilot');
    expect(isCopilotTranscript('/cp/history-session-state/notes.txt')).toBe(false);
    expect(isCopilotTranscript('/cp/other/session_x_1.json')).toBe(false);
    expect(copilotReadMode(f)).toBe('whole');
    expect(createCopilotParser(f, undefined)).toBeInstanceOf(CopilotLegacyParser);
    const roots = copilotRoots(defaultConfig(), { env: { COPILOT_HOME: '/cp' }, platform: 'linux', homedir: '/home/u' });
    expect(roots.find((r) => r.kind === 'copilot-cli-history')?.path).toBe('/cp/history-session-state');

    const dir = makeTempDir();
    try {
      for (const n of [`session_${SID}_100.json`, `session_${SID}_200.json`, 'session_other_5.json', 'plain-id.json', 'readme.txt']) fs.writeFileSync(path.join(dir, n), '{}');
      const listed = listCopilotFiles({ agent: 'copilot', path: dir, exists: true, kind: 'copilot-cli-history' }).map((p) => path.basename(p));
      expect(listed.sort()).toEqual(['plain-id.json', `session_${SID}_200.json`, 'session_other_5.json']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runHarvest with legacy Copilot CLI sessions', () => {
  let sb: Sandbox;
  let db: Db;
  const config = defaultConfig();
  const harvest = () => runHarvest(db, config, { env: sb.env, stateDir: path.join(sb.home, 'state'), agents: ['copilot'], workers: 0 });
  beforeEach(() => {
    sb = makeSandbox();
    db = openDb(path.join(sb.home, 'state', 'sleep.db'));
  });
  afterEach(() => {
    db.close();
    sb.cleanup();
  });

  it('stores the legacy session, and the directory form of the same id wins once it exists', async () => {
    const legacyDir = path.join(sb.env.COPILOT_HOME!, 'history-session-state');
    fs.mkdirSync(legacyDir, { recursive: true });
    const legacy = path.join(legacyDir, FILE_NAME);
    fs.writeFileSync(legacy, JSON.stringify(legacyDoc(), null, 2));
    const r = processFile({ path: legacy, agent: 'copilot', offset: 0, state: null, headHash: null, headLen: 0, maxLineBytes: 1 << 20 });
    expect(r.error).toBeUndefined();
    expect(r.lines).toBe(1); // one JSON document

    const first = await harvest();
    expect(first.errors).toEqual([]);
    expect(first.sessions).toBe(1);
    expect(getSession(db, `copilot:${SID}`)?.file).toBe(legacy);
    expect(listEvents(db, `copilot:${SID}`, { kinds: ['prompt'] }).map((e) => e.text)).toEqual([
      'add a unit test for parseAmount (negatives, thousands separators, empty string)',
      'fix the sign handling',
    ]);

    const dir = path.join(sb.env.COPILOT_HOME!, 'session-state', SID);
    fs.mkdirSync(dir, { recursive: true });
    const events = [
      { type: 'session.start', data: { sessionId: SID, startTime: T(0), context: { cwd: '/home/dana/src/ledgerline' } }, id: 'e1', timestamp: T(0), parentId: null },
      { type: 'user.message', data: { content: 'add a unit test for parseAmount (negatives, thousands separators, empty string)' }, id: 'e2', timestamp: T(2), parentId: 'e1' },
      { type: 'assistant.message', data: { content: 'Done.', toolRequests: [] }, id: 'e3', timestamp: T(9), parentId: 'e2' },
    ];
    fs.writeFileSync(path.join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    await harvest();
    const s = getSession(db, `copilot:${SID}`);
    expect(s?.file).toBe(path.join(dir, 'events.jsonl'));
    expect(listEvents(db, `copilot:${SID}`).map((e) => e.text)).toEqual(['add a unit test for parseAmount (negatives, thousands separators, empty string)', 'Done.']);

    fs.utimesSync(legacy, new Date(), new Date()); // a re-saved legacy file does not take it back
    const again = await harvest();
    expect(again.skipped['duplicate-file']).toBe(1);
    expect(getSession(db, `copilot:${SID}`)?.file).toBe(path.join(dir, 'events.jsonl'));
  });
});

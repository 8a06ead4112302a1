/**
 * Generates the harvest benchmark corpus: the repository's transcript fixtures (tests/fixtures)
 * replicated with fresh session ids,
 * padded with realistic tool traffic (file reads, command output, edits) to a target size, laid out
 * as real Claude Code / Codex / Copilot homes. Cached in the temp dir between runs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout this file runs from (bench/ from source, dist-bench/bench/ when built): the nearest folder with a package.json. */
function checkoutRoot(from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

const ROOT = checkoutRoot(path.dirname(fileURLToPath(import.meta.url)));
const FIXTURES = ROOT && fs.existsSync(path.join(ROOT, 'tests/fixtures/claude-code/home')) ? path.join(ROOT, 'tests/fixtures') : null;

export interface Corpus {
  root: string;
  env: NodeJS.ProcessEnv;
  files: string[];
  bytes: number;
}

const WORDS = (
  'const let return function export import await async interface type string number boolean null undefined ' +
  'parseDuration formatDuration toSeconds duration seconds minutes hours carry unitIndex compact suffix ' +
  'expect describe it test toBe toEqual throw Error map filter reduce push length slice split join trim ' +
  'src/duration.ts src/parse.ts test/parse.test.ts CHANGELOG.md README.md package.json tsconfig.json'
).split(' ');

/** Deterministic pseudo-random generator, so the corpus is the same on every machine. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function codeText(rand: () => number, bytes: number): string {
  const lines: string[] = [];
  let n = 0;
  let i = 1;
  while (n < bytes) {
    const indent = ' '.repeat(Math.floor(rand() * 4) * 2);
    const len = 3 + Math.floor(rand() * 9);
    const words: string[] = [];
    for (let k = 0; k < len; k++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    const line = `${String(i++).padStart(6)}→${indent}${words.join(' ')}${rand() < 0.3 ? ';' : rand() < 0.5 ? ' {' : ''}`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n');
}

function uuid(rand: () => number): string {
  const h = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface Template {
  agent: 'claude' | 'codex' | 'cli' | 'vscode';
  rel: string;
  id: string;
  lines: string[];
}

function loadTemplates(): Template[] {
  if (!FIXTURES) throw new Error(`transcript fixtures not found (expected tests/fixtures/<agent>/home in the checkout at ${ROOT ?? '?'}; the bench runs from a clone of the repository)`);
  const read = (rel: string) => fs.readFileSync(path.join(FIXTURES, rel), 'utf8').split('\n').filter((l) => l.trim());
  const t = (agent: Template['agent'], rel: string, id: string): Template => ({ agent, rel, id, lines: read(rel) });
  return [
    t('claude', 'claude-code/home/projects/-home-mika-src-tidemark/5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860.jsonl', '5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860'),
    t('claude', 'claude-code/home/projects/-home-mika-src-tidemark/2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23.jsonl', '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23'),
    t('codex', 'codex/home/sessions/2026/10/13/rollout-2026-10-13T10-02-11-01a13448-894e-75f1-ae9c-511bd56efd1b.jsonl', '01a13448-894e-75f1-ae9c-511bd56efd1b'),
    t('codex', 'codex/home/archived_sessions/rollout-2025-09-03T14-22-09-33015626-48e4-4ce0-9948-2e2b765efdc4.jsonl', '33015626-48e4-4ce0-9948-2e2b765efdc4'),
    t('cli', 'copilot-cli/home/session-state/7d2f1c9e-4b3a-4e5d-9f60-8a1b2c3d4e5f/events.jsonl', '7d2f1c9e-4b3a-4e5d-9f60-8a1b2c3d4e5f'),
    t('cli', 'copilot-cli/home/session-state/3a5d8f0e-2c4b-4d6a-9e8f-0a1b2c3d4e5f.jsonl', '3a5d8f0e-2c4b-4d6a-9e8f-0a1b2c3d4e5f'),
    t('vscode', 'copilot-vscode/home/User/workspaceStorage/6f1c3e9a0b2d4c5e8f7a1b2c3d4e5f60/chatSessions/9e5d3c1b-7a2f-4d6e-b8c0-1f2e3d4c5b6a.jsonl', '9e5d3c1b-7a2f-4d6e-b8c0-1f2e3d4c5b6a'),
  ];
}

/** Padding: one tool round trip in the agent's own format, with a realistic output body. */
function padTurn(agent: Template['agent'], rand: () => number, k: number, sessionId: string): string[] {
  const body = codeText(rand, 1000 + Math.floor(rand() * 11000)) + (rand() < 0.02 ? `\nAWS_ACCESS_KEY_ID=AKIA${'Q'.repeat(12)}${k % 10}ABC` : '');
  const callId = `call_${k}_${Math.floor(rand() * 1e9).toString(36)}`;
  const ts = new Date(Date.UTC(2026, 9, 12, 8, 0, 0) + k * 1000).toISOString();
  const file = `/home/mika/src/tidemark/src/mod${k % 40}.ts`;
  if (agent === 'claude') {
    const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd: '/home/mika/src/tidemark', sessionId, version: '2.1.276', gitBranch: 'main' };
    return [
      JSON.stringify({ parentUuid: null, ...base, type: 'assistant', message: { model: 'claude-opus-4-8', id: `msg_${callId}`, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${callId}`, name: 'Read', input: { file_path: file } }], stop_reason: 'tool_use', usage: { input_tokens: 1200, output_tokens: 80 } }, uuid: `${callId}-a`, timestamp: ts }),
      JSON.stringify({ parentUuid: `${callId}-a`, ...base, type: 'user', message: { role: 'user', content: [{ tool_use_id: `toolu_${callId}`, type: 'tool_result', content: body }] }, uuid: `${callId}-u`, timestamp: ts, toolUseResult: { type: 'text', file: { filePath: file, content: body.slice(0, 2000), numLines: 80, startLine: 1, totalLines: 80 } } }),
    ];
  }
  if (agent === 'codex') {
    return [
      JSON.stringify({ timestamp: ts, type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `sed -n '1,200p' ${file}`, workdir: '/home/mika/src/tidemark' }), call_id: callId } }),
      JSON.stringify({ timestamp: ts, type: 'response_item', payload: { type: 'function_call_output', call_id: callId, output: `Chunk ID: ab12cd\nWall time: 0.0100 seconds\nProcess exited with code ${rand() < 0.05 ? 1 : 0}\nOriginal token count: 900\nOutput:\n${body}` } }),
      JSON.stringify({ timestamp: ts, type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: 9000 + k, output_tokens: 400 } }, rate_limits: null } }),
    ];
  }
  return [
    JSON.stringify({ type: 'assistant.message', data: { messageId: callId, model: 'claude-sonnet-4.6', content: '', toolRequests: [{ toolCallId: callId, name: 'view', arguments: { path: file }, type: 'function' }], turnId: String(k) }, id: `${callId}-m`, timestamp: ts, parentId: null }),
    JSON.stringify({ type: 'tool.execution_complete', data: { toolCallId: callId, model: 'claude-sonnet-4.6', turnId: String(k), success: true, result: { content: body, detailedContent: body.slice(0, 3000) } }, id: `${callId}-c`, timestamp: ts, parentId: `${callId}-m` }),
  ];
}

function writeSession(root: string, tpl: Template, i: number, rand: () => number, targetBytes: number): string {
  const id = uuid(rand);
  const swap = (l: string) => l.split(tpl.id).join(id);
  let file: string;
  if (tpl.agent === 'claude') file = path.join(root, 'claude/projects', `-home-mika-src-proj${i % 50}`, `${id}.jsonl`);
  else if (tpl.agent === 'codex') file = path.join(root, 'codex/sessions/2026/10', String(1 + (i % 28)).padStart(2, '0'), `rollout-2026-10-13T10-02-11-${id}.jsonl`);
  else if (tpl.agent === 'cli') file = path.join(root, 'copilot/session-state', id, 'events.jsonl');
  else {
    const ws = path.join(root, 'vscode/User/workspaceStorage', `ws${i % 20}`);
    fs.mkdirSync(path.join(ws, 'chatSessions'), { recursive: true });
    if (!fs.existsSync(path.join(ws, 'workspace.json'))) fs.writeFileSync(path.join(ws, 'workspace.json'), JSON.stringify({ folder: `file:///home/mika/src/proj${i % 20}` }));
    file = path.join(ws, 'chatSessions', `${id}.jsonl`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = tpl.lines.map(swap);
  const out: string[] = [];
  let bytes = lines.reduce((s, l) => s + l.length + 1, 0);
  const cut = Math.max(1, Math.floor(lines.length / 3));
  out.push(...lines.slice(0, cut));
  let k = 0;
  while (tpl.agent !== 'vscode' && bytes < targetBytes) {
    for (const l of padTurn(tpl.agent, rand, i * 1000 + k++, id)) {
      out.push(l);
      bytes += l.length + 1;
    }
  }
  out.push(...lines.slice(cut));
  fs.writeFileSync(file, out.join('\n') + '\n');
  return file;
}

export function corpusEnv(root: string): NodeJS.ProcessEnv {
  return {
    HOME: path.join(root, 'home'),
    CLAUDE_CONFIG_DIR: path.join(root, 'claude'),
    CODEX_HOME: path.join(root, 'codex'),
    COPILOT_HOME: path.join(root, 'copilot'),
    XDG_CONFIG_HOME: path.join(root, 'home/.config'),
  };
}

function listAll(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  for (const sub of ['claude', 'codex', 'copilot', 'vscode']) if (fs.existsSync(path.join(dir, sub))) visit(path.join(dir, sub));
  return out.sort();
}

export function buildCorpus(totalMb: number, fileCount: number, log: (s: string) => void = () => {}): Corpus {
  // v3: built from the repository's own fixtures (a corpus cached from older templates is not reused)
  const root = path.join(os.tmpdir(), `sos-bench-harvest-v3-${totalMb}mb-${fileCount}f`);
  const marker = path.join(root, '.complete');
  if (!fs.existsSync(marker)) {
    fs.rmSync(root, { recursive: true, force: true });
    log(`generating ${totalMb} MB corpus in ${fileCount} files at ${root}…`);
    const templates = loadTemplates();
    const rand = rng(42);
    const per = Math.floor((totalMb * 1e6) / fileCount);
    // mix: 40% Claude, 30% Codex, 25% Copilot CLI, 5% VS Code
    const pick = (i: number) => {
      const r = i % 20;
      if (r < 8) return templates[r % 2];
      if (r < 14) return templates[2 + (r % 2)];
      if (r < 19) return templates[4 + (r % 2)];
      return templates[6];
    };
    for (let i = 0; i < fileCount; i++) writeSession(root, pick(i), i, rand, per * (0.5 + rand()));
    fs.mkdirSync(path.join(root, 'home/.config'), { recursive: true });
    fs.symlinkSync(path.join(root, 'vscode'), path.join(root, 'home/.config/Code'), 'dir');
    fs.writeFileSync(marker, crypto.randomUUID());
  }
  const files = listAll(root);
  const bytes = files.reduce((s, f) => s + fs.statSync(f).size, 0);
  return { root, env: corpusEnv(root), files, bytes };
}

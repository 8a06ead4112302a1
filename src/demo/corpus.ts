/**
 * Writes the demo scenario as real transcript files, in each agent's native on-disk format (the
 * same shapes as the transcript fixtures in tests/fixtures/, see its README): Claude Code project
 * JSONL, Codex rollout files ({timestamp,type,payload} envelopes) and Copilot CLI session-state
 * events. The harvester then reads them exactly as it reads a user's real folders. Everything is
 * generated here, in code, so the demo works from an installed package (which ships no tests/).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { demoSessions, type DemoSession } from './scenario.js';

export interface DemoHomes {
  claudeConfigDir: string;
  codexHome: string;
  copilotHome: string;
  projectsRoot: string; // fake checkouts live here
}

/** Deterministic UUID-shaped id, so re-running the demo writes the same files. */
function uuidFrom(...parts: Array<string | number>): string {
  const h = crypto.createHash('sha256').update(parts.join('|')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The 24 hex digits the agents use after a `toolu_`, `msg_` or `call_` prefix, deterministic like uuidFrom. */
function shortId(...parts: Array<string | number>): string {
  return uuidFrom(...parts).replace(/-/g, '').slice(0, 24);
}

/** Writes one record a line (JSON Lines), making the folder first; returns the file. Every agent's session log is this. */
function writeJsonl(file: string, records: unknown[]): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

function writeClaude(s: DemoSession, idx: number, cwd: string, start: number, homes: DemoHomes): string {
  const sessionId = uuidFrom('claude', idx);
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd, sessionId, version: '2.1.276', gitBranch: 'main' };
  const recs: unknown[] = [{ type: 'permission-mode', permissionMode: 'default', sessionId }];
  let t = start;
  let parent: string | null = null;
  const stamp = () => new Date((t += 2000)).toISOString();
  /** An assistant record answering `parent`: a tool call and the final reply differ only in content, stop reason and usage. */
  const assistant = (uuid: string, msgId: string, requestId: string, content: unknown[], stopReason: string, usage: { input_tokens: number; output_tokens: number }) => ({
    ...base,
    parentUuid: parent,
    type: 'assistant',
    message: { model: 'claude-opus-4-8', id: `msg_${msgId}`, type: 'message', role: 'assistant', content, stop_reason: stopReason, usage },
    requestId,
    uuid,
    timestamp: stamp(),
  });
  s.turns.forEach((turn, ti) => {
    const promptUuid = uuidFrom('c-prompt', idx, ti);
    recs.push({ ...base, parentUuid: parent, type: 'user', message: { role: 'user', content: turn.prompt }, uuid: promptUuid, timestamp: stamp(), promptSource: 'user' });
    parent = promptUuid;
    turn.tools.forEach((tool, k) => {
      const toolId = `toolu_${shortId('c-tool', idx, ti, k)}`;
      const aUuid = uuidFrom('c-call', idx, ti, k);
      recs.push(assistant(aUuid, shortId('c-msg', idx, ti, k), `req_${idx}_${ti}_${k}`, [{ type: 'tool_use', id: toolId, name: tool.name, input: { command: tool.input } }], 'tool_use', { input_tokens: 12, output_tokens: 80 }));
      const rUuid = uuidFrom('c-result', idx, ti, k);
      recs.push({
        ...base,
        parentUuid: aUuid,
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', content: tool.output, is_error: !!tool.isError, tool_use_id: toolId }] },
        toolUseResult: tool.isError ? `Error: ${tool.output}` : { stdout: tool.output },
        uuid: rUuid,
        timestamp: stamp(),
      });
      parent = rUuid;
    });
    const fUuid = uuidFrom('c-final', idx, ti);
    recs.push(assistant(fUuid, shortId('c-fmsg', idx, ti), `req_${idx}_${ti}_f`, [{ type: 'text', text: turn.reply }], 'end_turn', { input_tokens: 20, output_tokens: 120 }));
    parent = fUuid;
  });
  return writeJsonl(path.join(homes.claudeConfigDir, 'projects', slug, `${sessionId}.jsonl`), recs);
}

function writeCodex(s: DemoSession, idx: number, cwd: string, start: number, homes: DemoHomes): string {
  const id = uuidFrom('codex', idx);
  let t = start;
  const ts = () => new Date((t += 1500)).toISOString();
  const env = (type: string, payload: unknown) => ({ timestamp: ts(), type, payload });
  const recs: unknown[] = [
    env('session_meta', {
      session_id: id,
      id,
      timestamp: new Date(start).toISOString(),
      cwd,
      originator: 'codex-tui',
      cli_version: '0.146.0',
      source: 'cli',
      model_provider: 'openai',
      base_instructions: { text: 'You are Codex, a coding agent.' },
      history_mode: 'legacy',
      git: { branch: 'main' },
    }),
  ];
  s.turns.forEach((turn, ti) => {
    const turnId = uuidFrom('x-turn', idx, ti);
    recs.push(env('event_msg', { type: 'task_started', turn_id: turnId }));
    recs.push(env('turn_context', { cwd, model: 'gpt-5.3-codex', approval_policy: 'on-request', sandbox_policy: { type: 'workspace-write' } }));
    if (ti === 0) {
      recs.push(env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>` }] }));
    }
    recs.push(env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: turn.prompt }] }));
    recs.push(env('event_msg', { type: 'user_message', message: turn.prompt, images: [] }));
    turn.tools.forEach((tool, k) => {
      const callId = `call_${shortId('x-call', idx, ti, k)}`;
      recs.push(env('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: tool.input, workdir: cwd }), call_id: callId }));
      const out = tool.isError ? `${tool.output}\nProcess exited with code 1` : `${tool.output}\nProcess exited with code 0`;
      recs.push(env('response_item', { type: 'function_call_output', call_id: callId, output: out }));
    });
    recs.push(env('event_msg', { type: 'agent_message', message: turn.reply, phase: 'final_answer' }));
    recs.push(env('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: turn.reply }], phase: 'final_answer' }));
    recs.push(env('event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: turn.reply }));
  });
  const d = new Date(start);
  const day = path.join(String(d.getUTCFullYear()), String(d.getUTCMonth() + 1).padStart(2, '0'), String(d.getUTCDate()).padStart(2, '0'));
  const stamp = d.toISOString().slice(0, 19).replace(/:/g, '-');
  return writeJsonl(path.join(homes.codexHome, 'sessions', day, `rollout-${stamp}-${id}.jsonl`), recs);
}

function writeCopilotCli(s: DemoSession, idx: number, cwd: string, start: number, homes: DemoHomes): string {
  const sessionId = uuidFrom('copilot', idx);
  let t = start;
  let parentId: string | null = null;
  let n = 0;
  const ev = (type: string, data: unknown) => {
    const id = uuidFrom('p-ev', idx, n++);
    const rec = { type, data, id, timestamp: new Date((t += 1200)).toISOString(), parentId };
    parentId = id;
    return rec;
  };
  const recs: unknown[] = [
    ev('session.start', {
      sessionId,
      version: 1,
      producer: 'copilot-agent',
      copilotVersion: '1.0.84',
      startTime: new Date(start).toISOString(),
      context: { cwd, gitRoot: cwd, branch: 'main' },
    }),
  ];
  s.turns.forEach((turn, ti) => {
    recs.push(ev('user.message', { content: turn.prompt, transformedContent: turn.prompt, attachments: [], agentMode: 'interactive' }));
    recs.push(ev('assistant.turn_start', { turnId: String(ti) }));
    if (turn.tools.length) {
      const reqs = turn.tools.map((tool, k) => ({ toolCallId: `toolu_${idx}_${ti}_${k}`, name: 'bash', arguments: { command: tool.input }, type: 'function' }));
      recs.push(ev('assistant.message', { messageId: uuidFrom('p-m', idx, ti), model: 'claude-sonnet-4.6', content: '', toolRequests: reqs }));
      turn.tools.forEach((tool, k) => {
        recs.push(ev('tool.execution_start', { toolCallId: `toolu_${idx}_${ti}_${k}`, toolName: 'bash', arguments: { command: tool.input } }));
        const content = tool.isError ? `${tool.output}\n<exited with exit code 1>` : `${tool.output}\n<exited with exit code 0>`;
        recs.push(ev('tool.execution_complete', { toolCallId: `toolu_${idx}_${ti}_${k}`, success: true, result: { content, detailedContent: content } }));
      });
    }
    recs.push(ev('assistant.message', { messageId: uuidFrom('p-f', idx, ti), model: 'claude-sonnet-4.6', content: turn.reply, toolRequests: [] }));
    recs.push(ev('assistant.turn_end', { turnId: String(ti) }));
  });
  recs.push(ev('session.shutdown', { shutdownType: 'routine', totalPremiumRequests: s.turns.length }));
  const dir = path.join(homes.copilotHome, 'session-state', sessionId);
  const events = writeJsonl(path.join(dir, 'events.jsonl'), recs);
  fs.writeFileSync(
    path.join(dir, 'workspace.yaml'),
    `id: ${sessionId}\ncwd: ${cwd}\ngit_root: ${cwd}\nbranch: main\ncreated_at: ${new Date(start).toISOString()}\n`,
  );
  return events;
}

/** Writes all demo sessions; returns the files written. `now` fixes the timeline for reproducibility. */
export function writeDemoCorpus(homes: DemoHomes, now = Date.now()): { files: string[]; projects: string[] } {
  const files: string[] = [];
  const projects = new Set<string>();
  demoSessions().forEach((s, idx) => {
    const cwd = path.join(homes.projectsRoot, s.project);
    if (!projects.has(cwd)) {
      fs.mkdirSync(cwd, { recursive: true });
      // a fake checkout: the harvester resolves the project root from the git dir
      fs.mkdirSync(path.join(cwd, '.git'), { recursive: true });
      fs.writeFileSync(path.join(cwd, 'CHANGELOG.md'), '# Changelog\n\n## [Unreleased]\n');
      projects.add(cwd);
    }
    const start = now - s.day * 86_400_000 - (idx % 7) * 3_600_000;
    const writer = s.agent === 'claude-code' ? writeClaude : s.agent === 'codex' ? writeCodex : writeCopilotCli;
    files.push(writer(s, idx, cwd, start, homes));
  });
  return { files, projects: [...projects] };
}

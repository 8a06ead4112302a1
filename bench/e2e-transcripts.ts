/**
 * Writes the end-to-end arm's sessions as Claude Code transcripts, in the shape the real CLI
 * writes them (tests/fixtures/claude-code and its README): one JSONL file
 * per session under `<CLAUDE_CONFIG_DIR>/projects/<slug>/<sessionId>.jsonl`, side-channel records
 * first, then the `user` / `assistant` tree records with uuid chains, tool calls and results as
 * content blocks, and every record carrying cwd, gitBranch, version. Each project is a fake
 * checkout (a `.git` folder) so the harvester resolves its root as it does for a user's.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { E2eSession } from './e2e-world.js';

function uuidFrom(...parts: Array<string | number>): string {
  const h = crypto.createHash('sha256').update(parts.join('|')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const hex = (...parts: Array<string | number>): string => uuidFrom(...parts).replace(/-/g, '').slice(0, 24);

export interface E2eHomes {
  /** CLAUDE_CONFIG_DIR */
  claudeConfigDir: string;
  /** where the fake checkouts live */
  projectsRoot: string;
}

/** The project directory a session's cwd is. */
export function projectDir(homes: E2eHomes, project: string): string {
  return path.join(homes.projectsRoot, project);
}

function writeSession(s: E2eSession, idx: number, seed: number, cwd: string, start: number, homes: E2eHomes): string {
  const sessionId = uuidFrom('e2e', seed, idx);
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd, sessionId, version: '2.1.276', gitBranch: 'main' };
  const recs: unknown[] = [{ type: 'permission-mode', permissionMode: 'default', sessionId }];
  let t = start;
  let parent: string | null = null;
  const stamp = () => new Date((t += 4000)).toISOString();
  s.turns.forEach((turn, ti) => {
    const promptUuid = uuidFrom('prompt', seed, idx, ti);
    recs.push({ ...base, parentUuid: parent, promptId: uuidFrom('pid', seed, idx, ti), type: 'user', message: { role: 'user', content: turn.prompt }, uuid: promptUuid, timestamp: stamp(), permissionMode: 'default', origin: { kind: 'human' }, promptSource: 'user' });
    parent = promptUuid;
    (turn.tools ?? []).forEach((tool, k) => {
      const toolId = `toolu_${hex('tool', seed, idx, ti, k)}`;
      const aUuid = uuidFrom('call', seed, idx, ti, k);
      recs.push({
        ...base,
        parentUuid: parent,
        type: 'assistant',
        message: { model: 'claude-opus-4-8', id: `msg_${hex('cmsg', seed, idx, ti, k)}`, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: toolId, name: tool.name, input: { command: tool.input } }], stop_reason: 'tool_use', usage: { input_tokens: 12, output_tokens: 40 } },
        requestId: `req_${hex('creq', seed, idx, ti, k)}`,
        uuid: aUuid,
        timestamp: stamp(),
      });
      const rUuid = uuidFrom('result', seed, idx, ti, k);
      recs.push({
        ...base,
        parentUuid: aUuid,
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', content: tool.output, is_error: false, tool_use_id: toolId }] },
        toolUseResult: { stdout: tool.output, stderr: '', interrupted: false },
        sourceToolAssistantUUID: aUuid,
        uuid: rUuid,
        timestamp: stamp(),
      });
      parent = rUuid;
    });
    const fUuid = uuidFrom('final', seed, idx, ti);
    recs.push({
      ...base,
      parentUuid: parent,
      type: 'assistant',
      message: { model: 'claude-opus-4-8', id: `msg_${hex('fmsg', seed, idx, ti)}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: turn.reply }], stop_reason: 'end_turn', usage: { input_tokens: 20, output_tokens: 120 } },
      requestId: `req_${hex('freq', seed, idx, ti)}`,
      uuid: fUuid,
      timestamp: stamp(),
    });
    parent = fUuid;
    recs.push({ type: 'system', subtype: 'turn_duration', durationMs: 4000, parentUuid: fUuid, uuid: uuidFrom('dur', seed, idx, ti), timestamp: stamp(), sessionId, isMeta: false });
  });
  recs.push({ type: 'last-prompt', lastPrompt: s.turns.at(-1)?.prompt ?? '', leafUuid: parent, sessionId });
  const file = path.join(homes.claudeConfigDir, 'projects', slug, `${sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/** Writes every session; `now` fixes the timeline (sessions are `day` days before it). */
export function writeE2eTranscripts(sessions: E2eSession[], seed: number, homes: E2eHomes, now: number): string[] {
  const files: string[] = [];
  const made = new Set<string>();
  sessions.forEach((s, idx) => {
    const cwd = projectDir(homes, s.project);
    if (!made.has(cwd)) {
      fs.mkdirSync(path.join(cwd, '.git'), { recursive: true });
      made.add(cwd);
    }
    const start = now - s.day * 86_400_000 - (idx % 12) * 1_800_000;
    files.push(writeSession(s, idx, seed, cwd, start, homes));
  });
  return files;
}

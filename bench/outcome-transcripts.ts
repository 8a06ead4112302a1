/**
 * Writes the outcome world onto disk the way a user's machine holds it: Claude Code transcripts
 * (one JSONL per session, in the shape tests/fixtures/claude-code shows: `tool_use` blocks with
 * `Bash {command}` and `Write {file_path, content}` inputs, `tool_result` blocks with `is_error`)
 * and, per project, a REAL git repository made with the real `git` binary, where the user commits
 * what they kept after each session (GIT_AUTHOR_DATE / GIT_COMMITTER_DATE after the session's time).
 *
 * The repositories are the only place the silent preferences exist: the transcripts hold the
 * agent's version, git holds the user's.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { USER, type OutcomeSession } from './outcome-world.js';

function uuidFrom(...parts: Array<string | number>): string {
  const h = crypto.createHash('sha256').update(parts.join('|')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
const hex = (...parts: Array<string | number>): string => uuidFrom(...parts).replace(/-/g, '').slice(0, 24);

export interface OutcomeHomes {
  /** CLAUDE_CONFIG_DIR */
  claudeConfigDir: string;
  /** where the projects' checkouts live */
  projectsRoot: string;
}

export const outcomeProjectDir = (homes: OutcomeHomes, project: string): string => path.join(homes.projectsRoot, project);

/** One session as a Claude Code transcript; returns the file. */
function writeSession(s: OutcomeSession, idx: number, seed: number, cwd: string, homes: OutcomeHomes): string {
  const sessionId = uuidFrom('outcome', seed, idx);
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd, sessionId, version: '2.1.276', gitBranch: 'main' };
  const recs: unknown[] = [{ type: 'permission-mode', permissionMode: 'default', sessionId }];
  let t = s.at;
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
        message: { model: 'claude-opus-4-8', id: `msg_${hex('cmsg', seed, idx, ti, k)}`, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: toolId, name: tool.name, input: tool.input }], stop_reason: 'tool_use', usage: { input_tokens: 12, output_tokens: 40 } },
        requestId: `req_${hex('creq', seed, idx, ti, k)}`,
        uuid: aUuid,
        timestamp: stamp(),
      });
      const rUuid = uuidFrom('result', seed, idx, ti, k);
      const toolUseResult =
        tool.name === 'Write'
          ? { type: 'create', filePath: (tool.input as { file_path: string }).file_path, content: (tool.input as { content: string }).content, structuredPatch: [] }
          : tool.isError
            ? `Error: ${tool.output}`
            : { stdout: tool.output, stderr: '', interrupted: false };
      recs.push({
        ...base,
        parentUuid: aUuid,
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', content: tool.output, is_error: tool.isError, tool_use_id: toolId }] },
        toolUseResult,
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

/** git with a config of its own: no system or global config of the machine is read. */
function git(cwd: string, args: string[], dates?: number): string {
  const iso = dates !== undefined ? new Date(dates).toISOString() : undefined;
  return execFileSync('git', ['-c', `user.name=${USER.name}`, '-c', `user.email=${USER.email}`, '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      ...(iso ? { GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso } : {}),
    },
  });
}

export interface OutcomeRepo {
  project: string;
  dir: string;
  commits: number;
}

/**
 * Makes one real git repository per project (initial commit a day before the first session), then
 * replays the sessions in time order: after each session that produced an artifact, the user's
 * kept version is written and committed `afterMinutes` later, with both git dates set to that time.
 */
export function buildOutcomeRepos(sessions: OutcomeSession[], homes: OutcomeHomes, projects: string[]): OutcomeRepo[] {
  const repos: OutcomeRepo[] = [];
  for (const project of projects) {
    const dir = outcomeProjectDir(homes, project);
    fs.mkdirSync(dir, { recursive: true });
    const mine = sessions.filter((s) => s.project === project).sort((a, b) => a.at - b.at);
    const first = mine[0]?.at ?? Date.UTC(2026, 9, 1);
    git(dir, ['init', '-q']);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: project, version: '1.4.0', type: 'module', scripts: { test: 'jest' } }, null, 2) + '\n');
    fs.writeFileSync(path.join(dir, 'README.md'), `# ${project}\n`);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'chore: initial commit'], first - 24 * 3_600_000);
    let commits = 1;
    for (const s of mine) {
      if (!s.commit) continue;
      for (const [rel, content] of Object.entries(s.commit.files)) {
        const file = path.join(dir, rel);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, content);
      }
      git(dir, ['add', '-A']);
      // (a session whose kept file equals the last commit's still lands as its own commit)
      git(dir, ['commit', '-q', '--allow-empty', '-m', s.commit.message], s.at + s.commit.afterMinutes * 60_000);
      commits++;
    }
    repos.push({ project, dir, commits });
  }
  return repos;
}

/** Writes every session's transcript (after the repositories exist, so each cwd is a git work tree). */
export function writeOutcomeTranscripts(sessions: OutcomeSession[], seed: number, homes: OutcomeHomes): string[] {
  return sessions.map((s, idx) => writeSession(s, idx, seed, outcomeProjectDir(homes, s.project), homes));
}

/**
 * Where Claude Code writes transcripts: `<config>/projects/<slug>/<sessionId>.jsonl`, sub-agents in
 * `<sessionId>/subagents/agent-<id>.jsonl` (≥ 2.1.2) or `agent-<id>.jsonl` beside the session (older).
 * Config dirs: config `agents.claudeCode.roots`, every entry of `CLAUDE_CONFIG_DIR` (a comma list),
 * `$XDG_CONFIG_HOME/claude` (~/.config/claude) and ~/.claude.
 */
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { dirExists, segments, walkFiles } from '../kit/walk.js';
import type { DirReader, RootEnv, TranscriptRoot } from '../types.js';
import { claudeHomes, claudeLegacyHomes } from './home.js';

export function claudeConfigRoots(config: Config, { env, homedir }: RootEnv): string[] {
  const ctx = { env, home: homedir, config };
  return [...new Set([...claudeHomes(ctx), ...claudeLegacyHomes(ctx)].map((p) => path.resolve(p)))];
}

export function claudeRoots(config: Config, rootEnv: RootEnv): TranscriptRoot[] {
  return claudeConfigRoots(config, rootEnv).map((r) => {
    const p = path.join(r, 'projects');
    return { agent: 'claude-code' as const, path: p, exists: dirExists(p), kind: 'claude-projects' };
  });
}

const UUIDISH = /^[0-9a-zA-Z][0-9a-zA-Z_-]*\.jsonl$/;

/** `projects/<slug>/<id>.jsonl`, `projects/<slug>/agent-*.jsonl`, `projects/<slug>/<id>/subagents/**\/agent-*.jsonl`. */
export function isClaudeTranscript(filePath: string): boolean {
  if (!filePath.endsWith('.jsonl')) return false;
  const segs = segments(filePath);
  const i = segs.lastIndexOf('projects');
  if (i < 0) return false;
  const rest = segs.slice(i + 1);
  const base = rest[rest.length - 1];
  if (rest.length === 2) return UUIDISH.test(base);
  if (rest.length >= 4 && rest[2] === 'subagents') return base.startsWith('agent-') && !rest.includes('tool-results');
  return false;
}

export function listClaudeFiles(root: TranscriptRoot, readDir?: DirReader): string[] {
  // depth: projects/<slug>/<id>/subagents/workflows/wf_x/agent.jsonl
  // name/depth checks (cheap on an unchanged pass over thousands of files); same rule as isClaudeTranscript
  return walkFiles(
    root.path,
    (p, name, depth) => name.endsWith('.jsonl') && (depth === 1 ? UUIDISH.test(name) : depth >= 3 && name.startsWith('agent-') && isClaudeTranscript(p)),
    5,
    (_p, name) => name === 'tool-results' || name === 'memory',
    readDir,
  );
}

/** Sub-agent files: returns the parent session id when the path says it, else '' (legacy: from rows). */
export function claudeSubagentInfo(filePath: string): { agentFile: string; parent: string } | null {
  const base = path.basename(filePath, '.jsonl');
  if (!base.startsWith('agent-')) return null;
  const segs = segments(filePath);
  const k = segs.lastIndexOf('subagents');
  return { agentFile: base, parent: k > 0 ? segs[k - 1] : '' };
}

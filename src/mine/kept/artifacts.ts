/**
 * What the agent produced in one ask's turn (issue 41): the files it wrote, the commit message it
 * used or proposed, and the commands it ran with their error status. This is the "agent's version"
 * that kept.ts sets beside what landed in git, and the raw material of procedures.ts.
 *
 * What the store holds to compute it (adapters/kit/session-builder.ts): a command tool call's
 * command line (redacted; a `git commit` one up to TEXT_CAP.commitCall so its message survives),
 * a write tool's path, and for Claude Code's Write the file content it wrote (`meta.wrote`,
 * redacted, capped). Edits and patches keep their path only: their kept version is still read,
 * but no agent version is known to compare it with.
 */
import { isCommandTool } from '../../core/tool-kinds.js';

export interface AgentCommand {
  command: string;
  /** the tool result said it failed (is_error, or a non-zero exit) */
  failed: boolean;
  ts: number | null;
}

export interface AgentFile {
  /** the path as the agent wrote it (absolute or relative to its cwd) */
  path: string;
  /** the content it wrote, when the transcript holds it (a whole-file write) */
  content?: string;
}

export interface AgentArtifacts {
  /** the commit message the agent used (`git commit -m …`) or proposed (a fenced block in a commit job's reply) */
  commitMessage?: string;
  files?: AgentFile[];
  commands?: AgentCommand[];
}

/** Caps on what an occurrence's outcome stores (it is one row per ask). Assumption: enough for a commit message, a CHANGELOG entry, a test file head. */
export const ARTIFACT_CAPS = { commands: 30, command: 300, files: 10, content: 4000, message: 4000 } as const;

const WRITE_TOOL_RE = /^(write|edit|multiedit|create|create_file|write_file|str_replace_editor|str_replace_based_edit_tool|apply_patch|replace|edit_file|notebookedit)$/i;

/**
 * The message of a `git commit` command: `-m "…"` / `-m '…'` (several -m are paragraphs), a heredoc
 * (`-m "$(cat <<'EOF' … EOF)"`, `-F - <<EOF … EOF`), or `--message=…`; null when the command is no
 * commit or carries no message (an editor commit, `--amend --no-edit`).
 */
export function commitMessageOfCommand(command: string): string | null {
  const at = /\bgit\s+(?:-[cC]\s+\S+\s+|--?[\w-]+(?:=\S+)?\s+)*commit\b/.exec(command);
  if (!at) return null;
  const rest = command.slice(at.index + at[0].length);
  const heredoc = /<<-?\s*(['"]?)(\w+)\1[^\n]*\n([\s\S]*?)\n\s*\2\b/.exec(rest);
  if (heredoc) return tidy(heredoc[3]);
  const parts: string[] = [];
  const re = /(?:^|\s)(?:-m|--message)(?:\s+|=)(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))/g;
  for (const m of rest.matchAll(re)) {
    const v = m[1] !== undefined ? m[1].replace(/\\(["\\$`])/g, '$1') : (m[2] ?? m[3] ?? '');
    // a combined short flag (-am "…") is matched by its own pattern below
    parts.push(v);
  }
  if (!parts.length) {
    const am = /(?:^|\s)-[a-zA-Z]*m\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/.exec(rest);
    if (am) parts.push(am[1] !== undefined ? am[1].replace(/\\(["\\$`])/g, '$1') : am[2]);
  }
  const msg = tidy(parts.join('\n\n'));
  return msg ? msg : null;
}

/**
 * A commit message the agent proposed in its reply instead of committing: the first fenced block
 * of a reply that calls it a commit message (or whose first line reads like a commit subject).
 */
export function fencedCommitMessage(reply: string): string | null {
  if (!/commit/i.test(reply)) return null;
  const fence = /(^|\n)[ \t]*(```|~~~)[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)\n[ \t]*\2[ \t]*(?=\n|$)/.exec(reply);
  if (!fence) return null;
  const lang = fence[3].toLowerCase();
  if (lang && !['text', 'txt', 'git', 'gitcommit', 'commit', 'markdown', 'md', 'plain', 'plaintext'].includes(lang)) return null;
  const body = tidy(fence[4]);
  if (!body || /^\s*(?:\$\s*)?git\s/.test(body)) return null;
  return body;
}

/** A command result that says it failed: the tool flagged an error, or the output names a non-zero exit. */
export function resultFailed(isError: boolean, output: string): boolean {
  if (isError) return true;
  return /\b(?:exit(?:ed)?(?: with)? (?:code|status)[:\s]+[1-9]\d*|Exit code [1-9]\d*|exit_code"?\s*[:=]\s*[1-9])/i.test(output.slice(-400));
}

function tidy(s: string): string {
  return s.replace(/\r\n/g, '\n').replace(/[ \t]+$/gm, '').trim().slice(0, ARTIFACT_CAPS.message);
}

/**
 * Collects one ask's artifacts from its turn's events, in order. Tool results are paired with
 * their call by `callId` when the agent's transcript has one, else with the latest open call.
 */
export class ArtifactCollector {
  private readonly out: AgentArtifacts = {};
  private readonly open = new Map<string, AgentCommand>();
  private lastOpen: AgentCommand | null = null;

  toolCall(toolName: string, input: string, ts: number | null, meta: { callId?: unknown; wrote?: unknown }): void {
    if (isCommandTool(toolName)) {
      const commit = commitMessageOfCommand(input);
      if (commit) this.out.commitMessage = commit;
      const cmds = (this.out.commands ??= []);
      const c: AgentCommand = { command: input.trim().slice(0, ARTIFACT_CAPS.command), failed: false, ts };
      if (!c.command) return;
      if (cmds.length < ARTIFACT_CAPS.commands) cmds.push(c);
      if (typeof meta.callId === 'string') this.open.set(meta.callId, c);
      this.lastOpen = c;
      return;
    }
    this.lastOpen = null;
    if (!WRITE_TOOL_RE.test(toolName.trim())) return;
    const p = input.trim().split('\n', 1)[0]?.trim() ?? '';
    if (!p || p.startsWith('{') || p.length > 400) return;
    const files = (this.out.files ??= []);
    const content = typeof meta.wrote === 'string' ? meta.wrote.slice(0, ARTIFACT_CAPS.content) : undefined;
    const known = files.find((f) => f.path === p);
    // a later whole-file write is the agent's final version; an edit after it makes the content unknown
    if (known) {
      if (content !== undefined) known.content = content;
      else delete known.content;
      return;
    }
    if (files.length < ARTIFACT_CAPS.files) files.push(content !== undefined ? { path: p, content } : { path: p });
  }

  toolResult(isError: boolean, output: string, meta: { callId?: unknown }): void {
    const c = typeof meta.callId === 'string' ? this.open.get(meta.callId) : this.lastOpen;
    if (!c) return;
    if (resultFailed(isError, output)) c.failed = true;
    if (typeof meta.callId === 'string') this.open.delete(meta.callId);
    if (c === this.lastOpen) this.lastOpen = null;
  }

  /** The final reply of a commit job may carry the proposed message (when the agent did not commit). */
  finalReply(text: string): void {
    if (this.out.commitMessage) return;
    const m = fencedCommitMessage(text);
    if (m) this.proposed = m;
  }

  private proposed: string | null = null;

  result(): AgentArtifacts | undefined {
    const a: AgentArtifacts = { ...this.out };
    if (!a.commitMessage && this.proposed) a.commitMessage = this.proposed;
    return a.commitMessage || a.files?.length || a.commands?.length ? a : undefined;
  }
}

/**
 * Copilot CLI legacy sessions (≤ Oct 2025, docs/transcript-formats.md §4.1):
 * `<home>/history-session-state/session_<sessionId>_<epoch ms>.json` (some tools also name them
 * `<sessionId>.json`): one JSON document per session, rewritten by the CLI, dropped upstream since.
 *
 * Shape, as other readers of these files parse it (no official schema was published):
 * - `{sessionId, startTime (ISO), chatMessages[], timeline[], selectedModel?}` — the file name
 *   pattern `session_<uuid>_<timestamp>.json`, `sessionId`/`startTime`/`chatMessages`/`timeline`,
 *   and `<reminder>` tags injected into user messages: `CopilotSessionSource` (TypeScript, found with
 *   the code search for "history-session-state"); `sessionId` + `chatMessages` roles
 *   user/assistant/tool/system and `startTime`/`endTime`: the `SessionProcessor` usage tracker;
 *   `cwd`/`context.cwd`, `summary`/`title`, `updatedAt` read when present: a Copilot usage scanner's
 *   `read_legacy`.
 * - `chatMessages`: OpenAI-style messages `{role, content, tool_calls?: [{id, type:"function",
 *   function:{name, arguments (JSON text)}}], tool_call_id?, name?}` (promptimizer's ingest tests).
 * - `timeline`: the UI history with timestamps, entries `{id, timestamp, type, text?, callId?, name?,
 *   toolTitle?, intentionSummary?, arguments?, result?: {type, log?}}`, types `user`, `copilot`,
 *   `tool_call_requested`, `tool_call_completed`, `info` (a GitHub Copilot timeline parser; the
 *   legacy analyzer of a Rust usage tracker reads `tool_call_completed` with `toolTitle`,
 *   `arguments` and `result.log`).
 *
 * The timeline is preferred: it has per-entry timestamps, what the human typed (`text`, not the
 * expanded model input), tool call ids and result types. Files without user entries in their
 * timeline fall back to `chatMessages`. The files belong to finished sessions: the last answer of
 * the last turn is final.
 */
import path from 'node:path';
import { arr, isObj, obj, str, toMs, type Json } from '../kit/json.js';
import { SessionBuilder, summarizeInput } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';
import { copilotExitIsError, HIDDEN_CONTENT } from './cli-events.js';

const LEGACY_NAME = /^session_(.+)_(\d+)\.json$/;

/** `session_<id>_<ts>.json` → `<id>` (and the snapshot time); `<id>.json` → `<id>`. */
export function copilotLegacyName(filePath: string): { id: string; ts: number } {
  const base = path.basename(filePath);
  const m = LEGACY_NAME.exec(base);
  return m ? { id: m[1], ts: Number(m[2]) } : { id: base.replace(/\.json$/, ''), ts: 0 };
}

/** What the human typed: `<reminder>` blocks the CLI injected are removed. */
function cleanPrompt(raw: string): string {
  return raw.replace(/<reminder>[\s\S]*?<\/reminder>/gi, '').trim();
}

/** Message content as text: a string, or OpenAI content parts `[{type:"text", text}]`. */
function contentText(v: unknown): string {
  if (typeof v === 'string') return v;
  return arr(v)
    .map((p) => (typeof p === 'string' ? p : isObj(p) ? (str(p.text) ?? '') : ''))
    .join('');
}

/** Tool arguments arrive as an object or as JSON text (OpenAI `function.arguments`). */
function toolArgs(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/**
 * The input summary of a tool call. The legacy CLI's editor tool is `str_replace_editor` with a
 * one-word `command` (view, create, str_replace…) and a `path`: the verb alone says too little.
 */
function toolInput(v: unknown): string {
  const args = toolArgs(v);
  if (isObj(args) && typeof args.command === 'string' && /^[a-z_]+$/.test(args.command) && typeof args.path === 'string') {
    return summarizeInput(`${args.command} ${args.path}`);
  }
  return summarizeInput(args);
}

/** A result `type` other than success, or an `error`, marks a failed call; so does a shell exit code. */
function resultIsError(entry: Json, output: string): boolean {
  const result = obj(entry.result);
  const type = str(result?.type) ?? '';
  if (/fail|error|reject|denied|cancel/i.test(type)) return true;
  if (entry.error !== undefined && entry.error !== null && entry.error !== false) return true;
  return copilotExitIsError(output);
}

function resultText(entry: Json): string {
  const result = entry.result;
  if (typeof result === 'string') return result;
  const r = obj(result);
  const text = str(r?.log) ?? str(r?.content) ?? str(r?.text) ?? str(obj(entry.error)?.message) ?? str(entry.error);
  if (text !== undefined) return text;
  return r ? JSON.stringify(r) : '';
}

export class CopilotLegacyParser implements LineParser {
  private doc: Json | null = null;

  constructor(private readonly filePath: string) {}

  /** The whole document arrives as one "line" (whole-JSON read mode). */
  line(o: Json): void {
    this.doc = o;
  }

  private prompt(b: SessionBuilder, raw: string, ts: number | null): void {
    const t = cleanPrompt(raw);
    if (!t) return b.skip('empty');
    if (HIDDEN_CONTENT.some((p) => t.startsWith(p))) return b.skip('injected');
    b.prompt(t, ts);
  }

  private fromTimeline(b: SessionBuilder, timeline: Json[]): void {
    const called = new Set<string>();
    for (const e of timeline) {
      const ts = toMs(e.timestamp);
      const type = str(e.type) ?? '';
      const callId = str(e.callId);
      const name = str(e.name) ?? str(e.toolTitle) ?? 'unknown';
      switch (type) {
        case 'user':
          this.prompt(b, str(e.text) ?? '', ts);
          break;
        case 'copilot': {
          const text = (str(e.text) ?? '').trim();
          if (text) b.text(text, ts);
          else b.skip('empty');
          break;
        }
        case 'tool_call_requested':
          if (callId) called.add(callId);
          b.toolCall(name, callId, toolInput(e.arguments), ts, str(e.intentionSummary) ? { intent: str(e.intentionSummary) } : undefined);
          break;
        case 'tool_call_completed': {
          // some files hold only the completion: its name and arguments stand for the call
          if (!callId || !called.has(callId)) b.toolCall(name, callId, toolInput(e.arguments), ts);
          const output = resultText(e);
          b.toolResult(callId, output, resultIsError(e, output), ts, undefined, name);
          break;
        }
        case 'info':
        case 'warning':
        case 'error':
          b.touch(ts);
          b.skip('side-channel');
          break;
        default:
          b.touch(ts);
          b.skip('unknown-type');
      }
    }
  }

  private fromChatMessages(b: SessionBuilder, messages: unknown[]): void {
    for (const m of messages) {
      if (!isObj(m)) continue;
      const role = str(m.role) ?? '';
      const text = contentText(m.content);
      if (role === 'user') {
        this.prompt(b, text, null);
      } else if (role === 'assistant') {
        const calls = arr(m.tool_calls).filter(isObj);
        if (text.trim()) b.text(text.trim(), null, { candidate: calls.length === 0 });
        for (const c of calls) {
          const fn = obj(c.function);
          b.toolCall(str(fn?.name) ?? str(c.name) ?? 'unknown', str(c.id), toolInput(fn?.arguments ?? c.arguments), null);
        }
      } else if (role === 'tool') {
        b.toolResult(str(m.tool_call_id), text, copilotExitIsError(text), null, undefined, str(m.name));
      } else {
        b.skip(role === 'system' ? 'side-channel' : 'unknown-type');
      }
    }
  }

  flush(): ParseOutput {
    const b = new SessionBuilder('copilot');
    const d = this.doc;
    if (!d) return b.flush(false);
    b.st.vendorId = str(d.sessionId) ?? copilotLegacyName(this.filePath).id;
    const ctx = obj(d.context);
    b.setCwd(str(d.cwd) ?? ctx?.cwd);
    if (typeof ctx?.gitRoot === 'string' && ctx.gitRoot) b.st.gitRoot = ctx.gitRoot;
    if (typeof ctx?.branch === 'string' && ctx.branch) b.st.gitBranch = ctx.branch;
    b.st.title = str(d.summary) ?? str(d.title) ?? str(d.name) ?? null;
    b.touch(toMs(d.startTime));
    const timeline = arr(d.timeline).filter(isObj);
    if (timeline.some((e) => e.type === 'user')) this.fromTimeline(b, timeline);
    else this.fromChatMessages(b, arr(d.chatMessages));
    b.touch(toMs(d.endTime) ?? toMs(d.updatedAt));
    // a finished session: the last turn's last answer is its final one
    return b.flush(true);
  }

  saveState(): unknown {
    return null; // whole-mode: always rebuilt from the file
  }
}

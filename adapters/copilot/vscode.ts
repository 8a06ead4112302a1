/**
 * VS Code Copilot Chat sessions → events (docs/transcript-formats.md §3). A `.jsonl` file is an
 * ObjectMutationLog: `kind` 0 initial state, 1 set (`v` absent = undefined), 2 push (truncate to
 * `i` first), 3 delete — replayed in order, best effort per entry. A `.json` file is the whole
 * state. Either way the session is rebuilt from the final state on every change (VS Code rewrites
 * these files), so this parser is used in `whole` read mode. Titles of chats never renamed come
 * from VS Code's `state.vscdb` index (./vscdb.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { arr, isObj, obj, str, toMs, type Json } from '../kit/json.js';
import { SessionBuilder } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';
import { vscodeIndexTitle } from './vscdb.js';

type Key = string | number;

/** Applies one mutation-log entry to `root`; returns the new root. Throws on a malformed path. */
export function applyMutation(root: unknown, entry: Json): unknown {
  const kind = entry.kind;
  if (kind === 0) return entry.v;
  const k = Array.isArray(entry.k) ? (entry.k as Key[]) : [];
  if (k.length === 0) {
    if (kind === 1) return entry.v;
    throw new Error('empty path');
  }
  let parent: unknown = root;
  for (const seg of k.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') throw new Error(`missing path segment ${String(seg)}`);
    parent = (parent as Record<string, unknown>)[seg as string];
  }
  if (parent === null || typeof parent !== 'object') throw new Error('missing parent');
  const container = parent as Record<string | number, unknown>;
  const last = k[k.length - 1];
  if (kind === 1) {
    if ('v' in entry) container[last] = entry.v;
    else delete container[last];
  } else if (kind === 2) {
    let target = container[last];
    if (!Array.isArray(target)) {
      target = [];
      container[last] = target;
    }
    const list = target as unknown[];
    if (typeof entry.i === 'number') list.length = Math.min(list.length, Math.max(0, entry.i));
    if (Array.isArray(entry.v)) list.push(...(entry.v as unknown[]));
  } else if (kind === 3) {
    if (Array.isArray(container)) container[last as number] = undefined;
    else delete container[last];
  } else {
    throw new Error(`unknown kind ${String(kind)}`);
  }
  return root;
}

/** `workspace.json` next to `chatSessions/` → the folder (or workspace file's folder) it is for. */
export function vscodeWorkspaceFolder(chatFile: string): string | null {
  return vscodeWorkspaceFolderOf(path.dirname(path.dirname(chatFile)));
}

/** `<wsDir>/workspace.json` → the folder (or workspace file's folder) that workspace is for. */
export function vscodeWorkspaceFolderOf(wsDir: string): string | null {
  let j: unknown;
  try {
    j = JSON.parse(fs.readFileSync(path.join(wsDir, 'workspace.json'), 'utf8'));
  } catch {
    return null;
  }
  if (!isObj(j)) return null;
  const folder = str(j.folder);
  const workspace = str(j.workspace);
  const uri = folder ?? workspace;
  if (!uri) return null;
  let p: string;
  try {
    const u = new URL(uri);
    p = decodeURIComponent(u.pathname);
    if (/^\/[A-Za-z]:\//.test(p)) p = p.slice(1); // file:///C:/x
  } catch {
    p = uri;
  }
  return workspace && !folder ? path.posix.dirname(p) : p;
}

function markdownOf(part: Json): string | null {
  if (part.kind === undefined && typeof part.value === 'string') return part.value;
  if (part.kind === 'markdownContent') return str(obj(part.content)?.value) ?? str(part.content) ?? null;
  if (part.kind === 'inlineReference') {
    const ref = obj(part.inlineReference);
    return str(part.name) ?? str(ref?.path) ?? str(obj(ref?.uri)?.path) ?? null;
  }
  return null;
}

function toolIsError(part: Json): boolean {
  const details = obj(part.resultDetails);
  if (details?.isError === true) return true;
  const tsd = obj(part.toolSpecificData);
  const exit = obj(tsd?.terminalCommandState)?.exitCode;
  return typeof exit === 'number' && exit !== 0;
}

function toolOutput(part: Json, results: Json | undefined): string {
  const tsd = obj(part.toolSpecificData);
  const term = str(obj(tsd?.terminalCommandOutput)?.text);
  if (term) return term;
  const fromResults = obj(results?.[str(part.toolCallId) ?? ''])?.content;
  const joined = arr(fromResults)
    .map((c) => (isObj(c) ? (str(c.value) ?? '') : ''))
    .join('\n');
  if (joined) return joined;
  const out = arr(obj(part.resultDetails)?.output)
    .map((o) => (isObj(o) ? (str(o.value) ?? '') : ''))
    .join('\n');
  if (out) return out;
  const past = part.pastTenseMessage;
  return str(past) ?? str(obj(past)?.value) ?? '';
}

function toolInput(part: Json): string {
  const tsd = obj(part.toolSpecificData);
  const cmd = str(obj(tsd?.commandLine)?.original);
  if (cmd) return cmd;
  const input = str(obj(part.resultDetails)?.input);
  if (input) return input.slice(0, 2000);
  const inv = part.invocationMessage;
  return str(inv) ?? str(obj(inv)?.value) ?? '';
}

export class VscodeChatParser implements LineParser {
  private state: unknown = undefined;
  private badEntries = 0;
  private readonly vendorId: string;

  constructor(private readonly filePath: string) {
    this.vendorId = path.basename(filePath).replace(/\.jsonl?$/, '');
  }

  line(o: Json): void {
    if (typeof o.kind === 'number' && !('requests' in o)) {
      try {
        this.state = applyMutation(this.state, o);
      } catch {
        // one bad entry must not kill the session (vscode-session-trace does the same)
        this.badEntries++;
      }
    } else if (this.filePath.endsWith('.jsonl') && this.state !== undefined) {
      // a mutation log line without a numeric kind is a bad line: it costs itself, not the session
      this.badEntries++;
    } else {
      this.state = o; // legacy .json: the whole state
    }
  }

  flush(): ParseOutput {
    const b = new SessionBuilder('copilot');
    if (this.badEntries) b.skip('replay-error', this.badEntries);
    const s = obj(this.state);
    if (!s) return b.flush(false);
    b.st.vendorId = str(s.sessionId) ?? this.vendorId;
    const folder = vscodeWorkspaceFolder(this.filePath);
    if (folder) b.st.cwd = folder;
    // a renamed chat carries its title; otherwise VS Code's index has it (read once per database)
    b.st.title = str(s.customTitle) ?? vscodeIndexTitle(this.filePath, b.st.vendorId);
    b.touch(toMs(s.creationDate));
    for (const rq of arr(s.requests)) {
      if (!isObj(rq)) continue;
      if (rq.isSystemInitiated === true || typeof rq.systemInitiatedLabel === 'string' || rq.isHidden === true) {
        b.skip('system-initiated');
        continue;
      }
      const ext = str(obj(obj(rq.agent)?.extensionId)?._lower);
      if (ext && ext !== 'github.copilot-chat') {
        b.skip('other-participant');
        continue;
      }
      const msg = rq.message;
      const text = (typeof msg === 'string' ? msg : (str(obj(msg)?.text) ?? '')).trim();
      const ts = toMs(rq.timestamp);
      if (!text) {
        b.skip('empty');
        continue;
      }
      b.prompt(text, ts, { requestId: str(rq.requestId) });
      const state = obj(rq.modelState)?.value;
      const doneAt = toMs(obj(rq.modelState)?.completedAt) ?? ts;
      const result = obj(rq.result);
      const results = obj(obj(result?.metadata)?.toolCallResults);
      const markdown: string[] = [];
      const response = typeof rq.response === 'string' ? [{ value: rq.response }] : arr(rq.response);
      for (const part of response) {
        if (!isObj(part)) continue;
        const md = markdownOf(part);
        if (md !== null) {
          markdown.push(md);
          continue;
        }
        if (part.kind === 'toolInvocationSerialized') {
          const name = str(part.toolId) ?? 'unknown';
          const callId = str(part.toolCallId);
          const sub = str(part.subAgentInvocationId) ?? (part.fromSubAgent === true ? 'true' : undefined);
          const meta = sub ? { subagent: sub } : undefined;
          b.toolCall(name, callId, toolInput(part), ts, meta);
          if (part.isComplete !== false) b.toolResult(callId, toolOutput(part, results), toolIsError(part), doneAt, meta);
        }
      }
      const answer = markdown.join('').trim();
      const failed = state === 3 || !!obj(result?.errorDetails);
      if (answer) b.text(answer, doneAt, { candidate: !failed, complete: state === 1 || state === undefined });
      if (failed) {
        const m = str(obj(result?.errorDetails)?.message) ?? 'request failed';
        b.emit({ role: 'assistant', kind: 'text', text: m, ts: doneAt, isError: true, meta: { failed: true, modelState: state ?? null } });
      } else if (state === 2 || rq.isCanceled === true) {
        b.skip('cancelled');
      }
      b.touch(doneAt);
    }
    return b.flush(false);
  }

  saveState(): unknown {
    return null; // whole-mode: always rebuilt from the file
  }
}

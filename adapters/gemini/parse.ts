/**
 * Gemini CLI chats → events. Both eras come to the same conversation record
 * (`{sessionId, projectHash, startTime, lastUpdated, summary?, kind?, messages[]}`):
 * - JSONL (current): a metadata line, then message records (`{id, timestamp, type, content, …}`;
 *   a message updated in place is appended again with the same id), `{"$set": {...}}` metadata
 *   patches (`$set.messages` is a checkpoint: the messages are replaced), and
 *   `{"$rewindTo": id}`, which drops that message and every one after it;
 * - JSON (older): the whole record as one document.
 * The file is therefore replayed whole (read mode `whole`) and the session rebuilt from the final
 * record, as the CLI's own loader does. Messages: `user` (the first one is an injected
 * `<session_context>` block), `gemini` (text, `toolCalls` with their results), and
 * `info`/`error`/`warning` (UI notices, not conversation).
 */
import path from 'node:path';
import { arr, isObj, str, toMs, type Json } from '../kit/json.js';
import { SessionBuilder, stripLeadingBlocks, summarizeInput, emptyBuilderState } from '../kit/session-builder.js';
import { skillFromToolInput } from '../skill-signal.js';
import type { LineParser, ParseOutput } from '../types.js';
import { geminiParentSessionId, geminiProjectRoot } from './paths.js';
import { GEMINI_SESSION_CONTEXT_TAG, GEMINI_SKILL_TOOL } from './vocabulary.js';

/** Text of a PartListUnion: a string, a Part (`{text}`), or an array of either. */
export function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  const out: string[] = [];
  for (const p of parts) {
    if (typeof p === 'string') out.push(p);
    else if (isObj(p) && typeof p.text === 'string' && p.thought !== true) out.push(p.text);
  }
  return out.join('');
}

/** What a tool call returned: the functionResponse's output or error, else its display text. */
export function toolResultText(call: Json): string {
  for (const p of Array.isArray(call.result) ? call.result : [call.result]) {
    if (!isObj(p) || !isObj(p.functionResponse)) continue;
    const r = p.functionResponse.response;
    if (isObj(r)) {
      const v = r.output ?? r.error ?? r.llmContent;
      if (typeof v === 'string') return v;
      try {
        return JSON.stringify(r);
      } catch {
        return '';
      }
    }
  }
  if (typeof call.resultDisplay === 'string') return call.resultDisplay;
  return partsText(call.result);
}

function isMessage(o: Json): boolean {
  return typeof o.id === 'string' && typeof o.type === 'string' && 'content' in o;
}

export class GeminiParser implements LineParser {
  private meta: Json = {};
  private readonly messages = new Map<string, Json>();
  private skipped: Record<string, number> = {};

  constructor(private readonly filePath: string) {}

  private load(list: unknown): void {
    for (const m of arr(list)) if (isObj(m) && isMessage(m)) this.messages.set(m.id as string, m);
  }

  line(o: Json): void {
    if (typeof o.$rewindTo === 'string') {
      const ids = [...this.messages.keys()];
      const k = ids.indexOf(o.$rewindTo);
      // a rewind to an unknown message empties the conversation, as the CLI's loader does
      for (const id of k < 0 ? ids : ids.slice(k)) this.messages.delete(id);
      return;
    }
    if (isObj(o.$set)) {
      if (Array.isArray(o.$set.messages)) {
        this.messages.clear();
        this.load(o.$set.messages);
      }
      const { messages: _m, ...rest } = o.$set;
      this.meta = { ...this.meta, ...rest };
      return;
    }
    if (isMessage(o)) {
      this.messages.set(o.id as string, o);
      return;
    }
    if (typeof o.sessionId === 'string') {
      // the metadata line, or a whole older-era document
      const { messages, ...rest } = o;
      this.meta = { ...this.meta, ...rest };
      if (Array.isArray(messages)) this.load(messages);
      return;
    }
    this.skipped['unknown-type'] = (this.skipped['unknown-type'] ?? 0) + 1;
  }

  flush(): ParseOutput {
    const sessionId = str(this.meta.sessionId);
    const state = emptyBuilderState();
    const b = new SessionBuilder('gemini', state);
    for (const [k, v] of Object.entries(this.skipped)) b.skip(k, v);
    if (!sessionId) return b.flush(false);
    state.vendorId = sessionId;
    state.cwd = geminiProjectRoot(this.filePath) ?? (arr(this.meta.directories).find((d): d is string => typeof d === 'string' && path.isAbsolute(d)) ?? null);
    if (typeof this.meta.summary === 'string' && this.meta.summary) state.title = this.meta.summary;
    const parent = geminiParentSessionId(this.filePath);
    if (this.meta.kind === 'subagent' || parent) {
      state.kind = 'subagent';
      if (parent) state.parentId = `gemini:${parent}`;
    }
    b.touch(toMs(this.meta.startTime));
    let first = true;
    for (const m of this.messages.values()) {
      const ts = toMs(m.timestamp);
      b.touch(ts);
      const type = m.type as string;
      if (type === 'user') {
        const raw = partsText(m.content).trim();
        const wasFirst = first;
        first = false;
        const text = stripLeadingBlocks(raw, [GEMINI_SESSION_CONTEXT_TAG]).trim();
        if (!text) {
          b.skip(wasFirst && raw.startsWith(`<${GEMINI_SESSION_CONTEXT_TAG}>`) ? 'injected' : 'empty');
          continue;
        }
        b.prompt(text, ts, {});
        continue;
      }
      if (type !== 'gemini') {
        b.skip('side-channel');
        continue;
      }
      const calls = arr(m.toolCalls).filter(isObj);
      const text = partsText(m.content);
      if (text.trim()) b.text(text, ts, { candidate: calls.length === 0, complete: calls.length === 0 });
      for (const c of calls) {
        const name = str(c.name) ?? 'unknown';
        const skill = name === GEMINI_SKILL_TOOL ? skillFromToolInput(c.args) : null;
        const callTs = toMs(c.timestamp) ?? ts;
        b.toolCall(name, str(c.id), summarizeInput(c.args), callTs, skill ? { skill } : undefined);
        if (c.status === undefined || c.status === 'executing' || c.status === 'scheduled' || c.status === 'validating' || c.status === 'awaiting_approval') continue;
        b.toolResult(str(c.id), toolResultText(c), c.status === 'error' || c.status === 'cancelled', callTs, undefined, name);
      }
    }
    return b.flush(false);
  }

  saveState(): unknown {
    return null;
  }
}

export function createGeminiParser(filePath: string): LineParser {
  return new GeminiParser(filePath);
}

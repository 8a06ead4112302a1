/**
 * One OpenCode session → events. The store (./store.ts) hands the parser the session row, then its
 * messages (`data`: `{role, time: {created, completed?}, error?, …}`), then its parts (`data`:
 * `{type, …}`), each `data` as the JSON text stored. The conversation:
 * - a user message's text parts (`type: "text"`, not `synthetic` or `ignored`) are the prompt;
 * - an assistant message's text parts are its answer; its tool parts (`type: "tool"`, `tool`,
 *   `callID`, `state: {status, input, output | error}`; before 0.4, `type: "tool-invocation"` with
 *   `toolInvocation.toolName`) are its calls and their results;
 * - reasoning, step, snapshot, patch, file and the other part types are not conversation.
 * Any message or part whose `data` does not parse drops the whole session: a conversation with a
 * hole could pair an answer with the wrong ask.
 */
import { isObj, str, type Json } from '../kit/json.js';
import { SessionBuilder, emptyBuilderState, summarizeInput } from '../kit/session-builder.js';
import { skillFromToolInput } from '../skill-signal.js';
import type { LineParser, ParseOutput } from '../types.js';
import { OPENCODE_SKILL_TOOL } from './vocabulary.js';

interface Message {
  id: string;
  ts: number | null;
  data: Json;
  parts: Json[];
}

function ms(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
}

function parseData(v: unknown): Json | null {
  if (typeof v !== 'string') return null;
  try {
    const j = JSON.parse(v) as unknown;
    return isObj(j) ? j : null;
  } catch {
    return null;
  }
}

function isSpokenText(p: Json): boolean {
  return p.type === 'text' && typeof p.text === 'string' && p.synthetic !== true && p.ignored !== true;
}

function toolOutput(state: Json): string {
  const v = state.status === 'error' ? state.error : state.output;
  if (typeof v === 'string') return v;
  try {
    return v === undefined ? '' : JSON.stringify(v);
  } catch {
    return '';
  }
}

export class OpencodeParser implements LineParser {
  private session: Json | null = null;
  private readonly messages = new Map<string, Message>();
  private unparsable = 0;
  private orphanParts = 0;

  line(o: Json): void {
    if (o.record === 'session') {
      this.session = o;
    } else if (o.record === 'message') {
      const data = parseData(o.data);
      const id = str(o.id);
      if (!data || !id) return void this.unparsable++;
      this.messages.set(id, { id, ts: ms(o.time_created), data, parts: [] });
    } else if (o.record === 'part') {
      const data = parseData(o.data);
      if (!data) return void this.unparsable++;
      const m = this.messages.get(str(o.message_id) ?? '');
      if (m) m.parts.push(data);
      else this.orphanParts++;
    }
  }

  flush(): ParseOutput {
    const state = emptyBuilderState();
    const b = new SessionBuilder('opencode', state);
    const s = this.session;
    const vendorId = s ? str(s.id) : null;
    if (!s || !vendorId) return b.flush(false);
    if (this.unparsable) {
      // the whole session goes: no identity, so nothing of it is stored
      b.skip('unparsable-session');
      b.skip('unparsable-record', this.unparsable);
      return b.flush(false);
    }
    if (this.orphanParts) b.skip('orphan-part', this.orphanParts);
    state.vendorId = vendorId;
    const dir = str(s.directory);
    if (dir && (dir.startsWith('/') || /^[A-Za-z]:[\\/]/.test(dir))) state.cwd = dir;
    const title = str(s.title);
    if (title) state.title = title;
    const meta = parseData(s.metadata);
    if (meta && typeof meta.gitBranch === 'string') state.gitBranch = meta.gitBranch;
    b.touch(ms(s.time_created));
    b.touch(ms(s.time_updated));
    for (const m of this.messages.values()) this.message(b, m);
    return b.flush(false);
  }

  private message(b: SessionBuilder, m: Message): void {
    const time = isObj(m.data.time) ? m.data.time : {};
    const ts = ms(time.created) ?? m.ts;
    b.touch(ts);
    b.touch(ms(time.completed));
    const role = m.data.role;
    if (role === 'user') {
      const text = m.parts.filter(isSpokenText).map((p) => p.text as string).join('\n').trim();
      if (text) b.prompt(text, ts, { messageId: m.id });
      else b.skip(m.parts.length ? 'injected' : 'empty');
      return;
    }
    if (role !== 'assistant') return b.skip('unknown-role');
    if (m.data.error !== undefined && m.data.error !== null) b.skip('message-error');
    // the answer of a finished message is a text with no tool call after it (a step that ended in tools goes on)
    const lastTool = m.parts.findLastIndex((p) => p.type === 'tool' || p.type === 'tool-invocation');
    const done = ms(time.completed) !== null;
    for (const [i, p] of m.parts.entries()) {
      if (isSpokenText(p)) {
        if ((p.text as string).trim()) b.text(p.text as string, ts, { candidate: true, complete: done && i > lastTool, meta: { messageId: m.id } });
      } else if (p.type === 'tool' && isObj(p.state)) {
        this.tool(b, str(p.tool) ?? 'unknown', str(p.callID), p.state, ts);
      } else if (p.type === 'tool-invocation' && isObj(p.toolInvocation)) {
        const inv = p.toolInvocation;
        const st: Json = { status: inv.state === 'result' ? 'completed' : 'running', input: inv.args, output: inv.result };
        this.tool(b, str(inv.toolName) ?? 'unknown', str(inv.toolCallId), st, ts);
      }
    }
  }

  private tool(b: SessionBuilder, name: string, callId: string | undefined, state: Json, ts: number | null): void {
    const t = isObj(state.time) ? state.time : {};
    const skill = name === OPENCODE_SKILL_TOOL ? skillFromToolInput(state.input) : null;
    b.toolCall(name, callId, summarizeInput(state.input), ms(t.start) ?? ts, skill ? { skill } : undefined);
    if (state.status === 'completed' || state.status === 'error') b.toolResult(callId, toolOutput(state), state.status === 'error', ms(t.end) ?? ts, undefined, name);
  }

  saveState(): unknown {
    return null;
  }
}

export function createOpencodeParser(): LineParser {
  return new OpencodeParser();
}

/**
 * Pi session JSONL → events (docs/transcript-formats.md "Pi"). The first line is the header
 * `{type:"session", version?, id, timestamp, cwd}`; every later line is an entry.
 * - version 1 (or none): the entries are the conversation, in file order;
 * - versions 2 and 3: an append-only tree (`id`, `parentId` null or an earlier entry's id). The
 *   conversation is the branch from the LAST entry back to its root, as Pi itself resumes it
 *   (pi-mono session-manager.ts: the leaf is the last entry; `getBranch` walks `parentId`).
 *   A duplicate id, a parent that is not an earlier entry (a forward reference, a cycle) or an
 *   entry without an id means the tree cannot be trusted: the session keeps no events, and the
 *   skip reason `broken-tree` says why.
 * Messages: `user` (string or text blocks) → prompt; `assistant` text blocks → answer text
 * (thinking skipped), `toolCall` blocks → tool calls; `toolResult` → the call's result. Other
 * entry types (model_change, compaction, label, custom, …) only move the session's timestamps;
 * `session_info.name` is its title.
 * A fork (`/fork`, `--fork`: header `parentSession`, the parent's file) starts with a verbatim copy
 * of the parent's entries, their old timestamps kept: entries older than the header are the
 * parent's turns (already harvested from its own file) and are skipped as `fork-replay`.
 */
import { arr, isObj, str, toMs, type Json } from '../kit/json.js';
import { emptyBuilderState, SessionBuilder, summarizeInput } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';

/** Text of Pi content: a string or `{type:"text", text}` blocks (images and thinking left out). */
export function piText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .filter((c): c is Json => isObj(c) && c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n');
}

/** The active branch of a v2/v3 tree, root first; null when the tree is malformed. */
export function activeBranch(entries: Json[]): Json[] | null {
  if (!entries.length) return [];
  const index = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const id = str(e.id);
    if (!id || index.has(id)) return null;
    const parent = e.parentId;
    // append-only: a parent is always written before its child, so anything else is corruption
    if (parent !== null && (typeof parent !== 'string' || !index.has(parent))) return null;
    index.set(id, i);
  }
  const chain: Json[] = [];
  let cur: Json | undefined = entries[entries.length - 1];
  while (cur) {
    chain.push(cur);
    cur = typeof cur.parentId === 'string' ? entries[index.get(cur.parentId)!] : undefined;
  }
  return chain.reverse();
}

/** The session id in a session file's name, `<timestamp>_<uuid>.jsonl`. */
export function piSessionIdFromPath(file: string): string | null {
  const m = /_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(file);
  return m ? m[1].toLowerCase() : null;
}

export class PiParser implements LineParser {
  private header: Json | null = null;
  private readonly entries: Json[] = [];
  private readonly skipped: Record<string, number> = {};
  /** a fork's creation instant: entries older than it were copied from the parent */
  private forkAt: number | null = null;

  private skip(reason: string): void {
    this.skipped[reason] = (this.skipped[reason] ?? 0) + 1;
  }

  line(o: Json): void {
    if (o.type === 'session') {
      // the header is the first line; a later one (Pi never writes it) is skipped, not trusted
      if (this.header || this.entries.length) return this.skip('duplicate-header');
      this.header = o;
      return;
    }
    if (!this.header) return this.skip('no-header');
    this.entries.push(o);
  }

  flush(): ParseOutput {
    const state = emptyBuilderState();
    const b = new SessionBuilder('pi', state);
    for (const [k, v] of Object.entries(this.skipped)) b.skip(k, v);
    const h = this.header;
    const id = h ? str(h.id) : undefined;
    if (!h || !id) {
      if (h) b.skip('invalid-header');
      return b.flush(false);
    }
    state.vendorId = id;
    b.setCwd(h.cwd);
    b.touch(toMs(h.timestamp));
    if (typeof h.parentSession === 'string' && h.parentSession) {
      this.forkAt = toMs(h.timestamp);
      const parent = piSessionIdFromPath(h.parentSession);
      if (parent) state.parentId = `pi:${parent}`;
    }
    const version = h.version ?? 1;
    let branch: Json[] | null;
    if (version === 1) branch = this.entries;
    else if (version === 2 || version === 3) branch = activeBranch(this.entries);
    else {
      b.skip('unknown-version', this.entries.length);
      return b.flush(false);
    }
    if (!branch) {
      b.skip('broken-tree', this.entries.length);
      return b.flush(false);
    }
    b.skip('other-branch', this.entries.length - branch.length);
    for (const e of branch) this.entry(b, e);
    return b.flush(false);
  }

  private entry(b: SessionBuilder, e: Json): void {
    const ts = toMs(e.timestamp);
    if (this.forkAt !== null && ts !== null && ts < this.forkAt) return b.skip('fork-replay');
    b.touch(ts);
    if (e.type === 'session_info' && typeof e.name === 'string' && e.name.trim()) {
      b.st.title = e.name.trim();
      return;
    }
    if (e.type !== 'message' || !isObj(e.message)) return b.skip('side-channel');
    const m = e.message;
    const at = ts ?? toMs(m.timestamp);
    switch (m.role) {
      case 'user': {
        const text = piText(m.content).trim();
        if (!text) return b.skip('empty');
        return b.prompt(text, at, {});
      }
      case 'assistant': {
        const blocks = arr(m.content).filter(isObj);
        const calls = blocks.filter((c) => c.type === 'toolCall');
        const text = piText(blocks);
        // `stopReason: "stop"` ends the turn: this text is its answer
        if (text.trim()) b.text(text, at, { candidate: calls.length === 0, complete: m.stopReason === 'stop' });
        for (const c of calls) b.toolCall(str(c.name) ?? 'unknown', str(c.id), summarizeInput(c.arguments), at);
        if (!text.trim() && !calls.length) b.skip('empty');
        return;
      }
      case 'toolResult':
        return b.toolResult(str(m.toolCallId), piText(m.content), m.isError === true, at, undefined, str(m.toolName));
      default:
        // bashExecution (the user's own `!` command), custom, branch and compaction summaries
        return b.skip('side-channel');
    }
  }

  saveState(): unknown {
    return null;
  }
}

export function createPiParser(): LineParser {
  return new PiParser();
}

/**
 * Cursor Agent transcripts → events. Each line is `{role, message: {content}}` (the role may sit in
 * `message.role` instead) or `{type: "turn_ended", status}`:
 * - user: the text blocks; when they end with `<user_query>…</user_query>` only its inside is the
 *   prompt (what precedes it — `<attached_files>` and the like — is context Cursor attached);
 * - assistant: `text` blocks are the answer; a `tool_use` block is a call (its name and a summary of its
 *   input: the command or path, redacted like any text). Tool results are not read (upstream reads none);
 * - `turn_ended`: the turn's last text is its answer; `status: "error"` counts as an error.
 *
 * The records carry NO timestamps. A session's time is its file's mtime when a harvest reads it:
 * the events of one read all get that instant, so the session ends at the last write seen and
 * starts at the first read's mtime (an upper bound on when it began). Mining's time windows then
 * place a session where it was last active, as upstream does (`ended_at` = mtime).
 */
import { arr, isObj, obj, str, type Json } from '../kit/json.js';
import { SessionBuilder, emptyBuilderState, stripLeadingBlocks, summarizeInput, type BuilderState } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';
import { cursorFileTime, cursorSessionId, cursorWorkspace } from './paths.js';
import { CURSOR_ATTACHED_FILES_TAG, CURSOR_USER_QUERY_TAG } from './vocabulary.js';

const QUERY_AT_END = new RegExp(`<${CURSOR_USER_QUERY_TAG}>([\\s\\S]*)</${CURSOR_USER_QUERY_TAG}>\\s*$`);

/** The text blocks of a message's content (a string, or an array of `{type:"text", text}` blocks). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .filter(isObj)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/** What the user typed: the inside of a trailing `<user_query>` block, else the text without leading envelopes. */
export function cursorUserText(raw: string): string {
  const text = raw.replace(/\0/g, '');
  const q = QUERY_AT_END.exec(text);
  if (q) return q[1].trim();
  return stripLeadingBlocks(text, [CURSOR_ATTACHED_FILES_TAG]).trim();
}

export class CursorParser implements LineParser {
  private readonly st: BuilderState;
  private readonly b: SessionBuilder;
  /** the file's mtime at this read: the time of every event it finds (records carry none) */
  private readonly readTime: number | null;

  constructor(filePath: string, state?: unknown) {
    this.st = isObj(state) && typeof state.seq === 'number' ? (state as unknown as BuilderState) : emptyBuilderState();
    this.b = new SessionBuilder('cursor', this.st);
    if (!this.st.vendorId) this.st.vendorId = cursorSessionId(filePath);
    if (!this.st.cwd) this.st.cwd = cursorWorkspace(filePath);
    this.readTime = cursorFileTime(filePath);
  }

  line(o: Json): void {
    if (o.type === 'turn_ended') {
      if (o.status === 'error') this.st.toolErrors++;
      this.b.completeTurn();
      return;
    }
    const message = obj(o.message);
    const role = str(o.role) ?? str(message?.role);
    if (!message || (role !== 'user' && role !== 'assistant')) {
      this.b.skip('unknown-type');
      return;
    }
    if (role === 'user') {
      const text = cursorUserText(contentText(message.content));
      if (text) this.b.prompt(text, this.readTime);
      else this.b.skip('empty');
      return;
    }
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : arr(message.content).filter(isObj);
    const tools = blocks.filter((b) => b.type === 'tool_use');
    const text = contentText(blocks);
    if (text.trim()) this.b.text(text, this.readTime, { candidate: true });
    // no call id: results are never read, so nothing would ever settle a pending call in the saved state
    for (const t of tools) this.b.toolCall(str(t.name) ?? 'unknown', undefined, summarizeInput(t.input), this.readTime);
  }

  flush(): ParseOutput {
    // no timestamps: the read's mtime is the session's latest activity
    this.b.touch(this.readTime);
    // a turn without `turn_ended` (older files, a turn still running) keeps its last text as the answer so far
    return this.b.flush(true);
  }

  saveState(): unknown {
    return this.st;
  }
}

export function createCursorParser(filePath: string, state: unknown): LineParser {
  return new CursorParser(filePath, state);
}

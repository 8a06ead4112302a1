/**
 * Antigravity CLI transcripts → events. One JSON record per step (docs/transcript-formats.md,
 * "Antigravity CLI"; the shape of the captured session nizos/probity
 * test/fixtures/antigravity-cli/real-session.jsonl): `{step_index, source, type, status,
 * created_at, content?, thinking?, tool_calls?, error?}`.
 * - `USER_INPUT`: the prompt is the inside of `<USER_REQUEST>`; the blocks the CLI appends (local
 *   time, model choice) are not the user's. An empty request (a plan approved with no words,
 *   vshulcz/deja-vu issue #3326) is no prompt.
 * - `PLANNER_RESPONSE`: `content` is the model's text (the turn's last is its answer), each
 *   `tool_calls[]` entry a call. `thinking` is never stored.
 * - `ERROR_MESSAGE`: a failed call; stored as an error result (the error is what the user reacts to).
 * - Tool result steps (`RUN_COMMAND`, `VIEW_FILE`, …) are tool output, paired with their call only
 *   by position (unverified): not stored. `CONVERSATION_HISTORY`, `CHECKPOINT` are no conversation.
 * The file is replayed whole on every change (paths.ts), so the parser keeps no state between reads.
 */
import { arr, isObj, str, toMs, type Json } from '../kit/json.js';
import { SessionBuilder, emptyBuilderState, summarizeInput } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';
import { antigravityConversationId, antigravityHomeOf } from './paths.js';
import { ANTIGRAVITY_APPENDED_TAGS, ANTIGRAVITY_REQUEST_TAG } from './vocabulary.js';
import { antigravityWorkspace } from './workspace.js';

const REQUEST = new RegExp(`<${ANTIGRAVITY_REQUEST_TAG}>([\\s\\S]*?)</${ANTIGRAVITY_REQUEST_TAG}>`);
const APPENDED = new RegExp(`<(${ANTIGRAVITY_APPENDED_TAGS.join('|')})>[\\s\\S]*?</\\1>`, 'g');

/** Step types that carry no conversation (no content, or the CLI's own bookkeeping). */
const NOT_CONVERSATION = new Set(['CONVERSATION_HISTORY', 'CHECKPOINT']);

/** Arguments that say what a call did, in the tools' own names (the guide's tool table, the capture). */
const ARG_KEYS = ['CommandLine', 'TargetFile', 'AbsolutePath', 'DirectoryPath', 'SearchPath', 'Query', 'Url', 'Pattern'];

/** What the user typed in a USER_INPUT step's content. */
export function antigravityUserText(content: string): string {
  const text = content.replace(/\0/g, '');
  const m = REQUEST.exec(text);
  // no wrapper is a shape no source shows: drop only the blocks known to be the CLI's
  return (m ? m[1] : text.replace(APPENDED, '')).trim();
}

/** A short form of a call's arguments: the command or path it names, else the arguments as JSON. */
export function antigravityCallSummary(args: unknown): string {
  if (isObj(args)) {
    for (const k of ARG_KEYS) {
      const v = args[k];
      if (typeof v === 'string' && v) return summarizeInput(v);
    }
  }
  return summarizeInput(args);
}

export class AntigravityParser implements LineParser {
  private readonly b: SessionBuilder;

  constructor(filePath: string) {
    const st = emptyBuilderState();
    st.vendorId = antigravityConversationId(filePath);
    st.cwd = antigravityWorkspace(antigravityHomeOf(filePath), st.vendorId);
    this.b = new SessionBuilder('antigravity', st);
  }

  line(o: Json): void {
    const type = str(o.type);
    const ts = toMs(o.created_at);
    if (!type) {
      this.b.skip('unknown-type');
      return;
    }
    if (type === 'USER_INPUT') {
      const text = antigravityUserText(str(o.content) ?? '');
      if (text) this.b.prompt(text, ts);
      else this.b.skip('empty');
      return;
    }
    if (type === 'PLANNER_RESPONSE') {
      const text = str(o.content);
      if (text?.trim()) this.b.text(text, ts, { candidate: true });
      for (const call of arr(o.tool_calls).filter(isObj)) this.b.toolCall(str(call.name) ?? 'unknown', undefined, antigravityCallSummary(call.args), ts);
      if (!text?.trim() && !arr(o.tool_calls).length) this.b.touch(ts);
      return;
    }
    if (type === 'ERROR_MESSAGE') {
      this.b.toolResult(undefined, str(o.error) ?? str(o.content) ?? '', true, ts);
      return;
    }
    this.b.touch(ts);
    this.b.skip(NOT_CONVERSATION.has(type) ? 'not-conversation' : 'tool-output');
  }

  flush(): ParseOutput {
    // no end-of-turn record: the last answer of the last turn so far is its final one
    return this.b.flush(true);
  }

  saveState(): unknown {
    return null;
  }
}

export function createAntigravityParser(filePath: string): LineParser {
  return new AntigravityParser(filePath);
}

/**
 * Claude Code JSONL → events (docs/transcript-formats.md §1). Prompts are `user` rows that are not
 * meta, compaction summaries, command echoes or tool results, plus `queued_command` attachments;
 * assistant responses are written one content block per line and merged by `message.id`; rows
 * re-appended by a second /compact are dropped by `uuid`; the final answer of a turn is the text
 * of the `end_turn` response (or the last text before the next real prompt).
 */
import path from 'node:path';
import { arr, isObj, obj, str, toMs, type Json } from '../kit/json.js';
import { emptyBuilderState, SessionBuilder, stripLeadingBlocks, summarizeInput, type BuilderState } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';
import { claudeSubagentInfo } from './paths.js';
import { CLAUDE_LEADING_ENVELOPES, CLAUDE_SKILL_TOOLS } from './vocabulary.js';
import { claudeSlashCommand, skillFromToolInput } from '../skill-signal.js';
import { redactValue } from '../../src/core/redact.js';

const ENVELOPES = CLAUDE_LEADING_ENVELOPES;

/** Harness-injected user text that is not something the human typed. */
const INJECTED_PREFIXES = [
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  'Caveat:',
  'This session is being continued from a previous conversation',
  '[Request interrupted by user',
  '<task-notification>',
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<user-prompt-submit-hook>',
  'Stop hook feedback:',
];

const SIDE_CHANNEL = new Set([
  'system',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'last-prompt',
  'permission-mode',
  'mode',
  'agent-name',
  'pr-link',
  'bridge-session',
  'tag',
]);

/** uuids remembered for de-duplication (a few hundred KB of state at most) */
const SEEN_CAP = 5000;
/** How much of a Write tool's content is handed to the builder (it redacts, then caps at TEXT_CAP.wrote). */
const WROTE_PRECUT = 8192;

const HEADLESS_ENTRYPOINTS = new Set(['sdk-cli', 'sdk-ts', 'sdk-py', 'sdk']);

interface ClaudeState {
  b: BuilderState;
  /** digests of the row uuids seen (`uuidKey`), oldest first */
  seen: string[];
  /** 1 = `seen` holds digests; absent in states saved before, which held whole uuids */
  seenKeys?: 1;
  aiTitle: string | null;
  customTitle: string | null;
  summary: string | null;
}

/**
 * A 64-bit digest of a row uuid (two FNV-style 32-bit hashes), a third of its length: the saved
 * state is rewritten on every append and read on every pass, and holds up to SEEN_CAP of these.
 * A false "duplicate" needs a 64-bit collision within one file.
 */
export function uuidKey(uuid: string): string {
  // (the shape of the result, [0-9a-z]{8,14}, is what `isUuidKey` checks and `saveRedactedState` relies on)
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < uuid.length; i++) {
    const c = uuid.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return base36(a >>> 0) + base36(b >>> 0).padStart(7, '0');
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
/** `n.toString(36)` of a uint32, the same digits at half the cost (V8's radix conversion goes through doubles). */
function base36(n: number): string {
  let s = '';
  do {
    const d = n % 36;
    s = BASE36[d] + s;
    n = (n - d) / 36;
  } while (n > 0);
  return s;
}

/**
 * Whether a string has the shape of a `uuidKey` digest: 8–14 lowercase base-36 characters (a
 * 32-bit number in base 36 is at most 7 characters; the second half is padded to 7). No secret
 * rule can match such a string: every provider shape needs an upper-case letter, a separator
 * (`-`, `_`, `.`, `~`, `:`, `=`, space) or at least 36 characters, the key-name rule needs `:` or
 * `=`, and bare keys are 40+ characters with upper and lower case (tests/unit/adapters-claude.test.ts
 * checks this against the rules themselves).
 */
export function isUuidKey(s: unknown): boolean {
  return typeof s === 'string' && UUID_KEY.test(s);
}
const UUID_KEY = /^[0-9a-z]{8,14}$/;

/** Cleans a user text; returns null (with a reason) when it is injected rather than typed. */
export function cleanClaudePrompt(raw: string): { text: string } | { skip: string } {
  const t = stripLeadingBlocks(raw, ENVELOPES).trim();
  if (!t) return { skip: 'empty' };
  for (const p of INJECTED_PREFIXES) if (t.startsWith(p)) return { skip: 'injected' };
  return { text: t };
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((b) => (isObj(b) && b.type === 'text' ? (str(b.text) ?? '') : ''))
    .filter(Boolean)
    .join('\n');
}

export class ClaudeParser implements LineParser {
  private readonly b: SessionBuilder;
  private readonly st: ClaudeState;
  private readonly seen: Set<string>;
  private readonly sub: { agentFile: string; parent: string } | null;
  /** every entry of `st.seen` is a `uuidKey` digest (true unless a loaded state says otherwise) */
  private seenAreKeys = true;

  constructor(filePath: string, state?: unknown) {
    const s = state as ClaudeState | undefined;
    this.st = s && isObj(s) && isObj(s.b) ? s : { b: emptyBuilderState(), seen: [], seenKeys: 1, aiTitle: null, customTitle: null, summary: null };
    if (this.st.seenKeys !== 1) {
      this.st.seen = (Array.isArray(this.st.seen) ? this.st.seen : []).map((u) => uuidKey(String(u)));
      this.st.seenKeys = 1;
    } else if (state !== undefined) {
      // a saved state holds digests only, as saved; anything else in it is redacted like any string
      this.seenAreKeys = Array.isArray(this.st.seen) && this.st.seen.every(isUuidKey);
    }
    this.b = new SessionBuilder('claude-code', this.st.b);
    this.seen = new Set(this.st.seen);
    this.sub = claudeSubagentInfo(filePath);
    if (!this.st.b.vendorId) {
      if (this.sub) {
        this.st.b.kind = 'subagent';
        if (this.sub.parent) this.setSub(this.sub.parent);
      } else {
        this.st.b.vendorId = path.basename(filePath, '.jsonl');
      }
    }
  }

  private setSub(parent: string): void {
    if (!this.sub || this.st.b.vendorId) return;
    this.st.b.vendorId = `${parent}:${this.sub.agentFile}`;
    this.st.b.parentId = `claude-code:${parent}`;
  }

  /** Drops rows already seen (a second /compact re-appends old rows with their uuid). */
  private dup(o: Json): boolean {
    const uuid = str(o.uuid);
    if (!uuid) return false;
    const u = uuidKey(uuid);
    if (this.seen.has(u)) return true;
    this.seen.add(u);
    this.st.seen.push(u);
    // bounded: the saved state is rewritten on every append, and re-appended rows are recent ones
    if (this.st.seen.length > SEEN_CAP) this.st.seen.splice(0, this.st.seen.length - SEEN_CAP);
    return false;
  }

  line(o: Json): void {
    const type = str(o.type);
    const ts = toMs(o.timestamp);
    if (this.sub && !this.st.b.vendorId && typeof o.sessionId === 'string') this.setSub(o.sessionId);
    switch (type) {
      case 'user':
        this.b.touch(ts);
        this.provenance(o);
        if (this.dup(o)) return this.b.skip('duplicate');
        return this.user(o, ts);
      case 'assistant':
        this.b.touch(ts);
        this.provenance(o);
        if (this.dup(o)) return this.b.skip('duplicate');
        return this.assistant(o, ts);
      case 'attachment': {
        this.b.touch(ts);
        const a = obj(o.attachment);
        if (a?.type === 'queued_command' && typeof a.prompt === 'string' && !this.sidechain(o)) {
          if (this.dup(o)) return this.b.skip('duplicate');
          const c = cleanClaudePrompt(a.prompt);
          if ('text' in c) this.b.prompt(c.text, ts, { queued: true }, false);
          else this.b.skip(c.skip);
        }
        return;
      }
      case 'ai-title':
        this.st.aiTitle = str(o.aiTitle) ?? this.st.aiTitle;
        return this.updateTitle();
      case 'custom-title':
        this.st.customTitle = str(o.customTitle) ?? this.st.customTitle;
        return this.updateTitle();
      case 'summary':
        this.st.summary = str(o.summary) ?? this.st.summary;
        return this.updateTitle();
      default:
        if (ts !== null && type !== 'file-history-snapshot') this.b.touch(ts);
        // records outside the conversation tree (no uuid) are side-channel state, whatever their type
        this.b.skip((type && SIDE_CHANNEL.has(type)) || typeof o.uuid !== 'string' ? 'side-channel' : 'unknown-type');
    }
  }

  private updateTitle(): void {
    this.st.b.title = this.st.customTitle ?? this.st.aiTitle ?? this.st.summary;
  }

  private provenance(o: Json): void {
    this.b.setCwd(o.cwd);
    if (typeof o.gitBranch === 'string' && o.gitBranch) this.st.b.gitBranch = o.gitBranch;
    const ep = str(o.entrypoint);
    if (ep && HEADLESS_ENTRYPOINTS.has(ep) && this.st.b.kind === 'interactive') this.st.b.kind = 'headless';
  }

  /** Sidechain rows inside a top-level file are copies of a sub-agent's turns (≤ 2.1.232). */
  private sidechain(o: Json): boolean {
    return o.isSidechain === true && !this.sub;
  }

  private user(o: Json, ts: number | null): void {
    if (this.sidechain(o)) return this.b.skip('sidechain');
    if (o.isMeta === true) return this.b.skip('meta');
    if (o.isCompactSummary === true || o.isVisibleInTranscriptOnly === true) return this.b.skip('compact-summary');
    const msg = obj(o.message);
    const content = msg?.content;
    if (typeof content === 'string') return this.promptText(content, ts);
    const blocks = arr(content).filter(isObj);
    const results = blocks.filter((b) => b.type === 'tool_result');
    if (results.length) {
      for (const r of results) {
        const text = toolResultText(r.content);
        const isError = r.is_error === true || /^<tool_use_error>/.test(text);
        this.b.toolResult(str(r.tool_use_id), text, isError, ts);
      }
      return;
    }
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => str(b.text) ?? '')
      .map((t) => stripLeadingBlocks(t, ENVELOPES))
      .filter((t) => t.trim())
      .join('\n');
    if (!text) return this.b.skip(blocks.length ? 'non-text' : 'empty');
    this.promptText(text, ts);
  }

  private promptText(raw: string, ts: number | null): void {
    // `/vitest-style add tests for parseAmount`: the echo is the only record of the ask, and it
    // names the skill the user chose for it (a bare `/name` has no ask of its own)
    const cmd = claudeSlashCommand(stripLeadingBlocks(raw, ENVELOPES));
    if (cmd?.args) return this.b.prompt(cmd.args, ts, { skill: cmd.name });
    const c = cleanClaudePrompt(raw);
    if ('skip' in c) return this.b.skip(c.skip);
    if (c.text === 'Warmup' && this.st.b.prompts === 0) return this.b.skip('probe');
    this.b.prompt(c.text, ts);
  }

  private assistant(o: Json, ts: number | null): void {
    if (this.sidechain(o)) return this.b.skip('sidechain');
    const msg = obj(o.message);
    if (!msg || o.isApiErrorMessage === true || msg.model === '<synthetic>') return this.b.skip('api-error');
    const messageId = str(msg.id) ?? str(o.uuid) ?? '';
    const endTurn = msg.stop_reason === 'end_turn';
    for (const block of arr(msg.content)) {
      if (!isObj(block)) continue;
      if (block.type === 'text') {
        const text = str(block.text) ?? '';
        if (!text.trim()) continue;
        if (!this.b.appendToLastText(text, messageId)) this.b.text(text, ts, { candidate: true, meta: { messageId } });
      } else if (block.type === 'tool_use') {
        const name = str(block.name) ?? 'unknown';
        const skill = (CLAUDE_SKILL_TOOLS as readonly string[]).includes(name) ? skillFromToolInput(block.input) : null;
        // a whole-file write keeps its content (redacted and capped by the builder): outcome evidence, issue 41
        const wrote = name === 'Write' && isObj(block.input) ? str(block.input.content)?.slice(0, WROTE_PRECUT) : undefined;
        const meta = { ...(skill ? { skill } : {}), ...(wrote ? { wrote } : {}) };
        this.b.toolCall(name, str(block.id), summarizeInput(block.input), ts, Object.keys(meta).length ? meta : undefined);
      }
    }
    if (typeof msg.stop_reason === 'string' && messageId) this.b.endMessage(messageId);
    if (endTurn) this.b.completeTurn();
  }

  flush(): ParseOutput {
    return this.b.flush(false);
  }

  saveState(): unknown {
    return this.st;
  }

  /**
   * The state redacted without walking `seen`: up to 5,000 `uuidKey` digests (every entry pushed
   * by `dup`, or checked on load), which no secret rule can match (see `isUuidKey`). They were
   * most of the strings `redactValue` went through for a Claude file, ~100 ms of a cold pass.
   * Same object, same key order, as `redactValue(saveState())`.
   */
  saveRedactedState(): unknown {
    if (!this.seenAreKeys) return redactValue(this.st);
    const out = redactValue<ClaudeState>({ ...this.st, seen: [] });
    out.seen = this.st.seen;
    return out;
  }
}

/** Tool-result rows and text-less tool-call rows: every long string in them is tool input/output. */
export function claudeShrinkable(line: string): boolean {
  if (line.includes('"type":"tool_result"')) return true;
  return line.includes('"type":"tool_use"') && !line.includes('"type":"text"');
}

const SKIP_UNPARSED = new Set(['file-history-snapshot', 'progress', 'api-request', 'api-request-blob', 'api-request-shape', 'cost-state', 'tools-used']);

/**
 * Big side-channel rows (file-history snapshots, progress copies of sub-agent turns) are dropped
 * without JSON.parse: the record type is the first `"type"` key before any nested object.
 */
export function claudePrefilter(line: string): string | null {
  const i = line.indexOf('"type":"');
  if (i < 0 || i > 400) return null;
  const before = line.slice(1, i);
  const t = line.slice(i + 8, line.indexOf('"', i + 8));
  // attachments (prompt snapshots, skill listings…) are big; only queued prompts matter
  if (before.endsWith('"attachment":{') && !before.slice(0, -14).includes('{')) return t === 'queued_command' ? null : 'side-channel';
  if (before.includes('{') || before.includes('[')) return null;
  return SKIP_UNPARSED.has(t) ? 'side-channel' : null;
}

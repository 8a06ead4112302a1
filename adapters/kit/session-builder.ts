/**
 * The event/session builder every transcript parser feeds: its state is plain JSON (so parsing can
 * resume at a byte offset), it keeps the "final answer of a turn" bookkeeping, and it caps stored
 * text (mining needs prompts and answers, not whole tool outputs).
 */
import type { AgentId, SessionEvent } from '../../src/core/records.js';
import type { FinalUpdate, ParseOutput, SessionSnapshot, TextAppend } from '../types.js';
import { isObj } from './json.js';
import { redactSecrets } from '../../src/core/redact.js';
import { holdBackTail } from './hold-back.js';
import { redactForCut } from './redact-cut.js';
import { storableEpochMs } from '../../src/core/timestamps.js';

/**
 * Caps on stored text: mining needs prompts and answers, not whole tool outputs. A failed tool's
 * output is evidence (the error is what the user corrects), so it keeps more; a successful one only
 * needs to show what happened. Tool output is ~80% of transcript text: the lower cap for successes
 * cut the store's event text by ~45% and the cold harvest's write time with it.
 */
export const TEXT_CAP = { prompt: 32_000, text: 32_000, toolCall: 600, toolResult: 320, toolError: 800, commitCall: 4000, wrote: 4000 } as const;

/**
 * A `git commit` command keeps its message (issue 41: the message the agent used is set beside the
 * one that landed in git), so it is capped at `commitCall`, not `toolCall`.
 */
const GIT_COMMIT_RE = /\bgit\s+(?:-\S+\s+(?:\S+\s+)?)*commit\b/;

/**
 * Every event text is redacted here, once, on the whole text and before any cut: a secret cut in
 * half no longer matches any rule downstream. `cap` / `capEnds` only cut (they see redacted text).
 */
export function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more chars]`;
}

/** Head and tail of a long output (errors and exit markers are usually at the end). */
export function capEnds(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max / 4);
  return `${text.slice(0, max - tail)}\n[…]\n${text.slice(text.length - tail)}`;
}

/**
 * How much of a tool's input is kept raw before the builder redacts and caps it. Far above the
 * tool-call cap, so a secret this pre-cut splits lies beyond what the cap keeps (the head only).
 */
const INPUT_PRECUT = 4096;
function precut(text: string): string {
  return text.length > INPUT_PRECUT ? text.slice(0, INPUT_PRECUT) : text;
}

/** A short, readable form of a tool's input for the event text (raw: the builder redacts and caps it). */
export function summarizeInput(input: unknown): string {
  if (typeof input === 'string') return precut(input);
  if (!isObj(input)) return '';
  for (const k of ['command', 'cmd', 'file_path', 'path', 'filePath', 'pattern', 'url', 'query', 'description', 'prompt']) {
    const v = input[k];
    if (typeof v === 'string' && v) return precut(v);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return precut(v.join(' '));
  }
  try {
    return precut(JSON.stringify(input));
  } catch {
    return '';
  }
}

/** Secrets the builder replaced since its last flush (the harvest summary reports them). */
export interface RedactionTally {
  count: number;
  kinds: Record<string, number>;
}

export interface BuilderState {
  seq: number;
  vendorId: string | null;
  cwd: string | null;
  gitRoot: string | null;
  gitBranch: string | null;
  startedAt: number | null;
  endedAt: number | null;
  title: string | null;
  prompts: number;
  toolErrors: number;
  kind: SessionSnapshot['kind'];
  parentId: string | null;
  /** last final-answer candidate of the open turn, and which seq currently carries meta.final */
  turnLast: number | null;
  marked: number | null;
  /** tool call id → tool name, until the result arrives */
  pending: Record<string, string>;
  /** the last assistant text event (its message id and seq, never its text): a later read may continue it */
  lastText?: { messageId: string; seq: number } | null;
}

export function emptyBuilderState(): BuilderState {
  return {
    seq: 0,
    vendorId: null,
    cwd: null,
    gitRoot: null,
    gitBranch: null,
    startedAt: null,
    endedAt: null,
    title: null,
    prompts: 0,
    toolErrors: 0,
    kind: 'interactive',
    parentId: null,
    turnLast: null,
    marked: null,
    pending: {},
  };
}

export interface Draft {
  role: SessionEvent['role'];
  kind: SessionEvent['kind'];
  /** raw text: emit redacts it, then cuts it to `max` (head, or head and tail with `ends`) */
  text: string;
  max?: number;
  ends?: boolean;
  ts: number | null;
  toolName?: string;
  isError?: boolean;
  meta?: Record<string, unknown>;
}

/**
 * Accumulates events and the session summary. "Final" bookkeeping: the final answer of a turn is
 * its last candidate text once the turn is complete (a vendor signal, the next real prompt, or,
 * for formats without a signal, the end of the bytes read so far). Moving the mark later emits an
 * update for an event stored by an earlier read.
 */
export class SessionBuilder {
  readonly st: BuilderState;
  private out: SessionEvent[] = [];
  private updates: FinalUpdate[] = [];
  private skipped: Record<string, number> = {};
  private redactions: RedactionTally = { count: 0, kinds: {} };
  private appends: TextAppend[] = [];
  /** the raw (unredacted, uncut) text of the last text event of this flush, for joins and the hold-back */
  private lastRaw: { seq: number; text: string } | null = null;

  constructor(
    readonly agent: AgentId,
    state?: BuilderState,
  ) {
    this.st = state ?? emptyBuilderState();
  }

  get sessionId(): string | null {
    return this.st.vendorId ? `${this.agent}:${this.st.vendorId}` : null;
  }

  skip(reason: string, n = 1): void {
    this.skipped[reason] = (this.skipped[reason] ?? 0) + n;
  }

  touch(raw: number | null): void {
    // an instant that cannot be stored never becomes the session's start or end (it would hide the real one)
    const ts = storableEpochMs(raw);
    if (ts === null) return;
    if (this.st.startedAt === null || ts < this.st.startedAt) this.st.startedAt = ts;
    if (this.st.endedAt === null || ts > this.st.endedAt) this.st.endedAt = ts;
  }

  setCwd(cwd: unknown): void {
    if (typeof cwd === 'string' && cwd && !this.st.cwd) this.st.cwd = cwd;
  }

  /** The one redaction of an event text, tallied for the harvest summary. */
  private redact(text: string): string {
    if (text.length < 8) return text;
    const r = redactSecrets(text);
    if (!r.count) return text;
    this.tally(r.count, r.kinds);
    return r.text;
  }

  private tally(count: number, kinds: readonly string[]): void {
    this.redactions.count += count;
    for (const k of kinds) this.redactions.kinds[k] = (this.redactions.kinds[k] ?? 0) + 1;
  }

  private clean(text: string, max: number | undefined, ends = false): string {
    if (max !== undefined) {
      // a long text is redacted only where the cut keeps it (`redact-cut.ts`): the same stored text
      const w = redactForCut(text, max, ends, (n) => `\n[… ${n} more chars]`);
      if (w) {
        if (w.count) this.tally(w.count, w.kinds);
        return w.cut;
      }
    }
    const t = this.redact(text);
    return max === undefined ? t : ends ? capEnds(t, max) : cap(t, max);
  }

  emit(d: Draft): SessionEvent {
    const ev: SessionEvent = {
      agent: this.agent,
      sessionId: this.sessionId ?? `${this.agent}:unknown`,
      seq: this.st.seq++,
      ts: d.ts,
      role: d.role,
      kind: d.kind,
      text: this.clean(d.text, d.max, d.ends),
      meta: d.meta ?? {},
    };
    if (d.toolName !== undefined) ev.toolName = d.toolName;
    if (d.isError) ev.isError = true;
    // the cwd is the session's; events repeat it only where a turn starts (it can change mid-session)
    if (this.st.cwd && d.kind === 'prompt') ev.cwd = this.st.cwd;
    this.out.push(ev);
    this.touch(d.ts);
    return ev;
  }

  /** A real user prompt: closes the previous turn. `closesTurn=false` for prompts queued mid-turn. */
  prompt(text: string, ts: number | null, meta?: Record<string, unknown>, closesTurn = true): void {
    if (closesTurn) this.closeTurn();
    this.st.prompts++;
    this.emit({ role: 'user', kind: 'prompt', text, max: TEXT_CAP.prompt, ts, meta });
  }

  /** Assistant text. `candidate`: may be the turn's answer; `complete`: the vendor says the turn ended here. */
  text(text: string, ts: number | null, opts: { candidate?: boolean; complete?: boolean; meta?: Record<string, unknown> } = {}): SessionEvent {
    const ev = this.emit({ role: 'assistant', kind: 'text', text, max: TEXT_CAP.text, ts, meta: opts.meta });
    const messageId = opts.meta?.messageId;
    this.st.lastText = typeof messageId === 'string' && messageId ? { messageId, seq: ev.seq } : null;
    this.lastRaw = this.st.lastText ? { seq: ev.seq, text } : null;
    if (opts.candidate !== false) {
      this.st.turnLast = ev.seq;
      if (opts.complete) this.markFinal(ev.seq);
    }
    return ev;
  }

  /**
   * Appends to the last emitted event when it is the same message (split assistant messages). In
   * this flush the event is joined in place; when it was stored by an earlier read (the harvest ran
   * between the parts) the part goes out as a `TextAppend` and the writer joins and redacts it.
   */
  appendToLastText(more: string, messageId: string): boolean {
    const last = this.out[this.out.length - 1];
    if (last) {
      if (last.kind !== 'text' || last.meta.messageId !== messageId) return false;
      // the join is redacted as a whole (from the raw parts): a secret split across them is caught here
      const raw = this.lastRaw?.seq === last.seq ? this.lastRaw.text + more : last.text + more;
      this.lastRaw = { seq: last.seq, text: raw };
      last.text = this.clean(raw, TEXT_CAP.text);
      return true;
    }
    const prev = this.st.lastText;
    if (!prev || prev.messageId !== messageId || prev.seq !== this.st.seq - 1 || !this.sessionId) return false;
    // several parts in this read: one append (the writer joins the whole rest at once)
    const pending = this.appends[this.appends.length - 1];
    if (pending && pending.seq === prev.seq && pending.sessionId === this.sessionId) pending.text += more;
    else this.appends.push({ sessionId: this.sessionId, seq: prev.seq, text: more, max: TEXT_CAP.text });
    return true;
  }

  /** The vendor says this message is complete (a stop reason): no later part continues it. */
  endMessage(messageId: string): void {
    if (this.st.lastText?.messageId === messageId) this.st.lastText = null;
  }

  /**
   * The text a later read may still continue (the last event, an open message) keeps a trailing
   * secret head redacted (`hold-back.ts`): it is on disk until the join, and the join never sees
   * the head again. Appends to an event stored earlier are marked; the writer holds theirs back.
   */
  private holdBackOpenText(): void {
    const open = this.st.lastText;
    if (!open || open.seq !== this.st.seq - 1) return;
    for (const a of this.appends) if (a.seq === open.seq) a.open = true;
    const last = this.out[this.out.length - 1];
    if (!last || last.seq !== open.seq || this.lastRaw?.seq !== open.seq) return;
    const redacted = redactSecrets(this.lastRaw.text).text;
    if (redacted.length > TEXT_CAP.text) return; // the tail is cut away anyway
    const held = holdBackTail(redacted);
    if (!held.held) return;
    last.text = held.text;
    this.redactions.count++;
    this.redactions.kinds[held.held] = (this.redactions.kinds[held.held] ?? 0) + 1;
  }

  /**
   * A tool call. `meta.wrote` (a whole-file write's content, raw) is redacted and capped like the
   * text: it is the agent's version of a file that outcome mining compares with the kept one.
   */
  toolCall(name: string, callId: string | undefined, input: string, ts: number | null, meta?: Record<string, unknown>): void {
    if (callId) this.st.pending[callId] = name;
    const m = withCallId(meta, callId);
    if (typeof m.wrote === 'string') m.wrote = this.clean(m.wrote, TEXT_CAP.wrote);
    const max = GIT_COMMIT_RE.test(input) ? TEXT_CAP.commitCall : TEXT_CAP.toolCall;
    this.emit({ role: 'assistant', kind: 'tool_call', toolName: name, text: input, max, ts, meta: m });
  }

  toolResult(callId: string | undefined, output: string, isError: boolean, ts: number | null, meta?: Record<string, unknown>, nameHint?: string): void {
    const name = (callId && this.st.pending[callId]) || nameHint;
    if (callId) delete this.st.pending[callId];
    if (isError) this.st.toolErrors++;
    this.emit({
      role: 'tool',
      kind: 'tool_result',
      toolName: name,
      isError,
      text: output,
      max: isError ? TEXT_CAP.toolError : TEXT_CAP.toolResult,
      ends: true,
      ts,
      meta: withCallId(meta, callId),
    });
  }

  /** The vendor signalled the end of the turn (task_complete...): its last candidate is final. */
  completeTurn(): void {
    if (this.st.turnLast !== null) this.markFinal(this.st.turnLast);
  }

  closeTurn(): void {
    this.completeTurn();
    this.st.turnLast = null;
    this.st.marked = null;
  }

  private markFinal(seq: number): void {
    if (this.st.marked === seq) return;
    if (this.st.marked !== null) this.setFinal(this.st.marked, false);
    this.setFinal(seq, true);
    this.st.marked = seq;
  }

  private setFinal(seq: number, final: boolean): void {
    const local = this.out.find((e) => e.seq === seq);
    if (local) {
      if (final) local.meta.final = true;
      else delete local.meta.final;
      return;
    }
    const sid = this.sessionId;
    if (sid) this.updates.push({ sessionId: sid, seq, final });
  }

  snapshot(): SessionSnapshot | null {
    const id = this.sessionId;
    if (!id || !this.st.vendorId) return null;
    return {
      id,
      vendorId: this.st.vendorId,
      cwd: this.st.cwd,
      gitRoot: this.st.gitRoot,
      gitBranch: this.st.gitBranch,
      startedAt: this.st.startedAt,
      endedAt: this.st.endedAt,
      title: this.st.title,
      promptCount: this.st.prompts,
      toolErrorCount: this.st.toolErrors,
      kind: this.st.kind,
      parentId: this.st.parentId,
    };
  }

  /** `provisional`: formats with no end-of-turn signal treat the last candidate so far as final. */
  flush(provisional = false): ParseOutput {
    if (provisional) this.completeTurn();
    this.holdBackOpenText();
    this.lastRaw = null;
    const sid = this.sessionId;
    // events emitted before the session id was known get it now
    if (sid) for (const e of this.out) e.sessionId = sid;
    const out: ParseOutput = { session: this.snapshot(), events: this.out, finalUpdates: this.updates, skipped: this.skipped, redactions: this.redactions };
    if (this.appends.length) out.textAppends = this.appends;
    this.appends = [];
    this.out = [];
    this.updates = [];
    this.skipped = {};
    this.redactions = { count: 0, kinds: {} };
    return out;
  }
}

/**
 * A tool event's meta: `meta` (copied) with `callId` set. The same keys in the same order as
 * `{ ...meta, ...(callId ? { callId } : {}) }`, without the second object and spread per event.
 */
function withCallId(meta: Record<string, unknown> | undefined, callId: string | undefined): Record<string, unknown> {
  const m: Record<string, unknown> = meta ? { ...meta } : {};
  if (callId) m.callId = callId;
  return m;
}

/** Strips leading wrapper blocks such as `<system-reminder>…</system-reminder>` (repeatedly). */
export function stripLeadingBlocks(text: string, tags: readonly string[]): string {
  let t = text.trimStart();
  for (let guard = 0; guard < 20; guard++) {
    const tag = tags.find((g) => t.startsWith(`<${g}>`) || t.startsWith(`<${g} `));
    if (!tag) break;
    const end = t.indexOf(`</${tag}>`);
    if (end < 0) return '';
    t = t.slice(end + tag.length + 3).trimStart();
  }
  return t;
}

/**
 * Event rows in columnar form, for the trip from a harvest worker to the writer (main thread).
 *
 * Posted as flat row values (10 per event, see `eventRowValues`), a cold pass's 220,000 events
 * were ~2.2 million values for the structured clone to write and read back one by one: a heap
 * number per timestamp, a fresh string per role, kind, tool name, cwd and meta. Here a batch's
 * numbers and flags travel as typed arrays (moved to the main thread, not copied), the repeated
 * short strings (role, kind, tool name, cwd) once each in a dictionary, an empty meta as a flag,
 * and only the texts and the other metas as strings of their own; the writer turns them back into
 * the very same flat values. (Measured on the bench corpus: pack + clone + unpack ~20% cheaper
 * than pack + clone of the flat rows, most of it saved on the main thread.)
 *
 * Tried and dropped: joining the texts into one string and slicing them back out (the clone got
 * cheaper still, but the join cost as much, and the slices of a two-byte string bound slower);
 * metas in the dictionary (most are distinct, by their call id: the lookups cost more than they saved).
 */
import type { SessionEvent } from '../core/records.js';

/** `flags` bits per row: which nullable values are null, the error flag, the empty meta. */
const TS_NULL = 1;
const IS_ERROR = 2;
const TOOL_NULL = 4;
const CWD_NULL = 8;
/** the meta is `{}` (the literal `eventMetaValue` returns): nothing in `metas` */
const META_EMPTY = 16;
/** Dictionary references per row: role, kind, tool name, cwd. */
const REFS = 4;

export interface PackedEvents {
  rows: number;
  /** per row: seq, ts (0 when null) */
  nums: Float64Array;
  flags: Uint8Array;
  /** per row: indexes into `dict` (REFS per row; unused slots 0) */
  refs: Uint32Array;
  dict: string[];
  /** per row: its text */
  texts: string[];
  /** the metas that are not `{}`, in row order (mostly distinct: a dictionary would not pay) */
  metas: string[];
}

/** Whether an event's values have the types the columnar form carries exactly (else: posted flat). */
export function packable(e: SessionEvent): boolean {
  return (
    typeof e.seq === 'number' &&
    (typeof e.ts === 'number' || e.ts === null || e.ts === undefined) &&
    typeof e.role === 'string' &&
    typeof e.kind === 'string' &&
    (typeof e.toolName === 'string' || e.toolName === undefined || e.toolName === null) &&
    typeof e.text === 'string' &&
    (typeof e.cwd === 'string' || e.cwd === undefined || e.cwd === null)
  );
}

function grown<T extends Float64Array | Uint8Array | Uint32Array>(a: T, need: number, make: (n: number) => T): T {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** Collects the events of a batch, in order; `finish` returns the packed form. */
export class EventPacker {
  private n = 0;
  private nums = new Float64Array(2048);
  private flags = new Uint8Array(1024);
  private refs = new Uint32Array(1024 * REFS);
  private readonly texts: string[] = [];
  private readonly metas: string[] = [];
  private readonly dict = new Map<string, number>();
  /**
   * per column (role, kind, tool name, cwd): its last value and reference (runs of equal values are
   * the rule); -1: none yet (strings only in `lastValue`: one type at the compare, no deopt)
   */
  private readonly lastValue = ['', '', '', ''];
  private readonly lastRef = [-1, -1, -1, -1];

  get rows(): number {
    return this.n;
  }

  private ref(s: string): number {
    let i = this.dict.get(s);
    if (i === undefined) this.dict.set(s, (i = this.dict.size));
    return i;
  }

  private refIn(column: number, s: string): number {
    if (s === this.lastValue[column] && this.lastRef[column] >= 0) return this.lastRef[column];
    const i = this.ref(s);
    this.lastValue[column] = s;
    this.lastRef[column] = i;
    return i;
  }

  /** Adds one event (check `packable` first); `meta` is its meta column value (`eventMetaValue`). */
  add(e: SessionEvent, meta: string): void {
    const i = this.n++;
    if (i >= this.flags.length) {
      this.nums = grown(this.nums, (i + 1) * 2, (k) => new Float64Array(k));
      this.flags = grown(this.flags, i + 1, (k) => new Uint8Array(k));
      this.refs = grown(this.refs, (i + 1) * REFS, (k) => new Uint32Array(k));
    }
    let f = 0;
    this.nums[i * 2] = e.seq;
    if (typeof e.ts === 'number') this.nums[i * 2 + 1] = e.ts;
    else f |= TS_NULL;
    if (e.isError) f |= IS_ERROR;
    const r = i * REFS;
    this.refs[r] = this.refIn(0, e.role);
    this.refs[r + 1] = this.refIn(1, e.kind);
    if (typeof e.toolName === 'string') this.refs[r + 2] = this.refIn(2, e.toolName);
    else f |= TOOL_NULL;
    if (typeof e.cwd === 'string') this.refs[r + 3] = this.refIn(3, e.cwd);
    else f |= CWD_NULL;
    if (meta === '{}') f |= META_EMPTY;
    else this.metas.push(meta);
    this.flags[i] = f;
    this.texts.push(e.text);
  }

  finish(): PackedEvents {
    const n = this.n;
    return {
      rows: n,
      // copies of the used parts: what is posted (and transferred) is exactly the rows
      nums: this.nums.slice(0, n * 2),
      flags: this.flags.slice(0, n),
      refs: this.refs.slice(0, n * REFS),
      dict: [...this.dict.keys()],
      texts: this.texts,
      metas: this.metas,
    };
  }
}

/** The buffers of a packed batch, to transfer rather than copy. */
export function packedBuffers(p: PackedEvents): ArrayBuffer[] {
  return [p.nums.buffer, p.flags.buffer, p.refs.buffer] as ArrayBuffer[];
}

/**
 * Reads a packed batch back as flat row values (`EVENT_COLUMNS` per row, in column order, the
 * session number a 0 placeholder): exactly what `eventRowValues` gives for the same events. Rows
 * are read in order (`rows(from, to)` continues where the last call stopped: the metas are walked).
 */
export class EventUnpacker {
  private meta = 0;
  private next = 0;

  constructor(private readonly p: PackedEvents) {}

  rows(from: number, to: number): unknown[] {
    if (from !== this.next) throw new Error(`packed rows read out of order (${from}, expected ${this.next})`);
    this.next = to;
    return unpackRows(this.p, from, to, this);
  }

  takeMeta(): string {
    return this.p.metas[this.meta++];
  }
}

function unpackRows(p: PackedEvents, from: number, to: number, u: EventUnpacker): unknown[] {
  // (pushed, not preallocated: a holey array was measurably slower to slice and to bind)
  const out: unknown[] = [];
  for (let i = from; i < to; i++) {
    const f = p.flags[i];
    const r = i * REFS;
    out.push(
      0,
      p.nums[i * 2],
      f & TS_NULL ? null : p.nums[i * 2 + 1],
      p.dict[p.refs[r]],
      p.dict[p.refs[r + 1]],
      f & TOOL_NULL ? null : p.dict[p.refs[r + 2]],
      f & IS_ERROR ? 1 : 0,
      p.texts[i],
      f & CWD_NULL ? null : p.dict[p.refs[r + 3]],
      f & META_EMPTY ? '{}' : u.takeMeta(),
    );
  }
  return out;
}

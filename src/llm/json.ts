/**
 * Structured replies: find the JSON in a model's text (bare, in a ``` fence, or after leading
 * prose), validate it with the operation's zod schema, and on failure ask ONCE for a repair —
 * quoting the problem — before giving up with BACKEND_BAD_REPLY. Models often wrap JSON in prose
 * or fences; they rarely fail twice when told exactly what was wrong.
 */
import type { z } from 'zod';
import type { Backend, LlmReply, LlmRequest, Operation } from '../core/protocol.js';
import { jsonrepair } from 'jsonrepair';
import { SleepError } from '../core/errors.js';

/** Replies longer than this are not searched for JSON: no structured reply of ours is near it. */
export const MAX_JSON_REPLY_CHARS = 200_000;

/**
 * The outermost balanced {...} / [...] spans of `text`, in order, in ONE linear pass (a stack of
 * open brackets; strings are tracked inside a span). A closer that does not match empties the
 * stack, and a bracket that never closes simply yields no span: a reply full of unclosed brackets
 * costs one scan, where trying every start was quadratic. Also returns the first opener that
 * never closed (a truncated reply, for the repairer).
 */
function outerSpans(text: string): { spans: Array<[number, number]>; unclosed: number } {
  const closed: Array<[number, number]> = [];
  const stack: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 123 || c === 91) stack.push(i);
    else if (c === 125 || c === 93) {
      const open = stack.pop();
      if (open === undefined || text.charCodeAt(open) !== (c === 125 ? 123 : 91)) {
        stack.length = 0;
        continue;
      }
      closed.push([open, i + 1]);
    } else if (c === 34 && stack.length > 0) inString = true;
  }
  // spans close inner-first: keep those no later-closing span contains
  closed.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const spans: Array<[number, number]> = [];
  let reach = -1;
  for (const sp of closed) {
    if (sp[1] <= reach) continue;
    spans.push(sp);
    reach = sp[1];
  }
  return { spans, unclosed: stack.length ? stack[0] : -1 };
}

/** Strict parse, then one repair (trailing commas, single quotes, comments, unquoted keys). */
function parseOrRepair(slice: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(slice) };
  } catch (err) {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(slice)) };
    } catch {
      return { ok: false, error: `invalid JSON: ${(err as Error).message}` };
    }
  }
}

/** Parses the JSON value in a model reply; throws an Error saying why not. */
export function extractJson(text: string): unknown {
  if (text.trim() === '') throw new Error('the reply was empty');
  if (text.length > MAX_JSON_REPLY_CHARS) throw new Error(`the reply is too long to hold the expected JSON (${text.length} chars > ${MAX_JSON_REPLY_CHARS})`);
  const whole = text.trim();
  try {
    return JSON.parse(whole);
  } catch {
    /* look inside */
  }
  for (const m of text.matchAll(/```[a-zA-Z0-9_-]*[^\n]*\n([\s\S]*?)```/g)) {
    try {
      return JSON.parse(m[1].trim());
    } catch {
      /* the next candidate */
    }
  }
  // objects first: a reply like `Here are [2] edits: {...}` must not parse as [2]
  const { spans, unclosed } = outerSpans(text);
  const ordered = [...spans.filter(([a]) => text[a] === '{'), ...spans.filter(([a]) => text[a] === '[')].slice(0, 32);
  let lastError = 'no JSON value found in the reply';
  for (const [a, b] of ordered) {
    const r = parseOrRepair(text.slice(a, b));
    if (r.ok) return r.value;
    lastError = r.error;
  }
  // a value cut off mid-way is not completed: a truncated edit list or verdict is not what was meant
  if (unclosed >= 0 && ordered.length === 0) lastError = 'the JSON value in the reply never closes (cut off?)';
  throw new Error(lastError);
}

/** Optional cache hooks a backend may offer (ManagedBackend does). */
interface ReplyCacheHooks {
  rememberReply?(req: LlmRequest, reply: LlmReply): void;
  forgetReply?(req: LlmRequest): void;
  /** the night's infrastructure guard (src/night/infra-guard.ts) counts usable and unusable replies */
  usableReply?(): void;
  unusableReply?(err: unknown): void;
}

export interface JsonResult<T> {
  value: T;
  /** every reply, including the failed first one when a repair was needed (for accounting) */
  replies: LlmReply[];
  repaired: boolean;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

export function repairPrompt(originalPrompt: string, badReply: string, problem: string): string {
  const shown = badReply.length > 4000 ? `${badReply.slice(0, 4000)}…` : badReply;
  return [
    originalPrompt,
    '',
    '---',
    'Your previous reply could not be used:',
    problem,
    '',
    'Previous reply:',
    shown,
    '',
    'Reply again with ONLY the corrected JSON value, no prose and no code fence.',
  ].join('\n');
}

/** Calls the backend, parses and validates; one repair attempt, then SleepError('BACKEND_BAD_REPLY'). */
export async function completeJson<O extends Operation, S extends z.ZodType>(
  backend: Backend,
  req: LlmRequest<O>,
  schema: S,
  signal?: AbortSignal,
): Promise<JsonResult<z.infer<S>>> {
  const replies: LlmReply[] = [];
  const attempt = (reply: LlmReply): { ok: true; value: z.infer<S> } | { ok: false; problem: string } => {
    let raw: unknown;
    try {
      raw = extractJson(reply.text);
    } catch (err) {
      return { ok: false, problem: (err as Error).message };
    }
    const parsed = schema.safeParse(raw);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: `the JSON does not match the expected shape: ${describeIssues(parsed.error)}` };
  };

  const hooks = backend as Backend & ReplyCacheHooks;
  const first = await backend.complete(req, signal);
  replies.push(first);
  const r1 = attempt(first);
  if (r1.ok) {
    hooks.usableReply?.();
    return { value: r1.value, replies, repaired: false };
  }

  // the repair is never served from (or stored in) the response cache: its prompt embeds a bad reply
  const second = await backend.complete({ ...req, cacheable: false, prompt: repairPrompt(req.prompt, first.text, r1.problem) }, signal);
  replies.push(second);
  const r2 = attempt(second);
  if (req.cacheable) {
    // never keep an unusable reply in the response cache; keep the repaired one under the original request
    if (r2.ok) hooks.rememberReply?.(req, second);
    else hooks.forgetReply?.(req);
  }
  if (r2.ok) {
    hooks.usableReply?.();
    return { value: r2.value, replies, repaired: true };
  }
  const err = new SleepError('BACKEND_BAD_REPLY', `${backend.name}/${backend.model} gave an unusable ${req.operation} reply twice: ${r2.problem}`, {
    hint: 'try a stronger model for this role (config roles.<role>.model) or check the backend',
    details: { operation: req.operation, firstProblem: r1.problem, secondProblem: r2.problem },
  });
  hooks.unusableReply?.(err);
  throw err;
}

/**
 * Structured replies: find the JSON in a model's text (bare, in a ``` fence, or after leading
 * prose), validate it with the operation's zod schema, and on failure ask ONCE for a repair —
 * quoting the problem — before giving up with BACKEND_BAD_REPLY. Models often wrap JSON in prose
 * or fences; they rarely fail twice when told exactly what was wrong.
 */
import type { z } from 'zod';
import type { Backend, LlmReply, LlmRequest, Operation } from '../core/protocol.js';
import { SleepError } from '../core/errors.js';

/** Every balanced {...} / [...] span in `text`, in order, with strings and escapes respected. */
function balancedSpans(text: string): string[] {
  const spans: string[] = [];
  for (let start = 0; start < text.length; start++) {
    const open = text[start];
    if (open !== '{' && open !== '[') continue;
    const stack: string[] = [];
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
      else if (c === '}' || c === ']') {
        if (stack.pop() !== c) break;
        if (stack.length === 0) {
          spans.push(text.slice(start, i + 1));
          start = i; // continue after this span
          break;
        }
      }
    }
  }
  return spans;
}

/** Parses the JSON value in a model reply; throws an Error saying why not. */
export function extractJson(text: string): unknown {
  const candidates: string[] = [text.trim()];
  for (const m of text.matchAll(/```[a-zA-Z0-9_-]*[^\n]*\n([\s\S]*?)```/g)) candidates.push(m[1].trim());
  // objects first: a reply like `Here are [2] edits: {...}` must not parse as [2]
  const spans = balancedSpans(text);
  candidates.push(...spans.filter((s) => s.startsWith('{')), ...spans.filter((s) => s.startsWith('[')));
  let lastError = 'no JSON value found in the reply';
  for (const c of candidates) {
    if (!c) continue;
    try {
      return JSON.parse(c);
    } catch (err) {
      if (/^[[{]/.test(c)) lastError = `invalid JSON: ${(err as Error).message}`;
    }
  }
  throw new Error(text.trim() === '' ? 'the reply was empty' : lastError);
}

/** Optional cache hooks a backend may offer (ManagedBackend does). */
interface ReplyCacheHooks {
  rememberReply?(req: LlmRequest, reply: LlmReply): void;
  forgetReply?(req: LlmRequest): void;
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

  const first = await backend.complete(req, signal);
  replies.push(first);
  const r1 = attempt(first);
  if (r1.ok) return { value: r1.value, replies, repaired: false };

  // the repair is never served from (or stored in) the response cache: its prompt embeds a bad reply
  const second = await backend.complete({ ...req, cacheable: false, prompt: repairPrompt(req.prompt, first.text, r1.problem) }, signal);
  replies.push(second);
  const r2 = attempt(second);
  const hooks = backend as Backend & ReplyCacheHooks;
  if (req.cacheable) {
    // never keep an unusable reply in the response cache; keep the repaired one under the original request
    if (r2.ok) hooks.rememberReply?.(req, second);
    else hooks.forgetReply?.(req);
  }
  if (r2.ok) return { value: r2.value, replies, repaired: true };
  throw new SleepError('BACKEND_BAD_REPLY', `${backend.name}/${backend.model} gave an unusable ${req.operation} reply twice: ${r2.problem}`, {
    hint: 'try a stronger model for this role (config roles.<role>.model) or check the backend',
    details: { operation: req.operation, firstProblem: r1.problem, secondProblem: r2.problem },
  });
}

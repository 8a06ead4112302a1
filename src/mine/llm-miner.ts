/**
 * Optional LLM miner (the `miner` role): rewrites a cluster's asks into a self-contained intent and
 * checks. Its checks are validated like any other; an invalid one is dropped and reported (the
 * caller surfaces it), never kept as a check that silently scores zero. Any failure of the model
 * call (a reply unusable twice included) leaves the heuristic task in place.
 */
import { MineTaskReply, type Backend, type MineTaskPayload } from '../core/protocol.js';
import type { Check } from '../core/records.js';
import { makeCheck } from './judge-synth.js';
import { errorMessage, throwIfAborted } from '../core/errors.js';
import { completeJson } from '../llm/json.js';

export interface LlmMined {
  intent: string;
  context: string;
  checks: Check[];
  invalid: string[];
}

export function minerPrompt(p: MineTaskPayload): string {
  const asks = p.prompts.slice(0, 8).map((x, i) => `${i + 1}. ${x.slice(0, 400)}`).join('\n');
  const corr = p.corrections.length ? p.corrections.slice(0, 8).map((x) => `- ${x.slice(0, 300)}`).join('\n') : '(none)';
  return [
    'You turn a recurring request a user makes to their coding agent into ONE self-contained, replayable task.',
    `Project: ${p.project ?? '(several projects)'}`,
    '',
    'How the user asked (paraphrases of the same request):',
    asks,
    '',
    'How the user corrected the agent afterwards (their preferences):',
    corr,
    '',
    'Return ONLY a JSON object: {"intent": string, "context": string, "checks": [{"op", "value", "needle"?, "flags"?, "description", "sealed"?}]}.',
    '- intent: the request generalised, understandable without the original session (no file paths that only existed there).',
    '- context: the minimal facts needed to do it (may be empty). Do NOT put the corrections in the context.',
    '- checks: verifiable properties of a good answer; ops: contains, not_contains, regex, section_present, section_contains, min_chars, max_chars, json_valid, starts_with, no_refusal, tool_called.',
    '  Derive them from the corrections first. Mark stricter duplicates of a check "sealed": true.',
  ].join('\n');
}

export async function mineWithLlm(backend: Backend, payload: MineTaskPayload, signal?: AbortSignal): Promise<LlmMined> {
  throwIfAborted(signal);
  // the optimizer's structured-reply path: one repair on a bad reply, the response cache, the ledger
  const { value } = await completeJson(
    backend,
    { role: 'miner', operation: 'mine_task', prompt: minerPrompt(payload), payload, maxTokens: 1200, temperature: 0, cacheable: true },
    MineTaskReply,
    signal,
  );
  const checks: Check[] = [];
  const invalid: string[] = [];
  const ids = new Set<string>();
  for (const raw of value.checks) {
    try {
      // ids come from the content (the model's ids may collide or be missing)
      const { id: _ignored, ...draft } = raw;
      const check = makeCheck({ ...draft, sealed: raw.sealed ?? false, weight: raw.weight ?? 1 });
      if (ids.has(check.id)) continue;
      ids.add(check.id);
      checks.push(check);
    } catch (err) {
      invalid.push(errorMessage(err));
    }
  }
  return { intent: value.intent.trim(), context: value.context.trim(), checks, invalid };
}

/**
 * When a configured model stops existing. The dates are the provider's own deprecation table as
 * bundled in the Anthropic SDK we ship (`@anthropic-ai/sdk` internal/data/deprecated-models; a unit
 * test keeps this copy in step with it). Pure: the doctor passes the date to compare with.
 */
export const MODEL_END_OF_LIFE: Readonly<Record<string, string>> = {
  'claude-mythos-preview': '2026-06-30',
  'claude-opus-4-5': '2027-01-22',
  'claude-opus-4-5-20251101': '2027-01-22',
  'claude-sonnet-4-5': '2026-11-30',
  'claude-sonnet-4-5-20250929': '2026-11-30',
};

export interface ModelLifeStatus {
  model: string;
  /** ISO date of end of life, when the provider announced one */
  endOfLife?: string;
  state: 'current' | 'deprecated' | 'retired';
}

/** `retired` once the end-of-life day has passed, `deprecated` before it, `current` when none is announced. */
export function modelLifeStatus(model: string, now: Date, table: Readonly<Record<string, string>> = MODEL_END_OF_LIFE): ModelLifeStatus {
  const key = model.toLowerCase().replace(/^.*\//, '');
  const eol = table[key];
  if (!eol) return { model, state: 'current' };
  const endMs = Date.parse(`${eol}T23:59:59Z`);
  return { model, endOfLife: eol, state: now.getTime() > endMs ? 'retired' : 'deprecated' };
}

/**
 * The environment the review app is loaded under. Ink and chalk read it once, when first imported:
 * - Ink renders nothing until exit when `is-in-ci` sees CI / CONTINUOUS_INTEGRATION, and chalk then
 *   drops colour (any `CI` variable means "CI" to it). review only ever runs on a real terminal
 *   (the command refuses otherwise), so those variables say nothing about this terminal: they go.
 *   Setting CI='false' is not enough: chalk tests `'CI' in env`, so colour stayed off everywhere.
 * - chalk honours FORCE_COLOR but not NO_COLOR (https://no-color.org): NO_COLOR becomes
 *   FORCE_COLOR=0 unless the user also set FORCE_COLOR, which then wins (as chalk documents).
 * Everything else (TERM, COLORTERM, the TTY) is left to chalk's own capability detection.
 */
export function prepareReviewEnv(env: NodeJS.ProcessEnv): void {
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  if (noColor && env.FORCE_COLOR === undefined) env.FORCE_COLOR = '0';
}

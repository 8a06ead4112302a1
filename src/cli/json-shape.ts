/**
 * Every command's `--json` output carries a `$schema` tag naming its documented shape (a heading
 * in docs/json/, shipped with the package), and every timestamp in it is ISO 8601 UTC.
 * Commands print through `CliContext.emit(name, data, …)`, which applies both.
 */
/** `skillopt-sleep/<name>@<version>`: the shape is documented in docs/json/; the version changes when a field's meaning does. */
export function schemaTag(name: string, version = 1): string {
  return `skillopt-sleep/${name}@${version}`;
}

export function tagged<T extends object>(name: string, data: T): { $schema: string } & T {
  return { $schema: schemaTag(name), ...data };
}

/** A store timestamp (ms since the epoch) as ISO 8601 UTC; null stays null. */
export function iso(ms: number | null | undefined): string | null {
  return typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Keys that hold a point in time: `ts`, `at`, `time`, `*_at`, `*At` (createdAt, decidedAt, …), `*Seen` (firstSeen, lastSeen). */
export const TIME_KEY = /^(ts|at|time|.*_at|.*At|.*Seen)$/;

/** Numbers in this range are epoch milliseconds (1973–5138); the shapes test flags any left unconverted. */
export const isEpochMs = (v: unknown): v is number => typeof v === 'number' && v > 1e11 && v < 1e14;

/**
 * ms timestamps → ISO strings, in place, at every depth, for time keys (`TIME_KEY`).
 * Only plausible epoch-ms values change: a duration or a count under such a key stays a number.
 */
export function isoTimestamps<T>(v: T, key = ''): T {
  if (isEpochMs(v) && TIME_KEY.test(key)) return new Date(v).toISOString() as T;
  if (Array.isArray(v)) return v.map((x) => isoTimestamps(x)) as T;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = isoTimestamps(o[k], k);
  }
  return v;
}

/** What `--json` prints: a copy of `data` (as JSON sees it) with ISO timestamps, tagged first. */
export function jsonOutput(name: string, data: object): { $schema: string } {
  const copy = JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
  delete copy.$schema; // data passed on from another command's output (a night's report through the daemon) is re-tagged
  return tagged(name, isoTimestamps(copy));
}

/**
 * `--json` outputs of the commands added for a tool people keep carry a `$schema` tag naming
 * their documented shape (docs/json/<name>.md, shipped with the package), and every timestamp in them is ISO 8601 UTC.
 */
/** `skillopt-sleep/<name>@<version>`: the shape is docs/json/<name>.md; the version changes when a field's meaning does. */
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

const TIME_KEY = /^(ts|.*_at|.*At)$/;

/**
 * ms timestamps → ISO strings, in place, at every depth, for keys named `ts`, `*_at` or `*At`
 * (records hold `createdAt`, `decidedAt`, …). Only plausible epoch-ms values (1973–5138) change.
 */
export function isoTimestamps<T>(v: T, key = ''): T {
  if (typeof v === 'number' && TIME_KEY.test(key) && v > 1e11 && v < 1e14) return new Date(v).toISOString() as T;
  if (Array.isArray(v)) return v.map((x) => isoTimestamps(x)) as T;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = isoTimestamps(o[k], k);
  }
  return v;
}

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

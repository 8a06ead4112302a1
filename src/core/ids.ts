import crypto from 'node:crypto';

/** Short, sortable ids: `<prefix>_<time base36><random>`; sortable by creation time. */
export function newId(prefix: string): string {
  const t = Date.now().toString(36).padStart(9, '0');
  const r = crypto.randomBytes(5).toString('hex');
  return `${prefix}_${t}${r}`;
}

/** Stable id derived from content (e.g. a task from its cluster key). */
export function stableId(prefix: string, ...parts: string[]): string {
  const h = crypto.createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
  return `${prefix}_${h}`;
}

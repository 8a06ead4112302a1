import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Reads the version from package.json (works from src/ under vitest and from dist/). */
export function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const f = path.join(dir, 'package.json');
    if (fs.existsSync(f)) return (JSON.parse(fs.readFileSync(f, 'utf8')) as { version: string }).version;
    dir = path.dirname(dir);
  }
  return '0.0.0';
}

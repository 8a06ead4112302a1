import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of this package's package.json: the clone, or the installed package (works from src/ under vitest and from dist/). */
export function packageRoot(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return null;
}

/** Reads the version from package.json. */
export function packageVersion(): string {
  const root = packageRoot();
  return root ? (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version : '0.0.0';
}

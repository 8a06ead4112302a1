/**
 * How many harvest worker threads a cold pass starts, and what each loads when it starts. Every worker is a fresh V8 isolate that
 * compiles its whole import graph before it parses a line, and a cold pass starts two of them:
 * zod alone cost each ~70 ms of CPU (a worker booted in ~160 ms with it, ~75 ms without). The
 * graph is walked as it runs: each file transpiled the way tsc emits it, so imports used only as
 * types are gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { workersFor } from '../../src/harvest/pool.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runtime imports of `entry` (a .ts file under ROOT), transitively: local files and bare packages. */
function runtimeGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    const js = ts.transpileModule(fs.readFileSync(path.join(ROOT, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    // static imports and re-exports only: a dynamic import() is loaded when it runs, not at start
    for (const m of js.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
        continue;
      }
      const base = path.join(path.dirname(file), spec).replace(/\.js$/, '');
      const found = [`${base}.ts`, path.join(base, 'index.ts')].find((c) => fs.existsSync(path.join(ROOT, c)));
      if (found) queue.push(found);
    }
  }
  return { files, packages };
}

describe('the harvest worker', () => {
  it('loads no schema, UI or model-client library at start', () => {
    const { files, packages } = runtimeGraph('src/harvest/worker.ts');
    expect(files.has('src/harvest/process-file.ts')).toBe(true); // the walk followed the worker's imports
    expect(files.has('src/harvest/validate-output.ts')).toBe(true);
    for (const heavy of ['zod', 'ink', 'react', 'openai', '@anthropic-ai/sdk', 'yaml']) expect(packages.has(heavy), `worker imports ${heavy}`).toBe(false);
  });

  it('the walk sees a package import where there is one', () => {
    expect(runtimeGraph('src/core/records.ts').packages.has('zod')).toBe(true);
  });
});

describe('the worker count', () => {
  it('leaves one core to the writer, parses on the others, at most two, at least one', () => {
    expect([1, 2, 3, 4, 16].map(workersFor)).toEqual([1, 1, 2, 2, 2]);
  });
});

/**
 * The house rules that keep the architecture one-way (docs/ARCHITECTURE.md), checked on the sources:
 * the boundary lint rule really fails a back edge (through ESLint's own API, with the project's
 * config), there is no import cycle in src/ or adapters/, and no SQL lives outside src/store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) out.push(rel);
  }
  return out;
}

describe('the boundary lint rule', () => {
  const eslint = new ESLint({ cwd: ROOT });
  /** lints `code` as if it were the file `file` (nothing is written into the tree) */
  const lint = async (file: string, code: string) => {
    const [r] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return r.messages.filter((m) => m.ruleId === 'house/boundaries').map((m) => m.message);
  };

  it.each([
    ['src/llm/probe.ts', "import { action } from '../cli/run.js';\nexport const x = action;\n", /src\/llm must not import src\/cli/],
    ['src/harvest/deep/probe.ts', "export { runNight } from '../../night/night.js';\n", /src\/harvest must not import src\/night/],
    ['src/llm/sim/probe.ts', "import { scoreSkill } from '../../replay/index.js';\nexport const x = scoreSkill;\n", /src\/llm must not import src\/replay/],
    ['src/core/probe.ts', "import type { Db } from '../store/db.js';\nexport type X = Db;\n", /src\/core must not import src\/store/],
    ['src/store/probe.ts', "export const m = () => import('../mine/index.js');\n", /src\/store must not import src\/mine/],
    ['src/trainer/probe.ts', "import { stageProposal } from '../proposals/staging.js';\nexport const x = stageProposal;\n", /src\/trainer must not import src\/proposals/],
    ['src/skilldoc/probe.ts', "import { RejectedEditBuffer } from '../trainer/buffer.js';\nexport const x = RejectedEditBuffer;\n", /src\/skilldoc must not import src\/trainer/],
    ['src/skilldoc/probe.ts', "import type { Proposal } from '../proposals/staging.js';\nexport type X = Proposal;\n", /src\/skilldoc must not import src\/proposals/],
    ['src/daemon/probe.ts', "import { printError } from '../cli/run.js';\nexport const x = printError;\n", /nothing imports the CLI/],
    ['adapters/probe.ts', "import { runHarvest } from '../src/harvest/ingest.js';\nexport const x = runHarvest;\n", /adapters must not import src\/harvest/],
  ])('fails a back edge from %s', async (file, code, message) => {
    const messages = await lint(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(message);
  });

  it('passes the edges the flow allows', async () => {
    expect(await lint('src/cli/commands/probe.ts', "import { requestNightNow } from '../../daemon/ipc.js';\nexport const x = requestNightNow;\n")).toEqual([]);
    expect(await lint('src/llm/probe.ts', "import { redactSecrets } from '../core/redact.js';\nimport { recordEgress } from '../store/repos/ledger.js';\nexport const x = [redactSecrets, recordEgress];\n")).toEqual([]);
    expect(await lint('src/proposals/probe.ts', "import { applyEdits } from '../skilldoc/edits.js';\nexport const x = applyEdits;\n")).toEqual([]);
    expect(await lint('adapters/probe.ts', "export { parseFrontMatter } from '../src/skilldoc/document.js';\n")).toEqual([]);
    expect(await lint('src/night/probe.ts', "import { trainSkill } from '../trainer/index.js';\nexport const x = trainSkill;\n")).toEqual([]);
  });

  it('is on for every source folder (`npm run lint` then holds the real tree to it)', async () => {
    for (const file of ['src/llm/managed.ts', 'src/core/config.ts', 'src/tui/App.tsx', 'adapters/index.ts']) {
      const config = (await eslint.calculateConfigForFile(path.join(ROOT, file))) as { rules: Record<string, unknown> };
      expect(config.rules['house/boundaries'], file).toEqual([2]);
    }
  });
});

describe('the import graph', () => {
  it('has no cycle in src/ or adapters/ (type-only imports included)', () => {
    const files = [...sourceFiles('src'), ...sourceFiles('adapters')];
    const known = new Set(files);
    const resolve = (from: string, spec: string): string | null => {
      const base = path.join(path.dirname(from), spec).replace(/\.js$/, '');
      for (const c of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (known.has(c)) return c;
      return null;
    };
    const graph = new Map<string, string[]>();
    for (const f of files) {
      const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
      const deps: string[] = [];
      for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm)) {
        const to = resolve(f, m[1] ?? m[2] ?? m[3]);
        if (to) deps.push(to);
      }
      graph.set(f, deps);
    }
    expect(graph.size).toBeGreaterThan(100); // the walk really saw the tree
    expect(findCycles(graph)).toEqual([]);
  });

  it('the cycle walk finds a cycle when there is one', () => {
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(findCycles(g)).toEqual(['a → b → c → a']);
  });
});

function findCycles(graph: Map<string, string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 'open') cycles.push([...stack.slice(stack.indexOf(m)), m].join(' → '));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

describe('SQL', () => {
  /** Files that may hold SQL outside src/store, each with its reason. */
  const ALLOWED: Array<[RegExp, string]> = [
    [/^adapters\/copilot\/vscdb\.ts$/, "reads VS Code's own state database, not our store"],
    [/^adapters\/copilot\/vscode-transcripts\.ts$/, "reads Copilot Chat's own session-store.db (a session's cwd), not our store"],
    [/^adapters\/opencode\/store\.ts$/, "reads OpenCode's own opencode.db (read-only), not our store"],
  ];
  // uppercase keywords (the house style for SQL) and the driver's statement calls
  const SQL = /\bSELECT\b[^;`'"]{0,200}?\bFROM\b|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bCREATE\s+(?:TABLE|INDEX)\b|\.prepare\s*[<(]|\.pragma\s*\(/;

  it('lives only in src/store (repository functions), never in the modules that use the store', () => {
    const files = [...sourceFiles('src'), ...sourceFiles('adapters')].map((f) => f.split(path.sep).join('/'));
    const offenders = files.filter((f) => !f.startsWith('src/store/') && !ALLOWED.some(([re]) => re.test(f)) && SQL.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
    // and the pattern does see SQL where it is
    expect(SQL.test(fs.readFileSync(path.join(ROOT, 'src/store/repos/runs.ts'), 'utf8'))).toBe(true);
  });
});

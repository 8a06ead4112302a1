/**
 * `npm run bench -- report`: writes docs/BENCHMARKS.md from the saved results in bench/results/*.json,
 * so the figures the documents quote are the ones a run produced, never typed by hand. Every run of
 * `npm run bench` saves its rows there (bench/run.ts, `run-<area>.json`, with the commit, date and
 * machine load); older figures were saved from the lab notebook with that provenance stated.
 * tests/unit/benchmarks-doc.test.ts fails when the document falls behind the saved results.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SavedRow {
  name: string;
  value: number;
  unit: string;
  /** a 95% interval (paired bootstrap over seeds unless the title says otherwise) */
  ci?: [number, number];
  target?: string;
  pass?: boolean;
  note?: string;
}

export interface SavedResult {
  $schema: 'skillopt-sleep-bench/result@1';
  area: string;
  title: string;
  provenance: { how: 'run' | 'transcribed'; commit: string; date: string; load?: string; command?: string; source?: string; note?: string };
  rows: SavedRow[];
}

/** The checkout this file runs from (bench/ from source, dist-bench/bench/ when built). */
export function checkoutRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const resultsDir = (root = checkoutRoot()) => path.join(root, 'bench', 'results');
export const benchmarksDoc = (root = checkoutRoot()) => path.join(root, 'docs', 'BENCHMARKS.md');

/** Every saved result, by area then file name, each checked for the fields the report reads. */
export function readResults(dir = resultsDir()): SavedResult[] {
  if (!fs.existsSync(dir)) return [];
  const out: SavedResult[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const r = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as SavedResult;
    if (r.$schema !== 'skillopt-sleep-bench/result@1' || !r.area || !r.title || !r.provenance?.commit || !Array.isArray(r.rows)) {
      throw new Error(`${path.join(dir, file)}: not a saved bench result (needs $schema, area, title, provenance.commit, rows)`);
    }
    out.push(r);
  }
  return out.sort((a, b) => a.area.localeCompare(b.area));
}

const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(3).replace(/0+$/, '').replace(/\.$/, ''));
const signed = (v: number, unit: string) => (unit === 'Δ' && v > 0 ? '+' : '') + num(v);
const cell = (s: string) => s.replace(/\|/g, '\\|');

function provenanceLine(p: SavedResult['provenance']): string {
  const parts = [p.how === 'run' ? `run \`${p.command ?? 'npm run bench'}\`` : `saved from ${p.source ?? 'an earlier record'}`, `commit ${p.commit}`, p.date];
  if (p.load) parts.push(`load ${p.load}`);
  return `_${parts.join(' · ')}${p.note ? `. ${p.note}` : ''}_`;
}

/** The whole of docs/BENCHMARKS.md. */
export function renderBenchmarks(results: SavedResult[]): string {
  const out = [
    '# Benchmarks',
    '',
    '<!-- Written by `npm run bench -- report` from bench/results/*.json. Do not edit by hand. -->',
    '',
    'What `npm run bench` measures, as the saved results hold it. Δ rows are differences between two arms',
    'on the same seeds, with a 95% paired bootstrap interval in brackets; a row whose interval holds 0 shows',
    'no effect that the seeds can resolve. Scores are mean test scores on hidden instances (0..1). How the',
    'worlds, arms and mechanisms are built, and why each mechanism is on or off, is in',
    '[TRAINER-NOTES.md](TRAINER-NOTES.md) and [LEARNING.md](LEARNING.md). `npm run bench [-- <area>…]` runs the areas (harvest, mine, llm,',
    'replay, seed, train, outcomes, daemon, tui) and saves each to bench/results/run-<area>.json; `npm run bench --',
    'report` then rewrites this file.',
    '',
  ];
  let area = '';
  for (const r of results) {
    if (r.area !== area) {
      area = r.area;
      out.push(`## ${area}`, '');
    }
    out.push(`### ${r.title}`, '', provenanceLine(r.provenance), '', '| figure | value | unit | 95% interval | note |', '|---|---|---|---|---|');
    for (const row of r.rows) {
      const ci = row.ci ? `[${num(row.ci[0])}, ${num(row.ci[1])}]` : '';
      const note = [row.target ? `target ${row.target}${row.pass === undefined ? '' : row.pass ? ' (met)' : ' (MISSED)'}` : '', row.note ?? ''].filter(Boolean).join('; ');
      out.push(`| ${cell(row.name)} | ${signed(row.value, row.unit)} | ${row.unit} | ${ci} | ${cell(note)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** `npm run bench -- report`: rewrite docs/BENCHMARKS.md, atomically (write beside it, then rename). */
export function writeReport(root = checkoutRoot()): string {
  const file = benchmarksDoc(root);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, renderBenchmarks(readResults(resultsDir(root))));
  fs.renameSync(tmp, file);
  return file;
}

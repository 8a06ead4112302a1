import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarksDoc, readResults, renderBenchmarks, resultsDir, type SavedResult } from '../../bench/report.js';
import { REPO_ROOT } from '../helpers/sandbox.js';

// docs/BENCHMARKS.md is written by `npm run bench -- report` from bench/results/*.json: a figure in
// it that no saved result holds, or a saved result the document has not caught up with, fails here.
describe('docs/BENCHMARKS.md', () => {
  it('is what `npm run bench -- report` renders from the saved results', () => {
    const results = readResults(resultsDir(REPO_ROOT));
    expect(results.length).toBeGreaterThan(3);
    expect(fs.readFileSync(benchmarksDoc(REPO_ROOT), 'utf8')).toBe(renderBenchmarks(results));
  });

  it('every saved result states where it came from', () => {
    for (const r of readResults(resultsDir(REPO_ROOT))) {
      expect(r.provenance.commit, r.title).toMatch(/\S/);
      expect(r.provenance.date, r.title).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(r.rows.length, r.title).toBeGreaterThan(0);
    }
  });

  it('renders a row with its interval and target, and refuses a file that is not a saved result', () => {
    const saved: SavedResult = {
      $schema: 'skillopt-sleep-bench/result@1',
      area: 'train',
      title: 'a world',
      provenance: { how: 'run', commit: 'abc1234', date: '2026-12-05', load: '1.0 on 2 cores', command: 'npm run bench -- train --quick' },
      rows: [{ name: 'gated − gate off', value: 0.274, unit: 'Δ', ci: [0.205, 0.331], target: '≥ 0.20', pass: true }],
    };
    const doc = renderBenchmarks([saved]);
    expect(doc).toContain('| gated − gate off | +0.274 | Δ | [0.205, 0.331] | target ≥ 0.20 (met) |');
    expect(doc).toContain('run `npm run bench -- train --quick` · commit abc1234 · 2026-12-05 · load 1.0 on 2 cores');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
    try {
      fs.writeFileSync(path.join(dir, 'x.json'), JSON.stringify({ rows: [] }));
      expect(() => readResults(dir)).toThrow(/not a saved bench result/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * `autoApply` (off by default): a night applies a proposal by itself only when its gate passed and
 * its held-out test score rose (no gain, the same score included, is the user's call) — and then
 * exactly as `apply` would (atomic, backup, receipt).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { listProposals } from '../../src/store/repos/proposals.js';
import { CLI_BIN, makeSandbox, runCli } from '../helpers/sandbox.js';

const box = makeSandbox();
afterAll(() => box.cleanup());
beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
});

function proposalsIn(dir: string) {
  const db = openDb(resolvePaths({ env: { SKILLOPT_SLEEP_HOME: path.join(dir, 'skillopt-sleep') } }).database);
  try {
    const receipts = db.prepare('SELECT proposal_id AS id, action, backup_path AS backup FROM receipts').all() as Array<{ id: string; action: string; backup: string | null }>;
    return { proposals: listProposals(db, {}), receipts };
  } finally {
    db.close();
  }
}

describe('autoApply', () => {
  it('is off by default: the night only stages', () => {
    const dir = path.join(box.root, 'off');
    const r = runCli(['demo', '--no-review', '--json', '--dir', dir], box.env, { timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const { proposals, receipts } = proposalsIn(dir);
    expect(proposals.length).toBeGreaterThan(0);
    expect(proposals.every((p) => p.status === 'staged')).toBe(true);
    expect(receipts).toEqual([]);
    for (const p of proposals) expect(fs.existsSync(p.skillTarget.path)).toBe(false);
  });

  it('when on, applies a gated proposal whose test score rose, and leaves the others staged', () => {
    const dir = path.join(box.root, 'on');
    const r = runCli(['demo', '--no-review', '--json', '--dir', dir], { ...box.env, SKILLOPT_SLEEP_AUTO_APPLY: 'true' }, { timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const { proposals, receipts } = proposalsIn(dir);
    expect(proposals.length).toBeGreaterThan(0);
    for (const p of proposals) {
      const held = p.testBefore != null && p.testAfter != null && p.testAfter > p.testBefore && p.candidateScore > p.baselineScore;
      if (held) {
        expect(p.status).toBe('applied');
        expect(fs.readFileSync(p.skillTarget.path, 'utf8')).toBe(p.candidate);
        expect(receipts.some((x) => x.id === p.id && x.action === 'apply')).toBe(true);
      } else {
        expect(p.status).toBe('staged');
        expect(fs.existsSync(p.skillTarget.path)).toBe(false);
      }
    }
    // the demo's scenario is built so that at least one proposal qualifies
    expect(proposals.some((p) => p.status === 'applied')).toBe(true);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listLeafKeys } from '../../src/core/config.js';
import { renderConfigDoc } from '../../src/core/config-doc.js';
import { REPO_ROOT } from '../helpers/sandbox.js';

// docs/CONFIG.md is generated from the schema: a key added, renamed or re-defaulted without
// `npm run docs:config` leaves the reference wrong, so the file must equal what the schema renders.
const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/CONFIG.md'), 'utf8');

describe('docs/CONFIG.md', () => {
  it('is what the schema renders now (run `npm run build && npm run docs:config` after changing a key)', () => {
    expect(doc).toBe(renderConfigDoc());
  });

  it('documents every config key with its env var and default', () => {
    const leaves = listLeafKeys();
    expect(leaves.length).toBeGreaterThan(50);
    for (const leaf of leaves) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${leaf.path}\` |`));
      expect(row, leaf.path).toBeDefined();
      expect(row).toContain('`' + leaf.envName + '`');
      if (leaf.defaultValue !== undefined) expect(row).toContain(JSON.stringify(leaf.defaultValue).replace(/\|/g, '\\|'));
    }
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/llm/spawn.js';
import { REPO_ROOT } from '../helpers/sandbox.js';

// `npx skillopt-sleep` puts our node_modules/.bin first on PATH; the agent CLIs there are test-only
// devDependencies and must never be picked up as the user's backend.
describe('findOnPath and the bundled test CLIs', () => {
  const bundled = path.join(REPO_ROOT, 'node_modules', '.bin');

  it('ignores our own node_modules/.bin by default', () => {
    expect(findOnPath('claude', { PATH: bundled })).toBeUndefined();
  });

  it('finds them when a test opts in', () => {
    expect(findOnPath('claude', { PATH: bundled, SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS: '1' })).toBe(path.join(bundled, 'claude'));
  });

  it('still finds binaries elsewhere on PATH', () => {
    expect(findOnPath('sh', { PATH: `${bundled}${path.delimiter}/bin${path.delimiter}/usr/bin` })).toMatch(/\/sh$/);
  });
});

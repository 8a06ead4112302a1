import { describe, expect, it } from 'vitest';
import { prepareReviewEnv } from '../../src/tui/terminal-env.js';

describe('prepareReviewEnv', () => {
  it('removes the CI variables that would turn Ink into CI mode and chalk monochrome', () => {
    const env: NodeJS.ProcessEnv = { CI: 'true', CONTINUOUS_INTEGRATION: '1', TERM: 'xterm-256color' };
    prepareReviewEnv(env);
    expect('CI' in env).toBe(false);
    expect('CONTINUOUS_INTEGRATION' in env).toBe(false);
    expect(env.TERM).toBe('xterm-256color');
    expect(env.FORCE_COLOR).toBeUndefined();
  });
  it('turns NO_COLOR into FORCE_COLOR=0, and an explicit FORCE_COLOR wins', () => {
    const off: NodeJS.ProcessEnv = { NO_COLOR: '1' };
    prepareReviewEnv(off);
    expect(off.FORCE_COLOR).toBe('0');
    const forced: NodeJS.ProcessEnv = { NO_COLOR: '1', FORCE_COLOR: '3' };
    prepareReviewEnv(forced);
    expect(forced.FORCE_COLOR).toBe('3');
    const empty: NodeJS.ProcessEnv = { NO_COLOR: '' };
    prepareReviewEnv(empty);
    expect(empty.FORCE_COLOR).toBeUndefined();
  });
});

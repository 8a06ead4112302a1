/**
 * A proposal whose held-out audit shows no gain says so at the top of the review (issue 38): the
 * first line of its detail screen, before its name and scores; a proposal whose test score rose
 * shows no such line.
 */
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { frame, settle } from '../helpers/ink-keys.js';
import { App } from '../../src/tui/App.js';
import { makeProposal, makeServices } from '../fixtures/tui-fixtures.js';
import { noGainBanner } from '../../src/proposals/staging-report.js';

afterEach(() => cleanup());

describe('no gain on held-out tasks', () => {
  it('is the first line of the detail screen', async () => {
    const p = { ...makeProposal({ id: 'p-flat', name: 'changelog' }), testBefore: 0.88, testAfter: 0.88 };
    const { services } = makeServices([p]);
    const r = render(<App services={services} size={{ columns: 140, rows: 30 }} initialId="p-flat" />);
    await settle(r);
    const lines = frame(r).split('\n');
    expect(lines[0]).toContain('NO GAIN on held-out tasks: test 0.88 → 0.88');
    expect(lines[1]).toContain('changelog');
  });

  it('is absent when the test score rose, and said of a drop and a flat score only', async () => {
    const { services } = makeServices([makeProposal({ id: 'p-up', name: 'changelog' })]);
    const r = render(<App services={services} size={{ columns: 140, rows: 30 }} initialId="p-up" />);
    await settle(r);
    expect(frame(r)).not.toContain('NO GAIN');
    expect(noGainBanner({ before: 0.5, after: 0.83 })).toBeNull();
    expect(noGainBanner({ before: null, after: null })).toBeNull();
    expect(noGainBanner({ before: 0.9, after: 0.8 })).toMatch(/NO GAIN.*0\.90 → 0\.80 \(worse\)/);
  });
});

/**
 * The end-to-end learning arm on one small seed: generated Claude Code transcripts go through the
 * real harvest, mine and night (sim backend for every role), and the skill the night staged is
 * scored on hidden instances that no transcript holds. Asserts the pipeline itself: every session
 * harvested, the user's corrections reach the judges (not mined as asks), a skill is staged, it
 * beats the empty skill on the hidden instances, and the sealed audit slice reaches no proposal.
 * (Whether it beats the corrections pasted verbatim is the bench's figure, over ten seeds.)
 */
import { describe, expect, it } from 'vitest';
import { runE2eSeed } from '../../bench/train-e2e.js';

describe('end-to-end learning arm (transcripts → harvest → mine → night → hidden test)', () => {
  it('stages a skill from generated transcripts that beats the empty skill on hidden instances', async () => {
    const o = await runE2eSeed(2, { perProject: 8, hiddenPerJob: 4 });
    const p = o.pipeline;
    expect(p.harvestedSessions).toBe(p.sessions);
    // the user's corrections reach the families' judges; at most one is mistaken for an ask
    expect(p.correctionsTyped).toBeGreaterThan(10);
    expect(p.correctionsReachingJudges).toBeGreaterThanOrEqual(p.correctionsTyped - 1);
    expect(p.correctionsMinedAsAsks).toBeLessThanOrEqual(1);
    // the night staged at least one skill, and what it staged is what gets scored
    expect(p.nightStatus).toBe('done');
    expect(p.staged.length).toBeGreaterThan(0);
    expect(Object.values(o.stagedSkills).join('\n')).toMatch(/^- /m);
    // the user's corrections reach the staged skill under the job they were said of (the draft the gate weighed)
    const personal = Object.entries(o.stagedSkills).find(([file]) => !file.includes('/src/'))?.[1] ?? '';
    expect(personal).toMatch(/^## When writing a commit message\n\n(?:- .*\n)*- [^\n]*300 characters/m);
    expect(o.scores['night: its start, no optimizer']).toBeGreaterThan(o.scores['empty skill'] + 0.2);
    // the staged skills beat the empty skill on instances that appear in no transcript
    expect(o.scores['night (staged skills)']).toBeGreaterThan(o.scores['empty skill'] + 0.2);
    // the baselines are measured by the same scorer: the oracle bounds them all
    expect(o.scores.oracle).toBeGreaterThan(o.scores['corrections pasted verbatim']);
    expect(o.scores.oracle).toBeGreaterThan(o.scores['empty skill'] + 0.5);
    // the sealed audit slice: recorded in the night report, shown by no proposal
    expect(p.items.every((i) => i.audit !== undefined)).toBe(true);
    expect(p.auditLeaks).toBe(0);
  }, 240_000);
});

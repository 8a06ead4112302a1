/**
 * The cluster review sees what the agent did for the asks (src/mine/work.ts signs), and only what
 * its rendered prompt carries: the payload the sim reads is the prompt's content, field for field.
 * The sim reviewer (a careful reader) reads a job's product from that work, and not a stray sign.
 */
import { describe, expect, it } from 'vitest';
import { reviewPrompt, reviewedCluster, type ReviewCandidate } from '../../src/mine/cluster-review.js';
import { jobOfAsk, reviewClusters as simReview } from '../../src/llm/sim/cluster-review.js';
import type { ReviewClustersPayload } from '../../src/core/protocol.js';

const candidate = (id: string, asks: Array<[string, string[]]>): ReviewCandidate => ({
  id,
  size: asks.length,
  asks: asks.map(([prompt, work], i) => ({ key: `s${i}#1`, prompt, ...(work.length ? { work } : {}) })),
});

/** Every string leaf of a value (ids, asks, work signs), with its path. */
function leaves(v: unknown, path = ''): Array<[string, string]> {
  if (typeof v === 'string') return [[path, v]];
  if (typeof v === 'number') return [[path, String(v)]];
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, `${path}[${i}]`));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, `${path}.${k}`));
  return [];
}

describe('what the review is shown', () => {
  const changelog = candidate('cl_a', [
    ['add a changelog entry for the rounding fix', ['wrote CHANGELOG.md']],
    ['record the timezone fix', ['wrote CHANGELOG.md', 'ran git commit']],
    ['note #12 for the users', []],
  ]);

  it('each shown ask with what the agent did for it, and the work across the cluster', () => {
    const c = reviewedCluster(changelog);
    expect(c.asks).toHaveLength(3);
    expect(c.did).toHaveLength(3);
    c.asks.forEach((a, i) => {
      const own = changelog.asks.find((x) => x.prompt === a)!;
      expect(c.did![i]).toEqual(own.work ?? []);
    });
    expect(c.work).toEqual([
      { did: 'wrote CHANGELOG.md', asks: 2 },
      { did: 'ran git commit', asks: 1 },
    ]);
    expect(c.asksRead).toBe(3);
    // a cluster whose agent did nothing known carries no work fields
    expect(reviewedCluster(candidate('cl_b', [['explain the auth flow', []]]))).toEqual({ id: 'cl_b', size: 1, asks: ['explain the auth flow'] });
  });

  it('how many asks each shown wording stands for (one wording is shown once)', () => {
    const c = reviewedCluster(
      candidate('cl_w', [
        ['fix the error handling in src/a.ts as well', []],
        ['fix the error handling in src/b.ts as well', []],
        ['fix the error handling in src/c.ts as well', []],
        ['update vite and fix what broke', ['ran npm install']],
      ]),
    );
    expect(c.asks).toHaveLength(2);
    expect(c.worded).toEqual([3, 1]);
    expect(reviewPrompt({ clusters: [c] })).toContain('(×3 asks worded like it)');
    // the reader weighs a wording by the asks it stands for: one upgrade among four asks does not
    // make it an upgrade cluster (shown without the counts, the same two asks would)
    expect(simReview({ clusters: [c] }).names).toEqual([]);
    expect(simReview({ clusters: [{ ...c, worded: undefined }] }).names.map((n) => n.job)).toEqual(['upgrading a dependency']);
  });

  it('the sim reads nothing the rendered prompt does not carry: every field of the payload is in the prompt', () => {
    const payload: ReviewClustersPayload = { clusters: [reviewedCluster(changelog), reviewedCluster(candidate('cl_c', [['write vitest cases for parseAmount', ['wrote a test file (*.test.ts)', 'ran vitest run']]]))] };
    // only these fields: the corpus (labels, sessions, projects) is never part of the request
    for (const c of payload.clusters) for (const k of Object.keys(c)) expect(['id', 'size', 'asks', 'did', 'worded', 'work', 'asksRead']).toContain(k);
    const prompt = reviewPrompt(payload);
    for (const [path, value] of leaves(payload)) expect(prompt, `payload${path}`).toContain(value);
  });
});

describe('the simulated reviewer reads the job from what the agent did', () => {
  it("an ask's product outranks a misreading of its words, when the words touch it", () => {
    // the words alone say tests ("a test plan"); `gh pr` shows a PR description
    expect(jobOfAsk('the pull request for the cache fix needs a checklist and a test plan', ['ran gh pr'])).toBe('writing a pull request description');
    expect(jobOfAsk('the pull request for the cache fix needs a checklist and a test plan', [])).toBe('writing unit tests');
    // both agree: that job, whatever else the agent did
    expect(jobOfAsk('write the migration for users.status', ['wrote migrations/*.ts', 'ran gh pr'])).toBe('writing a database migration');
    // a stray sign the words do not touch is not the ask's job: the ask was the code change
    expect(jobOfAsk('handle the retry case in src/a.ts as well', ['wrote src/*.ts', 'wrote CHANGELOG.md'])).toBeNull();
    expect(jobOfAsk('while you are at it, upgrade pino', ['ran npm outdated', 'ran gh run'])).toBe('upgrading a dependency');
  });

  it('names a cluster from the work most of its asks made, and merges it with the same job', () => {
    const reply = simReview({
      clusters: [
        { id: 'cl_big', size: 30, asks: ['write release notes for v2.4', 'release notes for 3.1 please'], did: [['wrote RELEASE_NOTES.md'], []] },
        // words a reader cannot place; the agent wrote the release notes in most of its asks
        { id: 'cl_odd', size: 5, asks: ['put together something for users about 2.4'], did: [[]], work: [{ did: 'wrote RELEASE_NOTES.md', asks: 4 }], asksRead: 5 },
        // one ask of five: not the cluster's job
        { id: 'cl_code', size: 5, asks: ['handle the retry case in src/a.ts as well'], did: [['wrote src/*.ts']], work: [{ did: 'wrote src/*.ts', asks: 5 }, { did: 'wrote CHANGELOG.md', asks: 1 }], asksRead: 5 },
      ],
    });
    expect(reply.names).toEqual([
      { id: 'cl_big', job: 'writing release notes' },
      { id: 'cl_odd', job: 'writing release notes' },
    ]);
    expect(reply.merges).toEqual([['cl_big', 'cl_odd']]);
  });

  it('splits a cluster whose shown asks made different products (code work apart from an upgrade), and merges none of its parts by the cluster id', () => {
    const reply = simReview({
      clusters: [
        {
          id: 'cl_mix',
          size: 20,
          asks: ['fix the error handling in src/api/a.ts as well', 'update vite and fix what broke', 'update zod and fix what broke', 'update pino and fix what broke'],
          did: [['wrote src/*.ts', 'ran npm test'], ['ran npm install', 'ran npm test'], ['ran npm install'], ['ran npm update', 'wrote src/*.ts']],
        },
        { id: 'cl_up', size: 40, asks: ['upgrade zod to the latest version'], did: [['ran npm install']] },
      ],
    });
    expect(reply.splits).toEqual([
      {
        id: 'cl_mix',
        groups: [
          { job: 'upgrading a dependency', asks: [1, 2, 3] },
          { job: 'changing the code', asks: [0] },
        ],
      },
    ]);
    expect(reply.merges).toEqual([]);
  });
});

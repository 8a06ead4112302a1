import { describe, expect, it } from 'vitest';
import { IntentClusterer, MutableDf, emptySource } from '../../src/mine/cluster.js';
import { featuresOf } from '../../src/mine/features.js';
import { keyOf } from '../../src/mine/normalize.js';
import { clustersToShow, type ReviewCandidate } from '../../src/mine/cluster-review.js';

describe('which clusters one review call shows', () => {
  it('the largest clusters, then the small ones most like one of them (a job splinter before a one-off)', () => {
    const c = new IntentClusterer(emptySource, new MutableDf(), { threshold: 0.99, now: 0 });
    const add = (text: string, session: string) => c.add(featuresOf(keyOf(text)), session, 1).clusterId;
    // two jobs of several asks each (said the same way), a splinter of the first, a one-off
    const changelog = ['write a changelog entry for the rounding fix', 'write a changelog entry for the rounding fix'].map((t, i) => add(t, `a${i}`))[0];
    const tests = ['write vitest cases for parseAmount', 'write vitest cases for parseAmount'].map((t, i) => add(t, `b${i}`))[0];
    const splinter = add('changelog line about the rounding fix under Fixed', 'c0');
    const oneOff = add('brainstorm a websocket design with kafka', 'd0');
    const candidate = (id: string): ReviewCandidate => ({ id, size: c.get(id)!.size, asks: [{ key: `${id}#1`, prompt: id }] });
    const pending = [oneOff, splinter, tests, changelog].map(candidate);
    expect(new Set([changelog, tests, splinter, oneOff]).size).toBe(4);
    // room for everything: all of them, biggest first
    expect(clustersToShow(pending, c, 10, 2).map((x) => x.id).slice(0, 2).sort()).toEqual([changelog, tests].sort());
    // room for three, one slot for a near miss: the splinter, not the one-off
    expect(clustersToShow(pending, c, 3, 1).map((x) => x.id)).toEqual([...clustersToShow(pending, c, 3, 1).slice(0, 2).map((x) => x.id), splinter]);
    expect(clustersToShow(pending, c, 3, 1).map((x) => x.id)).not.toContain(oneOff);
  });
});

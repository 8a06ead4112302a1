import { describe, expect, it } from 'vitest';
import type { Edit } from '../../src/core/records.js';
import { attributeEdits, rebuildSkill, withoutEdits, type LineageOp } from '../../src/trainer/passes/attribution.js';
import { rescueEdits } from '../../src/trainer/passes/rescue.js';
import { applyEdits } from '../../src/skilldoc/edits.js';
import { gateDecision, type SplitScores } from '../../src/trainer/gate/gate.js';
import { getGuidance } from '../../src/skilldoc/segments.js';

const add = (content: string): Edit => ({ op: 'add', content, rationale: '', evidence: [] });
const opts = { scope: 'document' as const };
/** A validation "oracle": +0.2 per good rule present, −0.3 per bad rule present. */
const valScore = (doc: string) => 0.2 + (doc.match(/- good/g)?.length ?? 0) * 0.2 - (doc.match(/- bad/g)?.length ?? 0) * 0.3;
const scores = (doc: string): SplitScores => ({ hard: valScore(doc), soft: valScore(doc), perTask: [] });

describe('attribution (leave-one-edit-out)', () => {
  const lineage: LineageOp[] = [
    { kind: 'edits', step: 1, edits: [{ id: 's1e0', edit: add('- good one') }, { id: 's1e1', edit: add('- bad one') }] },
    { kind: 'guidance', text: '- remember' },
    { kind: 'edits', step: 2, edits: [{ id: 's2e0', edit: add('- good two') }] },
  ];
  const base = '# S\n';
  const best = rebuildSkill(base, lineage, opts);
  it('replays the accepted history faithfully (edits and guidance)', () => {
    expect(best).toContain('- good one\n- bad one\n- good two');
    expect(getGuidance(best)).toBe('- remember');
    expect(rebuildSkill(base, withoutEdits(lineage, new Set(['s1e1'])), opts)).not.toContain('- bad one');
  });
  it('measures each edit by the score of the best skill without it', async () => {
    const seen: string[] = [];
    const res = await attributeEdits({ base, lineage, best, bestScore: valScore(best), opts, maxEdits: 10, score: async (c) => (seen.push(c), valScore(c)) });
    expect(res.faithful).toBe(true);
    expect(res.measured).toBe(3);
    expect(res.effects.get('s1e0')).toBeCloseTo(0.2);
    expect(res.effects.get('s1e1')).toBeCloseTo(-0.3);
    expect(res.effects.get('s2e0')).toBeCloseTo(0.2);
    expect(seen.every((c) => getGuidance(c) === '- remember')).toBe(true);
  });
  it('stops at maxEdits (the rest stay null)', async () => {
    const res = await attributeEdits({ base, lineage, best, bestScore: valScore(best), opts, maxEdits: 1, score: async (c) => valScore(c) });
    expect(res.effects.get('s1e0')).not.toBeNull();
    expect(res.effects.get('s2e0')).toBeNull();
  });
});

describe('rescue of a rejected multi-edit candidate', () => {
  const base = '# S\n';
  const edits = [add('- good one'), add('- bad one'), add('- good two'), add('- neutral')];
  const applied = applyEdits(base, edits, opts).results;
  it('keeps the edits that help alone, gates the recombination, and measures each edit', async () => {
    const full = applyEdits(base, edits, opts).content;
    expect(valScore(full)).toBeCloseTo(0.3); // +0.4 − 0.3: barely above base 0.2
    const baseScores = scores(base);
    const r = await rescueEdits({
      base,
      baseScore: valScore(base),
      applied,
      applyOpts: opts,
      measureVal: async (c) => scores(c),
      score: (s) => s.soft,
      gate: async (_content, cand) => gateDecision({ metric: 'soft', current: baseScores, candidate: cand, bestScore: valScore(base) }),
    });
    expect(r.kept.map((k) => k.edit.content)).toEqual(['- good one', '- good two']);
    expect(r.decision?.action).toBe('accept_new_best');
    expect(r.singles.map((s) => Number(s.gain?.toFixed(2)))).toEqual([0.2, -0.3, 0.2, 0]);
    expect(r.candidate).not.toContain('- bad one');
  });
  it('nothing helpful alone: nothing kept', async () => {
    const r = await rescueEdits({
      base,
      baseScore: valScore(base),
      applied: applyEdits(base, [add('- bad x'), add('- neutral')], opts).results,
      applyOpts: opts,
      measureVal: async (c) => scores(c),
      score: (s) => s.soft,
      gate: () => {
        throw new Error('must not be called');
      },
    });
    expect(r.kept).toEqual([]);
    expect(r.decision).toBeNull();
  });
});

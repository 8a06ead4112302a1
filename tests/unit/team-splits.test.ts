/** Member-aware splits of the team night (src/team/splits.ts) and the team jobs they work on (src/team/jobs.ts). */
import { describe, expect, it } from 'vitest';
import { assignTeamSplits, sessionUnit, splitProvenance } from '../../src/team/splits.js';
import { teamJobs } from '../../src/team/jobs.js';
import type { PooledTask } from '../../src/team/contract.js';
import { makeTask } from '../helpers/tasks.js';

const ASKS = {
  commit: ['write the commit message for {x}', 'give me a commit message for {x}', 'draft a git commit message: {x}'],
  changelog: ['add a changelog entry for {x}', 'write the CHANGELOG entry for {x}', 'update CHANGELOG.md for {x}'],
};
const OBJECTS = ['the retry fix', 'the export flag', 'the importer', 'the cache', 'the scheduler', 'node 22', 'the docs', 'the parser'];

function pooled(member: string, job: keyof typeof ASKS, sessions: number, tasksPerSession = 1, offset = 0): PooledTask[] {
  const out: PooledTask[] = [];
  for (let s = 0; s < sessions; s++) {
    for (let k = 0; k < tasksPerSession; k++) {
      const id = `${member}-${job}-${s}-${k}`;
      const intent = ASKS[job][(s + k) % ASKS[job].length].replace('{x}', OBJECTS[(s * 3 + k + offset) % OBJECTS.length]);
      out.push({ repoKey: 'r', memberId: member, sessionKey: `${member}-s${s}`, contentHash: `h-${id}`, task: makeTask({ id, intent, judge: { checks: [], reference: { kind: 'rule' } }, split: 'train', family: `${member}-fam-${job}` }) });
    }
  }
  return out;
}

describe('team jobs', () => {
  it('joins the same job across members (their family ids differ) and keeps two jobs apart', () => {
    const pool = [...pooled('m1', 'commit', 4), ...pooled('m2', 'commit', 4), ...pooled('m3', 'commit', 3), ...pooled('m1', 'changelog', 4), ...pooled('m2', 'changelog', 3)];
    const jobs = teamJobs(pool, 0.5);
    expect(jobs).toHaveLength(2);
    expect(jobs[0].members.size).toBe(3);
    expect(jobs[0].tasks).toHaveLength(11);
    expect(jobs[1].members).toEqual(new Set(['m1', 'm2']));
  });
});

describe('member-aware splits', () => {
  const pool = [...pooled('m1', 'commit', 9, 2), ...pooled('m2', 'commit', 6, 2), ...pooled('m3', 'commit', 2, 2)];
  const jobs = teamJobs(pool, 0.5);
  const splits = assignTeamSplits(pool, jobs, 1);

  it('keeps a session in one split (its tasks never straddle train and validation)', () => {
    const bySession = new Map<string, Set<string>>();
    for (const p of pool) bySession.set(sessionUnit(p), (bySession.get(sessionUnit(p)) ?? new Set()).add(splits.get(p.contentHash)!));
    for (const s of bySession.values()) expect(s.size).toBe(1);
  });

  it('validates on several members, and every member with three sessions or more both trains and validates', () => {
    const prov = splitProvenance(pool, splits);
    const val = prov.find((p) => p.split === 'val')!;
    expect(val.members).toBeGreaterThanOrEqual(2);
    for (const m of ['m1', 'm2']) {
      const mine = pool.filter((p) => p.memberId === m).map((p) => splits.get(p.contentHash));
      expect(mine).toContain('train');
      expect(mine).toContain('val');
    }
    expect(prov.reduce((n, p) => n + p.tasks, 0)).toBe(pool.length);
  });

  it('is a pure function of the pool: the same splits in another order, and a new session moves no old one', () => {
    const again = assignTeamSplits([...pool].reverse(), teamJobs([...pool].reverse(), 0.5), 1);
    expect(again).toEqual(splits);
    const grown = [...pool, ...pooled('m1', 'commit', 10, 2).slice(18)];
    const after = assignTeamSplits(grown, teamJobs(grown, 0.5), 1);
    const moved = pool.filter((p) => after.get(p.contentHash) !== splits.get(p.contentHash));
    // a family's split sizes follow its size, so at most the member's newly needed held-out slots shift
    expect(moved.filter((p) => p.memberId !== 'm1')).toEqual([]);
  });

  it('spreads validation to a second member when the hashes put only one there', () => {
    // two members with two sessions each: the hash alone often validates on one member only
    for (let seed = 1; seed <= 20; seed++) {
      const small = [...pooled('a', 'commit', 2), ...pooled('b', 'commit', 2, 1, 1)];
      const s = assignTeamSplits(small, teamJobs(small, 0.5), seed);
      const prov = splitProvenance(small, s);
      expect(prov.find((p) => p.split === 'train')!.tasks).toBeGreaterThan(0);
      expect(prov.find((p) => p.split === 'val')!.members).toBe(2);
    }
  });

  it('puts the same ask from two members in one split (the holdout check would refuse it in two)', () => {
    const same = [...pooled('a', 'commit', 3), ...pooled('b', 'commit', 3)];
    const s = assignTeamSplits(same, teamJobs(same, 0.5), 1);
    for (let i = 0; i < 3; i++) expect(s.get(`h-a-commit-${i}-0`)).toBe(s.get(`h-b-commit-${i}-0`));
  });

  it('always trains synthetic (dream) tasks', () => {
    const dream = pooled('m1', 'commit', 3).map((p) => ({ ...p, contentHash: `${p.contentHash}-d`, task: { ...p.task, id: `${p.task.id}_dream1`, origin: 'dream' as const } }));
    const all = [...pool, ...dream];
    const s = assignTeamSplits(all, teamJobs(all, 0.5), 1);
    for (const d of dream) expect(s.get(d.contentHash)).toBe('train');
  });
});

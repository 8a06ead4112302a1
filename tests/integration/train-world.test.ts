import { describe, it, expect } from 'vitest';
import { runExperiment } from '../../bench/train-experiment.js';
import { BASE_OPTIONS } from '../../bench/train.js';
import { personaVisibleChecksSkill, personaWorld } from '../../bench/persona.js';

// The instance-valued persona world (the train bench's headline): a train/val instance check
// carries its own session's value, so a notepad of the check descriptions hard-codes one
// instance, while the trainer's start draft writes numbers and versions as placeholders.
describe('train bench, instance-valued world', () => {
  // 32 test tasks: 4 instances per preference (with 2, one unlucky draw of a 0.9 rule reads as 0.5)
  const world = { train: 16, val: 16, test: 32 };
  const base = { seed: 3, world, malformedJsonRate: 0, instanceChecks: 'valued' as const };

  it('the notepad hard-codes a train instance value; the trained skill gives each test instance its own PR number', async () => {
    const notepad = await runExperiment({ ...base, skillFrom: (seen) => personaVisibleChecksSkill(seen, { onePerCheck: true }), train: false, options: {} });
    const trained = await runExperiment({ ...base, options: { ...BASE_OPTIONS, epochs: 1 } });
    expect(notepad.shipped).toMatch(/`\(#\d+\)`/);
    expect(notepad.perPref['changelog-pr-ref']).toBeLessThan(0.3);
    expect(trained.perPref['changelog-pr-ref']).toBeGreaterThan(0.6);
    expect(trained.perKind.instance).toBeGreaterThan(notepad.perKind.instance + 0.2);
    // no PR/issue number or version of a train/val ask is written into the shipped skill
    const w = personaWorld(3, world, { instanceChecks: 'valued' });
    for (const t of [...w.train, ...w.val]) for (const m of `${t.intent} ${t.context}`.matchAll(/#(\d+)|\b(\d+\.\d+\.\d+)\b/g)) expect(trained.shipped).not.toContain(m[0]);
  });
});

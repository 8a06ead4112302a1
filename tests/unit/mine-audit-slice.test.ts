/** The sealed audit slice (mine/splits.ts): a rotating third of the test tasks that no decision reads. */
import { describe, expect, it } from 'vitest';
import { AUDIT_ROTATION, auditSlice, auditSlot } from '../../src/mine/splits.js';
import type { Split } from '../../src/core/records.js';

const tasks = (n: number, split: Split = 'test') => Array.from({ length: n }, (_, i) => ({ id: `task_${i}`, split }));
const DAY = 86_400_000;

describe('auditSlice', () => {
  it('is deterministic per night and rotates: over three nights every test task is sealed exactly once', () => {
    const tests = tasks(30);
    const sealedOn = new Map<string, number[]>();
    for (let night = 0; night < AUDIT_ROTATION; night++) {
      const slot = auditSlot(Date.UTC(2026, 10, 20) + night * DAY);
      const a = auditSlice(tests, slot);
      expect(auditSlice(tests, slot).audit.map((t) => t.id)).toEqual(a.audit.map((t) => t.id)); // same night, same slice
      expect(a.audit.length + a.open.length).toBe(tests.length);
      expect(a.audit.some((t) => a.open.includes(t))).toBe(false);
      for (const t of a.audit) sealedOn.set(t.id, [...(sealedOn.get(t.id) ?? []), night]);
    }
    expect(sealedOn.size).toBe(tests.length);
    expect([...sealedOn.values()].every((nights) => nights.length === 1)).toBe(true);
    // roughly a third each night, not all on one
    const sizes = [0, 1, 2].map((slot) => auditSlice(tests, slot).audit.length);
    expect(Math.min(...sizes)).toBeGreaterThan(3);
  });

  it('the slot follows the UTC day: the same night seals the same slice at any hour', () => {
    const t0 = Date.UTC(2026, 10, 20, 0, 5);
    expect(auditSlot(t0)).toBe(auditSlot(t0 + 20 * 3_600_000));
    expect(auditSlot(t0 + DAY)).toBe((auditSlot(t0) + 1) % AUDIT_ROTATION);
  });

  it('seals only test tasks and leaves at least one test task open for autoApply', () => {
    const mixed = [...tasks(3, 'train'), ...tasks(2, 'val').map((t) => ({ ...t, id: `v${t.id}` }))];
    for (let slot = 0; slot < AUDIT_ROTATION; slot++) expect(auditSlice(mixed, slot).audit).toEqual([]);
    const two = tasks(2);
    for (let slot = 0; slot < AUDIT_ROTATION; slot++) expect(auditSlice(two, slot).open.length).toBeGreaterThanOrEqual(1);
  });
});

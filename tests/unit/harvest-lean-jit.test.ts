import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withLeanJit } from '../../src/harvest/lean-jit.js';

describe('withLeanJit (TurboFan inlining off while a harvest pass runs)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('turns inlining off for the pass and back on after, returning what the pass returns', async () => {
    const flags = vi.spyOn(v8, 'setFlagsFromString');
    const out = await withLeanJit(async () => {
      expect(flags.mock.calls.map((c) => c[0])).toEqual(['--no-turbo-inlining']);
      return 42;
    });
    expect(out).toBe(42);
    expect(flags.mock.calls.map((c) => c[0])).toEqual(['--no-turbo-inlining', '--turbo-inlining']);
  });

  it('overlapping passes set the flag once and restore it when the last one ends, even when one throws', async () => {
    const flags = vi.spyOn(v8, 'setFlagsFromString');
    let release!: () => void;
    const long = withLeanJit(() => new Promise<string>((r) => (release = () => r('long'))));
    await expect(withLeanJit(async () => Promise.reject(new Error('pass failed')))).rejects.toThrow('pass failed');
    expect(flags.mock.calls.map((c) => c[0])).toEqual(['--no-turbo-inlining']); // the long pass still runs
    release();
    expect(await long).toBe('long');
    expect(flags.mock.calls.map((c) => c[0])).toEqual(['--no-turbo-inlining', '--turbo-inlining']);
  });

  it('leaves the flag alone when the process was started with it', async () => {
    const flags = vi.spyOn(v8, 'setFlagsFromString');
    const argv = process.execArgv;
    process.execArgv = [...argv, '--turbo-inlining'];
    try {
      expect(await withLeanJit(async () => 'ok')).toBe('ok');
    } finally {
      process.execArgv = argv;
    }
    expect(flags).not.toHaveBeenCalled();
  });
});

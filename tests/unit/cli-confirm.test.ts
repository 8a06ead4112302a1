/** wipe and uninstall never delete the filesystem root, the home folder or a folder above it. */
import { describe, expect, it } from 'vitest';
import { assertDeletableFolder } from '../../src/cli/confirm.js';

describe('assertDeletableFolder', () => {
  it('refuses the root, the home folder and anything above it; allows a folder inside', () => {
    const env = { HOME: '/home/dana' };
    expect(() => assertDeletableFolder('/', env)).toThrow(/filesystem root/);
    expect(() => assertDeletableFolder('/home/dana', env)).toThrow(/home folder/);
    expect(() => assertDeletableFolder('/home', env)).toThrow(/home folder/);
    expect(() => assertDeletableFolder('/home/dana/.local/state/skillopt-sleep', env)).not.toThrow();
  });
});

/**
 * Real mounts for the fault tests (a read-only bind mount, a tiny tmpfs that fills up): only root
 * on Linux may mount, so `canMount` is probed once and the mount cases are skipped elsewhere.
 */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';

export function mount(args: string[]): boolean {
  return spawnSync('mount', args, { encoding: 'utf8' }).status === 0;
}

export const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync('/tmp/sos-mount-probe-');
  const ok = mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
  if (ok) spawnSync('umount', [probe]);
  fs.rmSync(probe, { recursive: true, force: true });
  return ok;
})();

/** `doctor`: is the daemon running, did it crash, is a nightly night going to happen. */
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import type { Db } from '../store/db.js';
import { readHealth } from './health.js';
import { liveDaemon, fmtDuration } from './lifecycle.js';

/** The daemon lines of doctor (reads its health row from the store). */
export function doctorChecks(ctx: DoctorContext & { readonly db: Db }): DoctorCheck[] {
  const rec = liveDaemon(ctx.paths);
  if (rec) {
    const h = readHealth(ctx.db);
    const checks: DoctorCheck[] = [{ name: 'daemon', status: 'ok', detail: `running (pid ${rec.pid}, up ${fmtDuration(Date.now() - rec.startedAt)})` }];
    if (h?.watcherError) checks.push({ name: 'daemon watcher', status: 'warn', detail: h.watcherError });
    if (h && !h.backend.name) {
      checks.push({ name: 'daemon nights', status: 'warn', detail: `nights are skipped: ${h.backend.detail}` });
    }
    return checks;
  }
  const h = readHealth(ctx.db);
  if (h && h.state !== 'stopped') {
    return [{ name: 'daemon', status: 'warn', detail: 'not running: it stopped without shutting down (crash or kill)', fix: '`skillopt-sleep start` (it recovers); `skillopt-sleep logs` says why' }];
  }
  return [{ name: 'daemon', status: 'warn', detail: 'not running: nothing is watched and no night will run', fix: '`skillopt-sleep start`; `skillopt-sleep schedule install` keeps it running across reboots' }];
}

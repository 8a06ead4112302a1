/** `doctor`: is the daemon running, did it crash, is a nightly night going to happen. */
import { DOCTOR_PROBES, type DoctorCheck } from '../cli/doctor-probes.js';
import { readHealth } from './health.js';
import { liveDaemon, fmtDuration } from './lifecycle.js';

DOCTOR_PROBES.push((ctx): DoctorCheck[] => {
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
});

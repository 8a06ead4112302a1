/**
 * The team-mode tests' PostgreSQL: a throwaway cluster (bench/pg-cluster.ts, shared with the load
 * bench) and whether the tests can run here at all.
 */
import { findPgBin } from '../../bench/pg-cluster.js';

export { findPgBin, startPgCluster, type PgCluster } from '../../bench/pg-cluster.js';

/**
 * Whether the team tests can run. Absent binaries skip them loudly on a developer's machine; under
 * CI=true they fail instead (`.ci/run` installs Debian's postgresql package when initdb is missing).
 */
export function pgAvailable(): boolean {
  if (findPgBin()) return true;
  const msg = 'PostgreSQL (initdb/pg_ctl) is not installed: the team-mode tests against a real server are SKIPPED. Install it (Debian: apt-get install postgresql).';
  if (process.env.CI === 'true') throw new Error(`${msg} Under CI they must run.`);
  console.warn(`\n!!! ${msg}\n`);
  return false;
}


/**
 * The simulated miner's cluster review (`review_clusters`): a careful reader of the asks shown.
 * It knows the common jobs of software work by what they produce or fix, in the many ways people
 * word them, reads each representative ask for its job, and then names each cluster, splits a
 * cluster whose asks are different jobs, and merges clusters that are the same job. An ask it
 * cannot place it leaves alone (a careful reader does not guess). It sees only the payload: the
 * clusters' ids, sizes and asks, nothing of the corpus behind them.
 */
import type { ReviewClustersPayload } from '../../core/protocol.js';

/** Jobs a reader recognises, most specific first (the first match is the ask's job). */
const JOBS: Array<{ job: string; re: RegExp }> = [
  { job: 'writing release notes', re: /\brelease (notes?|announcement|text|description)\b|\bnotes for the .{0,20}release\b|\bwhat'?s new\b|\bgithub release\b/i },
  { job: 'writing a CHANGELOG entry', re: /\bchange ?log\b/i },
  { job: 'writing a commit message', re: /\bcommit (message|msg|text)\b|\bgit commit\b|\bword the commit\b|\bthe commit for\b/i },
  { job: 'writing a pull request description', re: /\b(pr|pull request|merge request)\b.{0,30}\b(description|body|template)\b|\b(description|body|template)\b.{0,20}\b(pr|pull request)\b|\bdescribe this branch\b/i },
  { job: 'writing a database migration', re: /\bmigrations?\b(?! to)|\bschema change\b|\balter (the )?\w+ (table )?to add\b|\btable needs a\b/i },
  { job: 'investigating a failing CI run', re: /\b(ci|pipeline|github actions|actions workflow|workflow)\b/i },
  { job: 'cutting a release', re: /\b(patch|minor|major) (release|version)\b|\bnpm version\b|\bpublish\b|\btag v?\d|\btag it\b|\brelease \d|\bversion bump\b|\bbump (the version|to)\b|\bmake a release\b|\bcut a (patch|minor|major|new)?\s?release\b/i },
  {
    job: 'upgrading a dependency',
    re: /\b(upgrade|outdated|renovate|dependabot|lockfile)\b|\bbump (?!to\b|the version\b|version\b)\w+|\b(latest|newest) (version|release|\w+)\b|\bmigrate to\b|\bmove us to\b|\bnpm update\b|\bdependency\b|\bneeds a version bump\b|\bversions? behind\b|\bup to date\b/i,
  },
  { job: 'fixing lint errors', re: /\b(lint|linter|eslint|prettier|no-unused-vars)\b/i },
  { job: 'fixing TypeScript type errors', re: /\b(tsc|typescript|typecheck|type ?check|type errors?|ts\d{4})\b|\btypes (are|compile)\b|\bthe types\b/i },
  { job: 'writing unit tests', re: /\b(unit[- ]?tests?|tests?|specs?|vitest|jest|coverage|test cases?|test file)\b|\bcover \S+ with\b/i },
  { job: 'updating the docs', re: /\b(readme|docs|documentation|doc page)\b|\bdocument (how|\w+ in)\b/i },
];

/**
 * A tool is also a package: a reader takes "update vitest" or "eslint to 9.0" for an upgrade, not
 * for a test or lint job (unless the tool's own config or errors are what the ask is about).
 */
const TOOL_AS_PACKAGE =
  /\b(update|upgrade|bump|pin|install|migrate to)\s+(the |our )?(vitest|jest|mocha|eslint|prettier|typescript|biome)\b(?!\s+(config|configuration|rules?|errors?|warnings?|types?|tests?|cases?|specs?))|\b(vitest|jest|mocha|eslint|prettier|typescript|biome)\s+(to|@)\s*v?\d/i;

/** The job a careful reader sees in a text (an ask, or a job named in a skill's description), or null. */
export function jobOf(ask: string): string | null {
  if (TOOL_AS_PACKAGE.test(ask)) return 'upgrading a dependency';
  for (const j of JOBS) if (j.re.test(ask)) return j.job;
  return null;
}

export function reviewClusters(p: ReviewClustersPayload): {
  names: Array<{ id: string; job: string }>;
  merges: string[][];
  splits: Array<{ id: string; groups: Array<{ job: string; asks: number[] }> }>;
} {
  const names: Array<{ id: string; job: string }> = [];
  const splits: Array<{ id: string; groups: Array<{ job: string; asks: number[] }> }> = [];
  const byJob = new Map<string, string[]>();
  for (const c of p.clusters) {
    const jobs = c.asks.map(jobOf);
    const counts = new Map<string, number[]>();
    jobs.forEach((j, i) => {
      if (j) counts.set(j, [...(counts.get(j) ?? []), i]);
    });
    if (counts.size === 0) continue;
    const ranked = [...counts.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
    const [main] = ranked[0];
    // every ask it can place with one job is needed before it says the cluster is two jobs
    if (ranked.length >= 2 && jobs.every((j) => j !== null)) {
      splits.push({ id: c.id, groups: ranked.map(([job, asks]) => ({ job, asks })) });
    } else if (ranked[0][1].length * 2 < c.asks.length) {
      continue; // mostly asks it cannot place: leave the cluster alone
    }
    names.push({ id: c.id, job: main });
    byJob.set(main, [...(byJob.get(main) ?? []), c.id]);
  }
  const merges = [...byJob.values()].filter((ids) => ids.length > 1);
  return { names, merges, splits };
}

/**
 * The simulated miner's cluster review (`review_clusters`): a careful reader of the asks shown.
 * It knows the common jobs of software work by what they produce or fix, in the many ways people
 * word them, reads each representative ask for its job, and then names each cluster, splits a
 * cluster whose asks are different jobs, and merges clusters that are the same job. An ask it
 * cannot place it leaves alone (a careful reader does not guess). It sees only the payload: the
 * clusters' ids, sizes, asks and what the agent did for them (the files it wrote, the commands it
 * ran, as the rendered prompt shows them), nothing of the corpus behind them.
 *
 * What the agent did outranks the words: a reader who sees that the agent wrote CHANGELOG.md knows
 * the ask was a changelog entry however it was worded, and one who sees `gh pr edit --body-file`
 * knows "… needs a summary and a test plan" asked for a PR description, not tests. Only the work
 * that is a job's product counts (a test file written, `git commit`, `npm publish`); running the
 * tests or tsc is verification every job does, and tells the job only when nothing else was made.
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

/**
 * A job's product in what the agent did, most specific first: the first match names the job. The
 * signs are the miner's readings of paths and command lines (src/mine/work.ts: "wrote CHANGELOG.md",
 * "ran git commit"); a reader knows which artefact each job produces.
 */
const WORK_JOBS: Array<{ job: string; re: RegExp }> = [
  { job: 'writing release notes', re: /^ran gh release\b|^wrote (release[_-]?notes|releases?)\b/i },
  { job: 'writing a CHANGELOG entry', re: /^wrote (changelog|changes|history)(\.md)?\b|^ran changeset\b/i },
  { job: 'cutting a release', re: /^ran (npm|pnpm|yarn) (version|publish)\b|^ran git tag\b|^ran (np|release-it|semantic-release)\b/i },
  { job: 'writing a pull request description', re: /^ran (gh|glab) (pr|mr)\b/i },
  { job: 'writing a commit message', re: /^ran git commit\b/i },
  { job: 'writing a database migration', re: /^wrote (db\/\*|migrations?\/|prisma\/)|^ran (knex|prisma|drizzle-kit) migrat|^ran (knex|sequelize) migrate/i },
  { job: 'investigating a failing CI run', re: /^ran gh run\b|^wrote \.(github|gitlab|circleci)\b/i },
  { job: 'writing unit tests', re: /^wrote a test file\b/i },
  { job: 'upgrading a dependency', re: /^ran (npm|pnpm|yarn|bun) (install|add|update|upgrade|up)\b|^ran (ncu|npm-check-updates)\b/i },
  { job: 'updating the docs', re: /^wrote (readme(\.md)?|docs\/)/i },
];
/** Verifications that are a job of their own only when the agent made nothing else than source changes. */
const VERIFY_JOBS: Array<{ job: string; re: RegExp }> = [
  { job: 'fixing lint errors', re: /^ran (eslint|prettier|biome|(npm|pnpm|yarn) run lint)\b/i },
  { job: 'fixing TypeScript type errors', re: /^ran (tsc|(npm|pnpm|yarn) run (typecheck|type-check))\b/i },
];

/** The jobs a careful reader sees in what the agent did for an ask, most specific first (empty when none). */
export function jobsOfWork(did: readonly string[] | undefined): string[] {
  if (!did?.length) return [];
  const made = WORK_JOBS.filter((j) => did.some((d) => j.re.test(d))).map((j) => j.job);
  if (made.length) return made;
  const verified = VERIFY_JOBS.filter((j) => did.some((d) => j.re.test(d)));
  return verified.length === 1 ? [verified[0].job] : [];
}

/** The job a careful reader sees in what the agent did for an ask, or null. */
export function jobOfWork(did: readonly string[] | undefined): string | null {
  return jobsOfWork(did)[0] ?? null;
}

/**
 * The loosest words that touch each job's artefact: what the agent did is read as the ask's job
 * only when the ask's words are compatible with it. An agent that also wrote CHANGELOG.md while
 * handling "the timeout case in src/x.ts" did two things; the ask was the code change.
 */
const MENTIONS: Record<string, RegExp> = {
  'writing release notes': /\bnotes?\b|\breleases?\b/i,
  'writing a CHANGELOG entry': /\bchange ?log|\bchanges\b|\bentry\b/i,
  'cutting a release': /\breleases?\b|\bversion\b|\bpublish|\btag\b|\bship\b/i,
  'writing a pull request description': /\b(pr|pull request|merge request|branch)\b/i,
  'writing a commit message': /\bcommit/i,
  'writing a database migration': /\bmigrat|\bschema\b|\bcolumn\b|\btable\b/i,
  'investigating a failing CI run': /\b(ci|build|pipeline|workflow|actions?|checks?|runs?|job)\b/i,
  'writing unit tests': /\btest|\bspecs?\b|\bcoverage\b/i,
  'upgrading a dependency': /\b(update|upgrade|bump|versions?|latest|outdated|dependabot|renovate|dependency|dependencies)\b/i,
  'updating the docs': /\bdoc|\breadme\b|\bexplain\b/i,
  'fixing lint errors': /\blint|\bformat|\bprettier\b|\bstyle\b/i,
  'fixing TypeScript type errors': /\btyp|\btsc\b|\bts\d{4}\b/i,
};

/**
 * An ask's job, from its words and what the agent did for it: the job both show; else the job of
 * the agent's work that the words touch (the words alone misread "… a summary and a test plan" as
 * tests, the `gh pr` run shows a PR description); else the job of the words.
 */
export function jobOfAsk(ask: string, did: readonly string[] | undefined): string | null {
  const said = jobOf(ask);
  const done = jobsOfWork(did);
  if (said && done.includes(said)) return said;
  return done.find((j) => MENTIONS[j]?.test(ask)) ?? said;
}

/** Work a reader can tell from a job's, though it names none: code edited in source files (a fix, a rename). */
const CODE_WORK = 'changing the code';
function workKind(did: readonly string[] | undefined): string | null {
  if (!did?.length) return null;
  return did.some((d) => /^wrote src\//.test(d)) ? CODE_WORK : null;
}

/** A cluster's job from what the agent did across its asks: one product, made in a good share of them. */
function clusterJobOfWork(c: ReviewClustersPayload['clusters'][number]): string | null {
  if (!c.work?.length || !c.asksRead) return null;
  const byJob = new Map<string, number>();
  for (const w of c.work) {
    const j = jobOfWork([w.did]);
    if (j) byJob.set(j, Math.max(byJob.get(j) ?? 0, w.asks));
  }
  const ranked = [...byJob.entries()].sort((a, b) => b[1] - a[1]);
  if (!ranked.length) return null;
  const [job, n] = ranked[0];
  const second = ranked[1]?.[1] ?? 0;
  // a third of its asks or more made it (an agent often answers in text and makes nothing), more
  // than once, and no other product comes near
  return n * 3 >= c.asksRead && n >= 2 && n >= 2 * second ? job : null;
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
    // what the agent made for an ask first, then its words
    const jobs = c.asks.map((a, i) => jobOfAsk(a, c.did?.[i]));
    const counts = new Map<string, number[]>();
    jobs.forEach((j, i) => {
      if (j) counts.set(j, [...(counts.get(j) ?? []), i]);
    });
    // a shown ask stands for the asks worded like it
    const weight = (is: number[]) => is.reduce((a, i) => a + (c.worded?.[i] ?? 1), 0);
    const shownWeight = weight(c.asks.map((_, i) => i));
    const clusterJob = clusterJobOfWork(c);
    if (counts.size === 0 && !clusterJob) continue;
    const ranked = [...counts.entries()].sort((a, b) => weight(b[1]) - weight(a[1]) || (a[0] < b[0] ? -1 : 1));
    // every ask it can place is needed before it says the cluster is two jobs: with a job, or as
    // plain code work whose agent made none of the other asks' products
    const kinds = c.asks.map((_, i) => jobs[i] ?? workKind(c.did?.[i]));
    const code = kinds.map((k, i) => (k === CODE_WORK ? i : -1)).filter((i) => i >= 0);
    // (fixing lint or type errors is code work too: only a product made elsewhere sets code work apart)
    const products = ranked.length > 0 && ranked.every(([job]) => !VERIFY_JOBS.some((v) => v.job === job));
    const groups = code.length && products ? [...ranked, [CODE_WORK, code] as [string, number[]]] : ranked;
    if (groups.length >= 2 && kinds.every((k) => k !== null)) {
      // (the shown asks are its most and least typical ones, not a sample: which part is the bigger
      // one it cannot tell, so it names each part and merges none of them by the cluster's id)
      splits.push({ id: c.id, groups: groups.map(([job, asks]) => ({ job, asks })) });
      // its name: the job of its most typical ask (shown first)
      const home = groups.find(([, asks]) => asks.includes(0))?.[0];
      if (home && home !== CODE_WORK) names.push({ id: c.id, job: home });
      continue;
    }
    // the job most of its asks show; else the product most of the cluster's asks made
    const main = ranked.length && weight(ranked[0][1]) * 2 >= shownWeight ? ranked[0][0] : clusterJob;
    if (!main) continue; // mostly asks it cannot place: leave the cluster alone
    names.push({ id: c.id, job: main });
    byJob.set(main, [...(byJob.get(main) ?? []), c.id]);
  }
  const merges = [...byJob.values()].filter((ids) => ids.length > 1);
  return { names, merges, splits };
}

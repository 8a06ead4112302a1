/**
 * `npm run bench -- mine`: clustering quality on the labeled corpus (pairwise precision/recall) and
 * on the paraphrase corpus (bench/mine-paraphrase.ts: its dev, held-out and fresh template sets,
 * pairs within a project, mean of ten seeds, without and with the LLM cluster review played by
 * the sim, with a paired bootstrap CI of what the review adds), corrections mined as asks and follow-ups lost, mining 10,000 sessions from scratch,
 * and mining 100 new sessions into that store.
 * Args: `--sessions N` (default 10000). Wall-clock figures are the targets; CPU time is printed
 * next to them because the machine may be shared.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './types.js';
import { openDb } from '../src/store/db.js';
import { defaultConfig } from '../src/core/config.js';
import { runMining } from '../src/mine/index.js';
import { generateCorpus, insertCorpus, pairwiseScores } from './mine-corpus.js';
import { mineParaphrase } from './mine-paraphrase-run.js';
import type { TemplateSet } from './mine-paraphrase.js';
import { skillLoading, type SkillLoadScores } from './mine-skill-load.js';
import { MAX_DESCRIPTION_CHARS } from '../src/mine/skill-description.js';
import { f3, pairedBootstrap } from './stats.js';

/** Seeds of the paraphrase quality figures (ten: a mean with a paired bootstrap CI of what the review adds). */
const SEEDS = [21, 22, 23, 24, 25, 26, 27, 28, 29, 30];
/** Seeds of the skill-loading figures. */
const SKILL_SEEDS = [21, 22, 23];
type Run = Awaited<ReturnType<typeof mineParaphrase>>;

/** Runs per template set and review flag, so the review's rows can be paired with the runs without it. */
const runsCache = new Map<string, Run[]>();
async function paraphraseRuns(templates: TemplateSet, review: boolean): Promise<Run[]> {
  const key = `${templates}:${review}`;
  let runs = runsCache.get(key);
  if (!runs) {
    runs = [];
    for (const seed of SEEDS) runs.push(await mineParaphrase(templates, { seed, review }));
    runsCache.set(key, runs);
  }
  return runs;
}

/** Mean quality over the seeds on one template set, without or with the review pass. */
async function paraphraseRows(templates: TemplateSet, review: boolean): Promise<BenchResult[]> {
  const runs = await paraphraseRuns(templates, review);
  const mean = (f: (r: Run) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  const sum = (f: (r: Run) => number) => runs.reduce((a, r) => a + f(r), 0);
  const p = mean((r) => r.precision);
  const r = mean((x) => x.recall);
  const [pt, rt] = review ? [0.95, 0.95] : [0.9, 0.85];
  const label = `paraphrase ${templates}${review ? ' + LLM review (sim)' : ''}`;
  const rows: BenchResult[] = [
    { name: `${label}: precision (${SEEDS.length} seeds)`, value: p, unit: 'ratio', target: `>= ${pt}`, pass: p >= pt },
    { name: `${label}: recall`, value: r, unit: 'ratio', target: `>= ${rt}`, pass: r >= rt },
  ];
  if (!review) {
    rows.push(
      { name: `  corrections mined as asks`, value: sum((x) => x.correctionsAsAsks), unit: `of ${sum((x) => x.corrections)}` },
      { name: `  follow-up asks lost (taken for reactions)`, value: sum((x) => x.followUpsLost), unit: `of ${sum((x) => x.followUps)}` },
      { name: `  jobs cross-project only by project-less sessions`, value: sum((x) => x.crossProjectByNull), unit: 'count', target: '0', pass: sum((x) => x.crossProjectByNull) === 0 },
    );
  } else {
    const without = await paraphraseRuns(templates, false);
    const gain = (f: (r: Run) => number) => pairedBootstrap(runs.map(f), without.map(f));
    const g = gain((x) => x.recall);
    const gp = gain((x) => x.precision);
    rows.push(
      { name: `  recall the review adds (paired bootstrap 95% CI)`, value: g.diff, unit: `[${f3(g.lo)}, ${f3(g.hi)}]` },
      { name: `  precision the review adds (paired bootstrap 95% CI)`, value: gp.diff, unit: `[${f3(gp.lo)}, ${f3(gp.hi)}]` },
      { name: `  review calls per run`, value: mean((x) => x.reviewCalls), unit: 'calls', target: '1', pass: mean((x) => x.reviewCalls) === 1 },
    );
  }
  return rows;
}

/** Skill loading from the description on hidden asks of one template set (bench/mine-skill-load.ts), summed over the seeds. */
async function skillLoadRows(templates: TemplateSet): Promise<BenchResult[]> {
  const runs: SkillLoadScores[] = [];
  for (const seed of SKILL_SEEDS) runs.push(await skillLoading(templates, seed));
  const sum = (f: (r: SkillLoadScores) => number) => runs.reduce((a, r) => a + f(r), 0);
  const covered = sum((r) => r.covered);
  const other = sum((r) => r.other);
  const rate = sum((r) => r.coveredLoaded) / Math.max(1, covered);
  const longest = Math.max(...runs.map((r) => r.longestDescription));
  return [
    { name: `skill loaded (sim agent, ${templates}): hidden asks of a job it covers`, value: rate, unit: `of ${covered}` },
    { name: `  baseline: the first asks cut at 70 chars`, value: sum((r) => r.baselineCoveredLoaded) / Math.max(1, covered), unit: `of ${covered}` },
    { name: `  loaded for asks it does not cover (baseline ${sum((r) => r.baselineOtherLoaded)})`, value: sum((r) => r.otherLoaded), unit: `of ${other}` },
    { name: `  longest description`, value: longest, unit: 'chars', target: `<= ${MAX_DESCRIPTION_CHARS}`, pass: longest <= MAX_DESCRIPTION_CHARS },
  ];
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

export async function run(args: string[]): Promise<BenchResult[]> {
  const i = args.indexOf('--sessions');
  const n = i >= 0 ? Number(args[i + 1]) : 10_000;
  const quality: BenchResult[] = [];
  // dev: developed against; heldout: evaluated (read while diagnosing since); fresh: never read while coding
  for (const templates of ['dev', 'heldout', 'fresh'] as const) for (const review of [false, true]) quality.push(...(await paraphraseRows(templates, review)));
  for (const templates of ['dev', 'heldout', 'fresh'] as const) quality.push(...(await skillLoadRows(templates)));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-mine-'));
  try {
    const db = openDb(path.join(dir, 'sleep.db'));
    const config = defaultConfig();
    const corpus = generateCorpus({ sessions: n, seed: 11 });
    insertCorpus(db, corpus);
    const cpu0 = process.cpuUsage();
    const full = await runMining(db, config, { now: Date.UTC(2026, 10, 1) });
    const fullCpu = cpuMs(cpu0);
    const q = pairwiseScores(db, corpus);
    db.close();

    // the same 100 new sessions mined into three copies of that store: the machine may be shared,
    // so the least CPU of the three is the figure (the median beside it)
    const more = generateCorpus({ sessions: 100, seed: 12, idPrefix: 'new', startTs: Date.UTC(2026, 10, 2) });
    const incLoad = os.loadavg()[0];
    const incRuns: Array<{ cpu: number; wall: number; summary: Awaited<ReturnType<typeof runMining>> }> = [];
    for (let k = 0; k < 3; k++) {
      const copy = path.join(dir, `inc-${k}.db`);
      fs.copyFileSync(path.join(dir, 'sleep.db'), copy);
      const incDb = openDb(copy);
      insertCorpus(incDb, more, Date.UTC(2026, 10, 2));
      const cpu1 = process.cpuUsage();
      const summary = await runMining(incDb, config, { now: Date.UTC(2026, 10, 3) });
      incRuns.push({ cpu: cpuMs(cpu1), wall: summary.durationMs, summary });
      incDb.close();
    }
    const byCpu = [...incRuns].sort((a, b) => a.cpu - b.cpu);
    const inc = byCpu[0].summary;
    const incCpu = byCpu[0].cpu;
    const incWall = Math.min(...incRuns.map((r) => r.wall));
    return [
      { name: 'pairwise precision (labeled corpus)', value: q.precision, unit: 'ratio', target: '>= 0.9', pass: q.precision >= 0.9 },
      { name: 'pairwise recall (labeled corpus)', value: q.recall, unit: 'ratio', target: '>= 0.9', pass: q.recall >= 0.9 },
      { name: 'asks mined from subagent/self sessions', value: q.leakedExcluded, unit: 'count', target: '0', pass: q.leakedExcluded === 0 },
      { name: `mine ${n} sessions (${full.prompts} asks)`, value: full.durationMs / 1000, unit: 's', target: '<= 10', pass: full.durationMs <= 10_000 },
      { name: '  (CPU time of that run)', value: fullCpu / 1000, unit: 's' },
      { name: `  recurring tasks found`, value: full.recurringTasks, unit: 'tasks' },
      { name: 'incremental: mine 100 new sessions into that store (best of 3)', value: incWall / 1000, unit: 's', target: '<= 0.5', pass: incWall <= 500 },
      { name: '  (least CPU time of the 3 runs)', value: incCpu / 1000, unit: 's', target: '<= 0.5', pass: incCpu <= 500 },
      { name: '  (median CPU time)', value: incRuns.map((r) => r.cpu).sort((a, b) => a - b)[1] / 1000, unit: 's' },
      { name: '  tasks new / updated by it', value: inc.newTasks, unit: `new, ${inc.updatedTasks} upd` },
      { name: '  ratio incremental/full per session (CPU)', value: incCpu / 100 / (fullCpu / n), unit: 'x' },
      { name: '  load average (1 min) during the incremental runs', value: incLoad, unit: `on ${os.cpus().length} cores` },
      ...quality,
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

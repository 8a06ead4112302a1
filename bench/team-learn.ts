/**
 * `npm run bench -- team-learn`: does a skill learned from three members beat one learned from one?
 * The team world (team-world.ts): three members share two jobs, each notices half of a job's
 * conventions, and each has a habit (a job of their own). Per seed:
 *  - TEAM: the real team night (src/team/night.ts: team jobs across members, member-aware splits,
 *    the personal night's trainer and gate) on the pooled tasks of all three members, against the
 *    bench's in-memory pool, training the repository's committed AGENTS.md in a real git
 *    repository; the team skill is the committed text of the branch it made (or AGENTS.md as it
 *    was, when the gate staged nothing);
 *  - PERSONAL (one per member): the same trainer, options and gate on that member's own tasks only
 *    (split per family as the member's miner splits them), from the same committed AGENTS.md;
 *  - each is scored on the OTHER members' hidden instances of the shared jobs (other wording,
 *    other objects, strict verifiers of every convention; the sim target reads only its prompt).
 * Team − personal is paired by seed, per member and averaged, with a paired bootstrap 95% CI.
 * Habit leak: seeds whose team skill holds a word only a member's habit rules use (must be 0);
 * beside it the control, the same night admitting the jobs of one member (minMembersPerJob 1).
 * Flags: --seeds N (default 10), --per-job N sessions per member and job (default 8).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openDb } from '../src/store/db.js';
import { resolvePaths } from '../src/core/paths.js';
import { defaultConfig, type Config } from '../src/core/config.js';
import type { Split, Task } from '../src/core/records.js';
import { upsertSession } from '../src/store/repos/sessions.js';
import { createRoleBackends } from '../src/llm/registry.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { scoreSkill } from '../src/replay/index.js';
import { assignFamilySplits } from '../src/mine/splits.js';
import { trainSkill, trainOptionsFromConfig } from '../src/trainer/index.js';
import { trainingImproved } from '../src/proposals/stage-train.js';
import { runTeamNight } from '../src/team/night.js';
import { ci, f3, mean, pairedBootstrap, type PairedCI } from './stats.js';
import { BenchTeamPool, HABIT_MARKERS, MEMBERS, SHARED_JOBS, memberHidden, memberTasks } from './team-world.js';
import type { BenchResult } from './types.js';

const AGENTS_MD = '# Agents\n\nHow we work in this repository.\n';
const REPO_KEY = 'team-bench-repo';
const DONE_MARGIN = 0.1;

function flag(args: string[], name: string, dflt: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : dflt;
}

function git(cwd: string, args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function benchConfig(seed: number): Config {
  const c = defaultConfig();
  for (const role of Object.keys(c.roles) as Array<keyof Config['roles']>) c.roles[role].backend = 'sim';
  c.backends.sim.seed = seed;
  c.training.seed = seed;
  Object.assign(c.budget, { maxCalls: 20_000, maxTokens: 50_000_000, maxTasks: 300 });
  return c;
}

/** A member's own tasks split as their miner splits them: per family, stable by task id. */
function personalSplits(tasks: Task[], seed: number): { train: Task[]; val: Task[]; test: Task[] } {
  const out = { train: [] as Task[], val: [] as Task[], test: [] as Task[] };
  for (const family of new Set(tasks.map((t) => t.family))) {
    const fam = tasks.filter((t) => t.family === family);
    const splits = assignFamilySplits(fam.map((t) => ({ id: t.id })), seed);
    for (const t of fam) {
      const split: Split = splits.get(t.id) ?? 'train';
      out[split].push({ ...t, split });
    }
  }
  return out;
}

export interface TeamSeedOutcome {
  seed: number;
  /** per member: the team skill and that member's personal skill on the other members' hidden instances */
  team: number[];
  personal: number[];
  /** the committed AGENTS.md as it was (no training), on the same instances */
  base: number[];
  teamStatus: string;
  personalStaged: number;
  /** habits whose words appear in the team skill (must be none) */
  habitLeaks: string[];
  /** the same, for the control night that admits one member's jobs (minMembersPerJob 1) */
  controlLeaks: string[];
  /** members whose personal skill learned their own habit (a sanity figure: the habit is real) */
  habitsInPersonal: number;
  cpuMs: number;
}

export async function runTeamSeed(seed: number, perJob: number): Promise<TeamSeedOutcome> {
  const cpu0 = process.cpuUsage();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-team-learn-'));
  try {
    const home = path.join(root, 'home');
    const env: NodeJS.ProcessEnv = { HOME: home, SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CODEX_HOME: path.join(root, 'codex'), COPILOT_HOME: path.join(root, 'copilot'), XDG_CONFIG_HOME: path.join(home, '.config'), PATH: process.env.PATH };
    fs.mkdirSync(home, { recursive: true });
    const repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    fs.writeFileSync(path.join(repo, 'AGENTS.md'), AGENTS_MD);
    git(repo, ['init', '-q', '-b', 'main']);
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-qm', 'first']);
    const paths = resolvePaths({ env });
    fs.mkdirSync(paths.stateDir, { recursive: true });
    const db = openDb(paths.database);
    try {
      upsertSession(db, { id: 'claude-code:bench', agent: 'claude-code', vendorId: 'bench', project: repo, cwd: repo, gitBranch: null, startedAt: 1, endedAt: 2, kind: 'interactive', parentId: null, file: '/nonexistent/bench.jsonl', title: null, promptCount: 1, toolErrorCount: 0 });
      const config = benchConfig(seed);
      const pool = new BenchTeamPool();
      const memberPools = MEMBERS.map((_, i) => memberTasks(seed, i, perJob, REPO_KEY));
      for (const p of memberPools) pool.push(p);

      const night = await runTeamNight(pool, { path: repo, key: REPO_KEY }, config, { db, paths, env, memberId: MEMBERS[0].id });
      const staged = night.skills.find((s) => s.file === 'AGENTS.md' && s.status === 'staged');
      const teamSkill = staged?.branch ? git(repo, ['show', `${staged.branch}:AGENTS.md`]) : AGENTS_MD;
      // the control: the same night with every job admitted (minMembersPerJob 1), on a fresh pool and lease
      const open = new BenchTeamPool();
      for (const p of memberPools) open.push(p);
      const control = await runTeamNight(open, { path: repo, key: REPO_KEY }, config, { db, paths, env, memberId: MEMBERS[0].id, minMembersPerJob: 1 });
      const controlStaged = control.skills.find((s) => s.file === 'AGENTS.md' && s.status === 'staged');
      const controlSkill = controlStaged?.branch ? git(repo, ['show', `${controlStaged.branch}:AGENTS.md`]) : AGENTS_MD;

      const personalSkills: string[] = [];
      let personalStaged = 0;
      for (let i = 0; i < MEMBERS.length; i++) {
        const backends = createRoleBackends(config, { db, runId: `personal-${i}`, env, simAllowed: true });
        const result = await trainSkill({
          db,
          paths,
          skill: { name: 'AGENTS.md', content: AGENTS_MD, path: path.join(repo, 'AGENTS.md'), handWritten: true },
          tasks: personalSplits(memberPools[i].map((p) => ({ ...p.task, project: repo })), config.training.seed),
          backends,
          options: { ...trainOptionsFromConfig(config.training), startDraftChecks: false },
        });
        const improved = trainingImproved(result);
        if (improved) personalStaged++;
        personalSkills.push(improved ? result.bestSkill : AGENTS_MD);
      }

      // the scorer is its own backend: it shares no draws or counts with the nights
      const tester = createSimBackend({ seed: seed + 10_000, role: 'target' });
      const score = async (tasks: Task[], content: string) => (await scoreSkill({ tasks, skill: { name: 'AGENTS.md', content }, target: tester, judge: tester, metric: 'soft' })).mean;
      const team: number[] = [];
      const personal: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < MEMBERS.length; i++) {
        const others = MEMBERS.flatMap((_, j) => (j === i ? [] : memberHidden(seed, j, 6))).filter((h) => SHARED_JOBS.includes(h.job)).map((h) => h.task);
        team.push(await score(others, teamSkill));
        personal.push(await score(others, personalSkills[i]));
        base.push(await score(others, AGENTS_MD));
      }
      const leaksOf = (skill: string) => MEMBERS.filter((m) => HABIT_MARKERS[m.habit]?.test(skill.replace(AGENTS_MD, ''))).map((m) => m.habit);
      const habitLeaks = leaksOf(teamSkill);
      const habitsInPersonal = MEMBERS.filter((m, i) => HABIT_MARKERS[m.habit]?.test(personalSkills[i])).length;
      const cpu = process.cpuUsage(cpu0);
      return { seed, team, personal, base, teamStatus: night.status === 'staged' ? 'staged' : `${night.status}: ${night.skills.map((s) => `${s.file} ${s.status}${s.reason ? ` (${s.reason})` : ''}`).join('; ')}`, personalStaged, habitLeaks, controlLeaks: leaksOf(controlSkill), habitsInPersonal, cpuMs: (cpu.user + cpu.system) / 1000 };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export interface TeamLearnReport {
  seeds: number[];
  outcomes: TeamSeedOutcome[];
  team: number;
  personal: number;
  base: number;
  /** team − personal (mean over members), paired by seed */
  overall: PairedCI;
  /** team − member i's personal, paired by seed */
  perMember: PairedCI[];
  habitLeakSeeds: number;
  controlLeakSeeds: number;
}

export async function runTeamLearn(seeds: number[], perJob: number, onSeed?: (seed: number) => void): Promise<TeamLearnReport> {
  const outcomes: TeamSeedOutcome[] = [];
  for (const seed of seeds) {
    onSeed?.(seed);
    outcomes.push(await runTeamSeed(seed, perJob));
  }
  const col = (f: (o: TeamSeedOutcome) => number) => outcomes.map(f);
  return {
    seeds,
    outcomes,
    team: mean(col((o) => mean(o.team))),
    personal: mean(col((o) => mean(o.personal))),
    base: mean(col((o) => mean(o.base))),
    overall: pairedBootstrap(col((o) => mean(o.team)), col((o) => mean(o.personal))),
    perMember: MEMBERS.map((_, i) => pairedBootstrap(col((o) => o.team[i]), col((o) => o.personal[i]))),
    habitLeakSeeds: outcomes.filter((o) => o.habitLeaks.length > 0).length,
    controlLeakSeeds: outcomes.filter((o) => o.controlLeaks.length > 0).length,
  };
}

export function printTeamLearn(r: TeamLearnReport, perJob: number, out: NodeJS.WritableStream = process.stderr): void {
  out.write(
    `\nTEAM LEARNING: 3 members share 2 jobs (each notices half of a job's conventions) and each has a habit of their own; ${perJob} sessions per member and job; seeds ${r.seeds[0]}..${r.seeds.at(-1)}\n` +
      `  scored on the OTHER members' hidden instances of the shared jobs (strict verifiers, soft score; the sim target reads only its prompt)\n`,
  );
  out.write(`  committed AGENTS.md, untrained: ${f3(r.base)}\n  personal skill (own sessions):  ${f3(r.personal)}\n  team skill (pooled, team night): ${f3(r.team)}\n`);
  out.write(`  team − personal (mean over members): ${ci(r.overall)}   (target ≥ +${DONE_MARGIN.toFixed(2)}, CI above 0)\n`);
  r.perMember.forEach((c, i) => out.write(`    team − ${MEMBERS[i].id}'s personal: ${ci(c)}\n`));
  out.write(`  habit leaks into the team skill: ${r.habitLeakSeeds} of ${r.outcomes.length} seeds (target 0); members whose personal skill learned their habit: ${r.outcomes.reduce((n, o) => n + o.habitsInPersonal, 0)} of ${r.outcomes.length * MEMBERS.length}\n`);
  out.write(`  control, the same night admitting one member's jobs (minMembersPerJob 1): habits in the team skill in ${r.controlLeakSeeds} of ${r.outcomes.length} seeds (${r.outcomes.reduce((n, o) => n + o.controlLeaks.length, 0)} habits in all): what the one-member filter keeps out\n`);
  out.write(`  team nights staged: ${r.outcomes.filter((o) => o.teamStatus === 'staged').length} of ${r.outcomes.length}; personal skills staged: ${r.outcomes.reduce((n, o) => n + o.personalStaged, 0)} of ${r.outcomes.length * MEMBERS.length}; CPU ${(mean(r.outcomes.map((o) => o.cpuMs)) / 1000).toFixed(1)} s per seed (load ${os.loadavg()[0]!.toFixed(1)})\n`);
  out.write(`  per seed (team | personal): ${r.outcomes.map((o) => `${f3(mean(o.team))}|${f3(mean(o.personal))}`).join(' ')}\n`);
  const odd = r.outcomes.filter((o) => o.teamStatus !== 'staged' || o.habitLeaks.length);
  for (const o of odd) out.write(`  seed ${o.seed}: team night ${o.teamStatus}${o.habitLeaks.length ? `; habit words in the team skill: ${o.habitLeaks.join(', ')}` : ''}\n`);
}

export async function run(args: string[]): Promise<BenchResult[]> {
  const nSeeds = flag(args, '--seeds', 10);
  const perJob = flag(args, '--per-job', 8);
  const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
  const tty = process.stderr.isTTY;
  const t0 = Date.now();
  const r = await runTeamLearn(seeds, perJob, (seed) => {
    if (tty) process.stderr.write(`\r  team learning, seed ${seed}…`.padEnd(60));
  });
  if (tty) process.stderr.write('\r'.padEnd(62) + '\r');
  printTeamLearn(r, perJob);
  const worst = r.perMember.reduce((a, b) => (b.diff < a.diff ? b : a));
  return [
    { name: 'team-learn: others\' hidden, committed skill', value: r.base, unit: 'score' },
    { name: 'team-learn: others\' hidden, personal skill', value: r.personal, unit: 'score' },
    { name: 'team-learn: others\' hidden, team skill', value: r.team, unit: 'score' },
    { name: 'team-learn: team − personal (mean)', value: r.overall.diff, unit: 'score', target: `≥ +${DONE_MARGIN.toFixed(2)}`, pass: r.overall.diff >= DONE_MARGIN },
    { name: 'team-learn: team − personal, CI low', value: r.overall.lo, unit: 'score', target: '> 0', pass: r.overall.lo > 0 },
    { name: 'team-learn: team − worst member\'s personal, CI low', value: worst.lo, unit: 'score', target: '> 0', pass: worst.lo > 0 },
    { name: 'team-learn: seeds with a habit in the team skill', value: r.habitLeakSeeds, unit: 'seeds', target: '0', pass: r.habitLeakSeeds === 0 },
    { name: 'team-learn: control (jobs of one member admitted): seeds with a habit', value: r.controlLeakSeeds, unit: 'seeds' },
    { name: 'team-learn: wall time', value: (Date.now() - t0) / 1000, unit: 's' },
  ];
}

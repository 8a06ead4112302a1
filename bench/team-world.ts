/**
 * The team learning bench's world (issue 42): three members of one repository who share two jobs
 * (commit messages and PR descriptions, the e2e world's jobs and verifiers) and each have one habit
 * of their own (a job only they do: changelog entries, release notes, unit tests).
 *
 * The team's conventions for a shared job are every preference of that job (e2e-world.ts); each
 * member notices and corrects only some of them (MEMBERS[i].notices), as people on a team do, so
 * each member's own sessions teach half of the conventions and the three together teach all of
 * them. That is the claim under test: a job learned from three members beats one learned from one.
 *
 * A member's session is one ask (paraphrase templates, the member's own objects) followed by one or
 * two corrections of what they notice. Tasks are made as the miner makes them (mine/family.ts):
 * one task per session, and a family's judge synthesized by the miner's own `synthesizeJudge` from
 * the family's asks and corrections, shared by the family's tasks with its corrections. Hidden
 * instances (other wording, other objects) are scored with strict verifiers of every convention of
 * the job, with the instance's own values; the sim target reads only its prompt (the skill text,
 * the ask and its context), never a check.
 */
import crypto from 'node:crypto';
import type { Check, Task } from '../src/core/records.js';
import { stableId } from '../src/core/ids.js';
import { mulberry32 } from '../src/core/random.js';
import { synthesizeJudge } from '../src/mine/judge-synth.js';
import type { NightLease, PooledTask, RepoKey, TeamNightSummary, TeamServer } from '../src/team/contract.js';
import { E2E_JOBS, type E2eJob, type JobKey, type Subject } from './e2e-world.js';

export const SHARED_JOBS: JobKey[] = ['commit', 'pr'];

export interface TeamMember {
  id: string;
  /** the preferences of each shared job this member corrects (the rest they never mention) */
  notices: Partial<Record<JobKey, string[]>>;
  /** the member's own job: nobody else on the team does it */
  habit: JobKey;
}

/** Each member notices half of a shared job's conventions; together they notice all of them. */
export const MEMBERS: TeamMember[] = [
  { id: 'member-1', notices: { commit: ['commit-prefix', 'commit-brief'], pr: ['pr-testing'] }, habit: 'changelog' },
  { id: 'member-2', notices: { commit: ['commit-no-wip', 'commit-signoff'], pr: ['pr-brief'] }, habit: 'release' },
  { id: 'member-3', notices: { commit: ['commit-prefix', 'commit-signoff'], pr: ['pr-risk', 'pr-testing'] }, habit: 'tests' },
];

/** Words only a habit's rules use: one in the team skill means a member's habit reached it. */
export const HABIT_MARKERS: Partial<Record<JobKey, RegExp>> = {
  changelog: /unreleased|changelog|emoji/i,
  release: /highlights|release notes|# release v/i,
  tests: /it\.each|describe\(|jest|vitest/i,
};

const job = (k: JobKey): E2eJob => E2E_JOBS.find((j) => j.key === k)!;

type Rand = () => number;
const pick = <T>(r: Rand, xs: T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const CHANGES = ['fix the rounding of half cents', 'add a --json flag to the export command', 'handle empty ledgers in the importer', 'speed up the balance query', 'drop Node 18 support', 'support ISO week numbers in reports', 'fix the memory leak in the scheduler', 'rename the sync command to pull'];
const HIDDEN_CHANGES = ['add retry with backoff to the HTTP client', 'fix the crash when the config file is empty', 'remove the deprecated --legacy flag', 'change the default log level to warn', 'handle Windows paths in the watcher', 'add OpenTelemetry tracing hooks'];
const FUNCTIONS: Array<[string, string]> = [['parseAmount', 'amount'], ['formatCurrency', 'currency'], ['splitLedger', 'ledger'], ['roundHalfEven', 'rounding'], ['parseDuration', 'duration'], ['slugify', 'slug'], ['mergeConfig', 'config'], ['formatBytes', 'bytes']];
const AUTHORS: Array<[string, string]> = [['Dana Kim', 'dana@kim.dev'], ['Ravi Patel', 'ravi@patel.io'], ['Mia Lopez', 'mia@lopez.dev']];

function subject(r: Rand, member: number, hidden: boolean): Subject {
  const [fn, file] = pick(r, FUNCTIONS);
  return {
    change: pick(r, hidden ? HIDDEN_CHANGES : CHANGES),
    pr: hidden ? int(r, 500, 999) : int(r, 100, 499),
    version: `${int(r, 1, 4)}.${int(r, 0, 12)}.${int(r, 0, 9)}`,
    pkg: pick(r, ['ledgerline', 'tallybook', 'fastcache']),
    fn,
    file,
    // a member signs their own commits
    author: AUTHORS[member][0],
    email: AUTHORS[member][1],
  };
}

function fill(template: string, s: Subject): string {
  return template.replace(/\{change\}/g, s.change).replace(/\{pr\}/g, String(s.pr)).replace(/\{ver\}/g, s.version).replace(/\{pkg\}/g, s.pkg).replace(/\{fn\}/g, s.fn).replace(/\{file\}/g, s.file);
}

interface Session {
  member: number;
  job: JobKey;
  key: string;
  ask: string;
  context: string;
  corrections: string[];
}

/** A member's sessions: `perJob` of each shared job and of their habit, one or two corrections of what they notice each. */
function memberSessions(seed: number, member: number, perJob: number): Session[] {
  const m = MEMBERS[member];
  const r = mulberry32(seed * 7_919 + member * 104_729 + 11);
  const out: Session[] = [];
  for (const key of [...SHARED_JOBS, m.habit]) {
    const j = job(key);
    const noticed = key === m.habit ? j.prefs.map((p) => p.id) : (m.notices[key] ?? []);
    for (let k = 0; k < perJob; k++) {
      const s = subject(r, member, false);
      const prefs = [...noticed].sort(() => r() - 0.5).slice(0, noticed.length > 1 && r() < 0.5 ? 2 : 1);
      const corrections = prefs.map((id) => pick(r, j.prefs.find((p) => p.id === id)!.said));
      out.push({ member, job: key, key: `${m.id}-s${key}-${k}`, ask: fill(pick(r, j.asks), s), context: j.hidden(s).context, corrections });
    }
  }
  return out;
}

const hash = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/**
 * A member's tasks as their miner makes them: one task per session, the family's judge synthesized
 * from every ask and correction of the family, its corrections shared; each task tagged for the pool.
 */
export function memberTasks(seed: number, member: number, perJob: number, repoKey: RepoKey): PooledTask[] {
  const sessions = memberSessions(seed, member, perJob);
  const out: PooledTask[] = [];
  for (const key of new Set(sessions.map((s) => s.job))) {
    const fam = sessions.filter((s) => s.job === key);
    const corrections = [...new Set(fam.flatMap((s) => s.corrections))];
    const family = stableId('family', MEMBERS[member].id, key);
    for (const s of fam) {
      const { judge } = synthesizeJudge({ intent: s.ask, prompts: fam.map((x) => x.ask), corrections });
      const task: Task = {
        id: stableId('task', s.key),
        project: null,
        intent: s.ask,
        context: s.context,
        judge,
        split: 'train',
        origin: 'real',
        skillHint: null,
        family,
        occurrences: 1,
        firstSeen: null,
        lastSeen: null,
        status: 'active',
        reviewed: false,
        corrections,
        agents: ['claude-code'],
      };
      out.push({ repoKey, memberId: MEMBERS[member].id, sessionKey: hash(s.key).slice(0, 16), contentHash: hash(JSON.stringify(task)), task });
    }
  }
  return out;
}

export interface TeamHidden {
  member: number;
  job: JobKey;
  task: Task;
}

/** A member's hidden instances of every job they do: other wording and objects, strict verifiers of every convention. */
export function memberHidden(seed: number, member: number, perJob: number): TeamHidden[] {
  const r = mulberry32(seed * 31_337 + member * 7 + 5);
  const out: TeamHidden[] = [];
  for (const key of [...SHARED_JOBS, MEMBERS[member].habit]) {
    const j = job(key);
    for (let k = 0; k < perJob; k++) {
      const s = subject(r, member, true);
      const { intent, context } = j.hidden(s);
      const checks: Check[] = j.prefs.map((p) => ({ id: p.id, ...p.strict(s), weight: 1, sealed: true, description: p.rule }) as Check);
      out.push({ member, job: key, task: { id: stableId('team-hidden', String(seed), String(member), key, String(k)), project: null, intent, context, judge: { checks, reference: { kind: 'rule' } }, split: 'test', origin: 'dream', skillHint: null, occurrences: 1, firstSeen: null, lastSeen: null, status: 'active', reviewed: false, corrections: [], agents: [] } });
    }
  }
  return out;
}

/**
 * The bench's stand-in for the team's shared pool: the TeamServer contract in memory (one live
 * lease per repository, fencing by token). The product's server is PostgreSQL (src/store/team/,
 * measured by `npm run bench -- team`); this bench measures learning, not the server.
 */
export class BenchTeamPool implements TeamServer {
  private readonly tasks: PooledTask[] = [];
  private readonly leases = new Map<RepoKey, NightLease>();
  private readonly checkpoints = new Map<RepoKey, unknown>();
  readonly nights: TeamNightSummary[] = [];

  push(tasks: PooledTask[]): void {
    const have = new Set(this.tasks.map((t) => t.contentHash));
    for (const t of tasks) if (!have.has(t.contentHash)) this.tasks.push(t);
  }
  async pooledTasks(repoKey: RepoKey): Promise<PooledTask[]> {
    return this.tasks.filter((t) => t.repoKey === repoKey).map((t) => structuredClone(t));
  }
  async acquireNight(repoKey: RepoKey, holder: string, ttlMs: number): Promise<NightLease | null> {
    const cur = this.leases.get(repoKey);
    if (cur && cur.expiresAt > Date.now()) return null;
    const lease = { repoKey, holder, token: crypto.randomUUID(), expiresAt: Date.now() + ttlMs };
    this.leases.set(repoKey, lease);
    return { ...lease };
  }
  async renewNight(lease: NightLease, ttlMs: number): Promise<boolean> {
    const cur = this.leases.get(lease.repoKey);
    if (!cur || cur.token !== lease.token) return false;
    cur.expiresAt = Date.now() + ttlMs;
    return true;
  }
  async releaseNight(lease: NightLease): Promise<void> {
    if (this.leases.get(lease.repoKey)?.token === lease.token) this.leases.delete(lease.repoKey);
  }
  async saveCheckpoint(lease: NightLease, state: unknown): Promise<void> {
    if (this.leases.get(lease.repoKey)?.token !== lease.token) throw new Error('stale lease');
    this.checkpoints.set(lease.repoKey, structuredClone(state));
  }
  async loadCheckpoint(repoKey: RepoKey): Promise<unknown | null> {
    return this.checkpoints.get(repoKey) ?? null;
  }
  async recordNight(_lease: NightLease, summary: TeamNightSummary): Promise<void> {
    this.nights.push(summary);
  }
}

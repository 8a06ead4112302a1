/**
 * A labeled synthetic corpus for mining: sessions of the three agents across several projects,
 * with known recurring task families written as paraphrases (with varying files, functions, PR
 * numbers), one-off noise asks, corrections, praise and interruptions. Rows go straight into the
 * `sessions` and `events` tables, as the harvester would write them. Deterministic per seed.
 * Used by `bench/mine.ts` and by the mining tests (a smaller version).
 */
import type { Db } from '../src/store/db.js';
import { mulberry32 } from '../src/core/random.js';
import { agentWork } from './mine-agent-work.js';

export interface Family {
  name: string;
  asks: string[];
  corrections: string[];
}

/** Recurring families. Slots: {fn} {file} {pr} {n} {topic} {pkg} {table} {col}. */
export const FAMILIES: Family[] = [
  {
    name: 'changelog',
    asks: [
      'Write a changelog entry for the {topic} fix (#{pr}).',
      'Add an entry to CHANGELOG.md for the {topic} change',
      'update the changelog with the {topic} fix we just merged',
      'can you add a changelog line for PR #{pr}?',
      'changelog entry for {topic} please',
      'Document the {topic} fix in the CHANGELOG',
      'we need a CHANGELOG.md entry for the {topic} change in #{pr}',
      'hey, add the {topic} work to the changelog',
    ],
    corrections: ['no, Keep a Changelog format', 'link the PR', 'put it under Unreleased, Keep a Changelog style', 'wrong format - use Keep a Changelog'],
  },
  {
    name: 'unit-tests',
    asks: [
      'Add a unit test for {fn} in {file} - cover the edge cases.',
      'write vitest tests for {fn}',
      'cover {fn} with unit tests',
      'add tests for {fn}, including the empty input',
      'write unit tests for {file}',
      'I need test coverage for {fn} in {file}',
      'please add a vitest spec for {fn}',
    ],
    corrections: ['use it.each for the cases', 'use vitest, not jest', 'no, use `vi.fn()` instead of `jest.fn()`'],
  },
  {
    name: 'commit-message',
    asks: [
      'write a commit message for these changes',
      'draft the commit message for this diff',
      'give me a commit msg for the staged changes',
      'commit message please, for the {topic} work',
      'suggest a git commit message for what we changed',
      'write the commit message for the {topic} refactor',
    ],
    corrections: ['use conventional commits', 'too long, keep it shorter', 'no, conventional commit format (feat:/fix:)'],
  },
  {
    name: 'pr-description',
    asks: [
      'write the PR description for this branch',
      'draft a pull request description for the {topic} change',
      'summarize this branch as a PR description',
      'fill in the pull request description for {topic}',
      'PR description for the {topic} branch please',
    ],
    corrections: ['add a Testing section', 'link the issue number too', 'use bullet points'],
  },
  {
    name: 'lint',
    asks: [
      'fix the lint errors',
      'eslint is failing, fix it',
      'clean up the lint warnings in {file}',
      'make eslint pass on {file}',
      'run the linter and fix what it reports',
      'there are eslint errors in {file}, fix them',
    ],
    corrections: ["still failing", "don't disable the rule, fix the code", 'use pnpm, not npm'],
  },
  {
    name: 'dependency-upgrade',
    asks: [
      'bump {pkg} to the latest version',
      'upgrade {pkg} and fix the breakages',
      'upgrade the {pkg} dependency to {n}',
      'can you upgrade {pkg} to v{n}?',
      '{pkg} is outdated, upgrade it',
      'upgrade our {pkg} version',
    ],
    corrections: ['use pnpm', 'also update the lockfile'],
  },
  {
    name: 'jsdoc',
    asks: [
      'add JSDoc comments to {file}',
      'document the exported functions in {file} with JSDoc',
      'write JSDoc for {fn}',
      'add jsdoc to the public API of {file}',
      '{fn} needs JSDoc comments',
    ],
    corrections: ['keep it shorter', 'document the params too'],
  },
  {
    name: 'db-migration',
    asks: [
      'write a migration to add a {col} column to {table}',
      'create a db migration adding {col} to the {table} table',
      'add a {col} field to {table} with a migration',
      'new migration: add {table}.{col}',
      'we need a schema migration for the {col} column on {table}',
    ],
    corrections: ['make it reversible', 'add a down migration too'],
  },
  {
    name: 'explain-error',
    asks: [
      'explain this stack trace:\n```\nTypeError: Cannot read properties of undefined (reading \'{col}\')\n    at {fn} ({file}:{n}:7)\n```',
      'what does this error mean? stack trace:\n```\nError: ECONNREFUSED 127.0.0.1:{n}\n    at {fn} ({file}:{n}:3)\n```',
      'why am I getting this exception? stack trace below\n```\nRangeError: Maximum call stack size exceeded\n    at {fn} ({file}:{n}:11)\n```',
      'help me understand this stack trace\n```\nSyntaxError: Unexpected token < in JSON at position {n}\n```',
    ],
    corrections: ['that is not the cause, look at the caller'],
  },
  {
    name: 'readme',
    asks: [
      'update the README with the new {topic} option',
      'document {topic} in the README',
      'add a README section about {topic}',
      'the README needs to mention the {topic} setting',
      'explain the {topic} option in README.md',
    ],
    corrections: ['add a Usage section', 'shorter please'],
  },
  {
    name: 'type-errors',
    asks: [
      'fix the TypeScript errors in {file}',
      'tsc is complaining about {file}, fix the type errors',
      'resolve the TypeScript errors',
      'make the typecheck pass',
      'fix the ts compile errors in {file}',
    ],
    corrections: ['no any please', "don't use `as any`"],
  },
  {
    name: 'release-notes',
    asks: [
      'write release notes for v{n}',
      'draft the release notes for the {n} release',
      'prepare release notes for version {n}',
      'release notes for {n} please, user-facing',
    ],
    corrections: ['use bullet points', 'group them by feature'],
  },
];

const TOPICS = ['rounding', 'timezone', 'pagination', 'caching', 'retry', 'auth token', 'date parsing', 'CSV export', 'rate limiting', 'logging', 'webhook', 'search', 'i18n', 'dark mode', 'upload'];
const PKGS = ['react', 'zod', 'vite', 'eslint', 'typescript', 'prisma', 'express', 'vitest', 'axios', 'lodash', 'next', 'pino'];
const TABLES = ['users', 'orders', 'invoices', 'accounts', 'events', 'sessions', 'payments'];
const COLS = ['created_at', 'deleted_at', 'status', 'currency', 'email_verified', 'tenant_id', 'amount'];
const FN_A = ['parse', 'format', 'compute', 'load', 'render', 'validate', 'merge', 'resolve', 'build', 'normalize'];
const FN_B = ['Amount', 'Date', 'Invoice', 'Config', 'User', 'Range', 'Token', 'Query', 'Payload', 'Header'];
const DIRS = ['utils', 'lib', 'core', 'api', 'services', 'models'];
export const PROJECTS = ['ledgerline', 'atlas-web', 'payments-api', 'docsite', 'cli-tools', 'mobile-app', 'infra', 'analytics', 'auth-service', 'design-system'].map(
  (p) => `/home/dana/src/${p}`,
);

// one-off noise: diverse technical vocabulary, so two noise asks rarely share their distinctive words
const N_VERBS = ['explain', 'investigate', 'sketch', 'compare', 'benchmark', 'prototype', 'diagnose', 'estimate', 'brainstorm', 'outline', 'critique', 'translate', 'visualize', 'audit', 'simulate', 'reorganize'];
const N_NOUNS = (
  'websocket reconnection heuristic kubernetes ingress annotation graphql subscription batching terraform drift detection redis eviction ' +
  'policy postgres vacuum tuning oauth refresh rotation s3 multipart lifecycle docker layer caching nginx upstream keepalive kafka ' +
  'consumer rebalance grpc deadline propagation webpack chunk splitting service worker precache tailwind purge config jwt audience ' +
  'validation cron overlap locking elasticsearch analyzer synonyms prometheus histogram buckets grafana alert routing openapi ' +
  'codegen drift sqlite wal checkpoint bloom filter sizing lru cache stampede circuit breaker thresholds feature flag rollout ' +
  'canary analysis blue green cutover dns ttl propagation cors preflight caching csp nonce rotation utf8 normalization collation ' +
  'mutex contention goroutine leak actor mailbox backpressure saga compensation outbox polling idempotency keys sharding rebalancing ' +
  'vector clock conflict crdt merge debounce throttling virtualization scroll anchoring hydration mismatch suspense waterfall ' +
  'monorepo workspace hoisting semver range pinning license compliance sbom generation sigstore provenance attestation'
).split(' ');
const N_FRAMES = [
  '{v} {a} {b} with {c} {d}',
  '{a} {b} vs {c} {d}? {v} it for me',
  'can you {v} {a} {b} for {c} {d}',
  '{v} the {a} {b} around {c} {d}',
  'how would you {v} {a} {b} given {c} {d}?',
  'ok so {v} {a} {b} and then {c} {d}',
];

export interface CorpusOptions {
  sessions: number;
  seed?: number;
  startTs?: number;
  /** prefix for session ids, so a second batch can be added to the same store */
  idPrefix?: string;
  /** share of asks that belong to a recurring family */
  familyShare?: number;
}

export interface CorpusSession {
  id: string;
  agent: string;
  project: string;
  kind: 'interactive' | 'headless' | 'subagent' | 'self';
  startedAt: number;
  events: Array<{ seq: number; ts: number; role: string; kind: string; toolName?: string; isError?: boolean; text: string; meta: Record<string, unknown> }>;
}

export interface Corpus {
  sessions: CorpusSession[];
  /** `${sessionId}#${seq}` of every ask → its true label (family name, or a unique noise label) */
  labels: Map<string, string>;
  /** asks in subagent/self sessions (must never be mined) */
  excluded: Set<string>;
}

const rng = mulberry32;

export function generateCorpus(opts: CorpusOptions): Corpus {
  const rand = rng(opts.seed ?? 42);
  // what the agent does in each turn (bench/mine-agent-work.ts) draws from its own stream, so the
  // asks and reactions of a seed stay those the corpus had before its tool calls were realistic
  const workRand = rng(((opts.seed ?? 42) * 7919 + 13) >>> 0);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  // people repeat their own phrasing: the k-th way of asking is used about 1/k as often (Zipf)
  const pickZipf = <T>(xs: readonly T[]): T => {
    const total = xs.reduce((acc, _x, k) => acc + 1 / (k + 1), 0);
    let r = rand() * total;
    for (let k = 0; k < xs.length; k++) {
      r -= 1 / (k + 1);
      if (r <= 0) return xs[k];
    }
    return xs[xs.length - 1];
  };
  const fill = (s: string) =>
    s
      .replace(/\{fn\}/g, () => pick(FN_A) + pick(FN_B))
      .replace(/\{file\}/g, () => `src/${pick(DIRS)}/${pick(FN_A)}${pick(FN_B)}.ts`)
      .replace(/\{pr\}/g, () => String(100 + Math.floor(rand() * 900)))
      .replace(/\{n\}/g, () => `${1 + Math.floor(rand() * 9)}.${Math.floor(rand() * 20)}`)
      .replace(/\{topic\}/g, () => pick(TOPICS))
      .replace(/\{pkg\}/g, () => pick(PKGS))
      .replace(/\{table\}/g, () => pick(TABLES))
      .replace(/\{col\}/g, () => pick(COLS));
  const noise = () => {
    const words = N_NOUNS.slice();
    const take = () => words.splice(Math.floor(rand() * words.length), 1)[0];
    return pick(N_FRAMES)
      .replace('{v}', pick(N_VERBS))
      .replace('{a}', take())
      .replace('{b}', jargon())
      .replace('{c}', take())
      .replace('{d}', jargon());
  };
  // one-offs name project-specific things (services, modules, people's code names)
  const SYL = ['ka', 'zo', 'mi', 'ra', 'tu', 'ven', 'lor', 'qui', 'dex', 'nal', 'bo', 'sep', 'tra', 'ghu', 'fin', 'wel'];
  const jargon = () => Array.from({ length: 3 + Math.floor(rand() * 2) }, () => pick(SYL)).join('');
  const familyShare = opts.familyShare ?? 0.6;
  const agents = ['claude-code', 'codex', 'copilot'];
  const prefix = opts.idPrefix ?? 's';
  let ts = opts.startTs ?? Date.UTC(2026, 9, 1);
  const sessions: CorpusSession[] = [];
  const labels = new Map<string, string>();
  const excluded = new Set<string>();
  let noiseId = 0;
  for (let i = 0; i < opts.sessions; i++) {
    const agent = pick(agents);
    const r = rand();
    const kind: CorpusSession['kind'] = r < 0.88 ? 'interactive' : r < 0.94 ? 'headless' : r < 0.97 ? 'subagent' : 'self';
    const id = `${agent}:${prefix}${i.toString(36).padStart(5, '0')}`;
    const s: CorpusSession = { id, agent, project: pick(PROJECTS), kind, startedAt: ts, events: [] };
    let seq = 0;
    const push = (e: Omit<CorpusSession['events'][number], 'seq' | 'ts' | 'meta'> & { meta?: Record<string, unknown> }) => {
      ts += 1000 + Math.floor(rand() * 20_000);
      s.events.push({ seq: seq++, ts, meta: {}, ...e });
    };
    const asks = 1 + Math.floor(rand() * 3);
    for (let k = 0; k < asks; k++) {
      const fam = rand() < familyShare ? pick(FAMILIES) : null;
      const text = fam ? fill(pickZipf(fam.asks)) : noise();
      const label = fam ? fam.name : `noise:${noiseId++}`;
      const key = `${id}#${seq}`;
      if (kind === 'subagent' || kind === 'self') excluded.add(key);
      else labels.set(key, label);
      push({ role: 'user', kind: 'prompt', text });
      // 1 to 3 tool calls, as before; what each one is comes from the job (a one-off only reads)
      const work = agentWork(agent, s.project, fam ? fam.name : null, workRand).filter((e) => e.kind === 'tool_call');
      const calls = 1 + Math.floor(rand() * 3);
      for (let t = 0; t < calls; t++) {
        const call = work[t] ?? { toolName: agent === 'codex' ? 'shell' : agent === 'copilot' ? 'view' : 'Read', text: agent === 'codex' ? 'bash -lc cat README.md' : `${s.project}/README.md` };
        push({ role: 'assistant', kind: 'tool_call', toolName: call.toolName, text: call.text });
        const err = rand() < 0.08;
        push({ role: 'tool', kind: 'tool_result', toolName: call.toolName, isError: err, text: err ? 'Error: Exit code 1' : 'ok' });
      }
      push({ role: 'assistant', kind: 'text', text: `Done: ${text.slice(0, 60)} (details follow).`, meta: { final: true } });
      const react = rand();
      if (fam && react < 0.3) push({ role: 'user', kind: 'prompt', text: pick(fam.corrections) });
      else if (react < 0.42) push({ role: 'user', kind: 'prompt', text: pick(['thanks!', 'perfect, thank you', 'lgtm', 'great']) });
      else if (react < 0.45) push({ role: 'user', kind: 'prompt', text: '[Request interrupted by user]' });
    }
    ts += 60_000;
    sessions.push(s);
  }
  return { sessions, labels, excluded };
}

/** Inserts the corpus into the store as the harvester would (sessions + events). */
export function insertCorpus(db: Db, corpus: Corpus, now = Date.now()): void {
  const ses = db.prepare(
    `INSERT INTO sessions(id, agent, vendor_id, project, cwd, started_at, ended_at, kind, file, prompt_count, tool_error_count, updated_at, sid)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(sid), 0) + 1 FROM sessions)) RETURNING sid`,
  );
  const ev = db.prepare(`INSERT INTO events(sid, seq, ts, role, kind, tool_name, is_error, text, cwd, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (const s of corpus.sessions) {
      const prompts = s.events.filter((e) => e.kind === 'prompt').length;
      const errors = s.events.filter((e) => e.isError).length;
      const end = s.events[s.events.length - 1]?.ts ?? s.startedAt;
      const sid = ses.pluck().get(s.id, s.agent, s.id.split(':')[1], s.project, s.project, s.startedAt, end, s.kind, `/transcripts/${s.id}.jsonl`, prompts, errors, now) as number;
      for (const e of s.events) {
        ev.run(sid, e.seq, e.ts, e.role, e.kind, e.toolName ?? null, e.isError ? 1 : 0, e.text, s.project, JSON.stringify(e.meta));
      }
    }
  })();
}

export interface PairwiseScores {
  precision: number;
  recall: number;
  items: number;
  /** labeled asks that were not mined as asks (e.g. taken for a reaction) */
  missing: number;
  /** asks mined from excluded (subagent/self) sessions: must be 0 */
  leakedExcluded: number;
}

const pairs = (n: number) => (n * (n - 1)) / 2;

/** Pairwise precision/recall of the stored clustering against the corpus labels. */
export function pairwiseScores(db: Db, corpus: Corpus): PairwiseScores {
  const rows = db.prepare('SELECT session_id, event_seq, cluster_id FROM cluster_members').raw().all() as Array<[string, number, string]>;
  const cell = new Map<string, number>();
  const byCluster = new Map<string, number>();
  const byLabel = new Map<string, number>();
  let items = 0;
  let leakedExcluded = 0;
  const seen = new Set<string>();
  for (const [sid, seq, cid] of rows) {
    const key = `${sid}#${seq}`;
    if (corpus.excluded.has(key)) leakedExcluded++;
    const label = corpus.labels.get(key) ?? `unlabeled:${key}`;
    seen.add(key);
    items++;
    cell.set(`${cid}\u0000${label}`, (cell.get(`${cid}\u0000${label}`) ?? 0) + 1);
    byCluster.set(cid, (byCluster.get(cid) ?? 0) + 1);
    byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
  }
  let tp = 0;
  for (const n of cell.values()) tp += pairs(n);
  let predicted = 0;
  for (const n of byCluster.values()) predicted += pairs(n);
  let truth = 0;
  for (const n of byLabel.values()) truth += pairs(n);
  let missing = 0;
  for (const k of corpus.labels.keys()) if (!seen.has(k)) missing++;
  return { precision: predicted ? tp / predicted : 1, recall: truth ? tp / truth : 1, items, missing, leakedExcluded };
}

export interface TurnSpec {
  user: string;
  tools?: string[];
  toolError?: boolean;
  reply?: string;
}

export interface SessionSpec {
  id: string;
  agent?: string;
  project?: string | null;
  kind?: CorpusSession['kind'];
  startedAt?: number;
  /** epoch ms written to sessions.updated_at (a later value marks the session as grown) */
  updatedAt?: number;
  turns: TurnSpec[];
}

/** Inserts one hand-written session (tests): each turn is a user prompt, tool calls and a final reply. */
export function addSession(db: Db, spec: SessionSpec): void {
  let ts = spec.startedAt ?? Date.UTC(2026, 9, 1);
  const rows: CorpusSession['events'] = [];
  let seq = (db.prepare('SELECT MAX(seq) FROM events WHERE sid = (SELECT sid FROM sessions WHERE id = ?)').pluck().get(spec.id) as number | null) ?? -1;
  const push = (e: Omit<CorpusSession['events'][number], 'seq' | 'ts' | 'meta'> & { meta?: Record<string, unknown> }) => {
    ts += 1000;
    rows.push({ seq: ++seq, ts, meta: {}, ...e });
  };
  for (const t of spec.turns) {
    push({ role: 'user', kind: 'prompt', text: t.user });
    for (const tool of t.tools ?? []) {
      push({ role: 'assistant', kind: 'tool_call', toolName: tool, text: `${tool} call` });
      push({ role: 'tool', kind: 'tool_result', toolName: tool, isError: !!t.toolError, text: t.toolError ? 'Error: exit 1' : 'ok' });
    }
    push({ role: 'assistant', kind: 'text', text: t.reply ?? 'Done.', meta: { final: true } });
  }
  const agent = spec.agent ?? 'claude-code';
  const project = spec.project === undefined ? '/home/dana/src/ledgerline' : spec.project;
  const sid = db
    .prepare(
      `INSERT INTO sessions(id, agent, vendor_id, project, cwd, started_at, ended_at, kind, file, prompt_count, tool_error_count, updated_at, sid)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, (SELECT coalesce(max(sid), 0) + 1 FROM sessions))
     ON CONFLICT(id) DO UPDATE SET ended_at = excluded.ended_at, updated_at = excluded.updated_at RETURNING sid`,
    )
    .pluck()
    .get(spec.id, agent, spec.id, project, project, spec.startedAt ?? Date.UTC(2026, 9, 1), ts, spec.kind ?? 'interactive', `/t/${spec.id}.jsonl`, spec.updatedAt ?? ts) as number;
  const ev = db.prepare(`INSERT INTO events(sid, seq, ts, role, kind, tool_name, is_error, text, cwd, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (const e of rows) ev.run(sid, e.seq, e.ts, e.role, e.kind, e.toolName ?? null, e.isError ? 1 : 0, e.text, project, JSON.stringify(e.meta));
}

/**
 * `npm run bench -- tokens`: tokens per night with the `claude` CLI as the agent (issue 40, item 3),
 * where they go per role and per CLI overhead, and hidden-test points per 100k tokens.
 *
 * Two measurements, put together:
 *  1. Calls of the REAL `claude` binary (the npm devDependency) against a scripted Anthropic server
 *     (tests/helpers/fake-anthropic.ts; it counts a request's tokens as its bytes / 4) that plays a
 *     skill-following agent: a file-task replay in a seeded workspace (load the skill, read
 *     CHANGELOG.md, edit it, answer: four requests), a text-task replay in an unseeded workspace
 *     (load the skill, answer: two requests), and a text call of the optimizer or judge (our
 *     system prompt, no tools: one request). Every request carries the CLI's system prompt, tool
 *     schemas and skill listing. A call's CLI overhead is what the CLI reported minus what we sent,
 *     as the ledger measures it (llm/ledger.ts measuredCallOverhead). Measured with this build's
 *     invocation (adapters/claude-code/exec.ts), with turn 2's (bundled skills listed, MCP allowed,
 *     every tool), with wave 3's (Read and Edit offered in an unseeded workspace, the built-in
 *     plugin's skill listed), and, as what-ifs not adopted, with a short system prompt of ours for
 *     replays (the user's agent would not be the one replayed) and with the Skill tool alone in an
 *     unseeded workspace (a task whose answer is a file could not write it).
 *  2. A night of the end-to-end world's three-job user (bench/train-e2e.ts: changelog, commit and
 *     release jobs; transcripts → harvest → mine → night under the default budget, sim backend):
 *     its report gives the calls per role and the tokens of what we sent and received, its staged
 *     skills the hidden-test score against the empty skill. Its tasks are text tasks (no repository
 *     behind the world's projects): each target call is priced as a text-task replay.
 * Tokens per night with `claude` in every role = our own tokens + per role, its calls × that role's
 * measured CLI overhead. (The night itself runs on the sim: a night of replays through the real
 * binary would spend minutes of CPU on this shared machine; the per-call figures come from the
 * binary, the plan from the product's own night.) The target's rows say where its replays go, per
 * phase of the night (the trainer's stages from its run state, the judge audit and the sealed audit
 * slice from the night's report), beside the phases before wave 5's cuts. The last rows say how many
 * target replays the 400k target leaves room for beside the other roles, against the night's.
 *
 *  3. The night under a token budget: the sim charges each call the CLI overhead measured in (1)
 *     for its role (a replay the text-task figure, any other call the text-call figure; a
 *     bench-only setting, backends.sim.replayOverheadTokens / callOverheadTokens), so the night's
 *     own budget, forecast and ledger count tokens as they would through `claude`. The three-job
 *     user's night under `budget.maxTokens 400000` beside the default 2M (both with the default 400
 *     calls and 60 tasks), seeds 1..--seeds of the e2e world: tokens per night, hidden-test score,
 *     their paired difference with its 95% CI, points per 100k tokens. Then the same two budgets
 *     in the outcome world (bench/train-outcomes.ts, seeds 1..min(--seeds, 10)), where training
 *     buys most of what a night earns.
 *
 * Flags: --seed N (default 1), --per-project N (sessions per job and project, default 8), --seeds N (the budget arms, default 10).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildClaudeInvocation, CLAUDE_LEAN_ENV, CLAUDE_TARGET_TOOLS, claudeSkillPath, parseClaudeOutput } from '../adapters/claude-code/exec.js';
import type { ExecInvocation } from '../adapters/exec-common.js';
import { CHARS_PER_TOKEN } from '../src/llm/pricing.js';
import { startFakeAnthropic, type CapturedRequest, type FakeReply } from '../tests/helpers/fake-anthropic.js';
import { runE2eSeed, type E2eSeedOutcome } from './train-e2e.js';
import { runOutcomeBudgetSeed } from './train-outcomes.js';
import { ci, f3, mean, pairedBootstrap } from './stats.js';
import type { BenchResult } from './types.js';

/** The checkout this runs from (bench/ from source, dist-bench/bench/ when built): the nearest folder with a package.json. */
function checkoutRoot(from: string): string {
  for (let dir = from; path.dirname(dir) !== dir; dir = path.dirname(dir)) if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  return from;
}
const CLAUDE = path.join(checkoutRoot(path.dirname(fileURLToPath(import.meta.url))), 'node_modules', '.bin', 'claude');

/** Turn 2's figure (issue 40): a night with the `claude` CLI as target, before this work. */
const TURN2 = { tokens: 1_380_000, calls: 178 };
const TARGET_TOKENS = 400_000;
/** The product's default budget.maxTokens, the budget arm's reference night. */
const DEFAULT_MAX_TOKENS = 2_000_000;
/** The outcome world is never run past these seeds here (its seeds above 30 are the held-out check of bench outcomes). */
const MAX_OUTCOME_SEEDS = 10;

/** What each phase of the night is, in the words of docs/TRAINER.md (the trainer's stage names otherwise). */
const PHASE_NAMES: Record<string, string> = {
  'judge audit': 'judge audit (starting skill; val, then test tasks first: read again from the cache)',
  baseline: 'baseline (starting skill on val)',
  start_draft: 'start draft on val (the start gate)',
  test: 'test measures (starting and final skill)',
  rollout: 'train rollouts',
  incumbent: "incumbent's fresh val look",
  prescreen: 'pre-screen (each edit alone on val)',
  gate: 'candidate val measures (gate)',
  focus: "gate's focus rounds",
  rescue: 'rescue',
  slow_update: 'slow update',
  prune: 'prune',
  attribution: 'attribution',
  simplify: 'simplify',
  fresh_estimate: "best skill's fresh val estimate",
  'audit slice': 'sealed audit slice (before, after)',
};
/** The phases outside the training steps: what a night spends on its tasks whatever it learns. */
const UNTRAINED_PHASES = new Set(['judge audit', 'baseline', 'start_draft', 'test', 'audit slice']);
/** The phases of seed 1's night before the cuts of wave 5 (same world, same flags): 89 tallied, 85 out. */
const PHASES_BEFORE: Record<string, number> = { prescreen: 23, rollout: 18, 'judge audit': 16, start_draft: 11, incumbent: 11, test: 8, 'audit slice': 2 };

const flag = (args: string[], name: string, dflt: number): number => {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : dflt;
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} takes a positive integer (got ${args[i + 1]})`);
  return v;
};

/** The calls measured: a replay of a file task (seeded workspace), a replay of a text task (unseeded), a text call. */
type CallKind = 'file task' | 'text task' | 'text call';
type Arm = 'now' | 'turn 2' | 'wave 3' | 'own system prompt' | 'skill tool only';

const SKILLS: Record<'file task' | 'text task', { name: string; doc: string; prompt: string }> = {
  'file task': {
    name: 'changelog',
    doc: '---\nname: changelog\ndescription: Use when adding changelog entries\n---\n# Changelog entries\nNewest version first, one line per PR, "Fixed:" or "Added:" first.\n',
    prompt: 'Add a changelog entry for PR 418: the export no longer crashes on empty ledgers.',
  },
  'text task': {
    name: 'release-notes',
    doc: '---\nname: release-notes\ndescription: Use when writing release notes\n---\n# Release notes\nA title line with the version, then at most three bullets, user-facing words, the PR numbers last.\n',
    prompt: 'Write the release notes for v1.4.0: CSV export (#401), faster sync (#407), the crash on empty ledgers fixed (#418).',
  },
};
const TEXT_SYSTEM = 'You grade an agent reply against a rubric. Answer with JSON {"score": number, "why": string}.';
const TEXT_PROMPT = `Rubric: mentions the changelog and the version.\nReply: ${'Added the 1.2.1 entry for PR 418. '.repeat(20)}`;
/** The what-if arm: a short system prompt of ours in place of the CLI's own (measured, not adopted). */
const OWN_SYSTEM = 'You are a coding agent working in the current directory. Use the tools to read and edit files. Load a skill with the Skill tool when its description fits the task.';

/** The tool results so far in a request (the scripted agent's step). */
function toolResults(req: CapturedRequest): number {
  let n = 0;
  for (const m of (req.body?.messages ?? []) as Array<{ content: unknown }>) {
    if (Array.isArray(m.content)) for (const b of m.content as Array<{ type?: string }>) if (b.type === 'tool_result') n++;
  }
  return n;
}

/**
 * A skill-following agent. A file task: load the skill, read the changelog, edit it, answer (four
 * requests). A text task: load the skill, answer (two). A call without tools: one reply.
 */
function scriptedAgent(req: CapturedRequest): FakeReply {
  const tools = ((req.body?.tools ?? []) as Array<{ name?: string }>).map((t) => t.name);
  if (!tools.includes('Skill')) return { text: '{"score": 1, "why": "mentions both"}' };
  const step = toolResults(req);
  if (req.raw.includes('release notes for v1.4.0')) {
    return step === 0 ? { text: 'Loading the release-notes skill.', toolUse: { name: 'Skill', input: { skill: 'release-notes' } } } : { text: 'v1.4.0\n- CSV export (#401)\n- Faster sync (#407)\n- Fixed: crash on empty ledgers (#418)' };
  }
  const cwd = /Primary working directory: (\S+)/.exec(req.raw)?.[1] ?? '.';
  const file = path.join(cwd, 'CHANGELOG.md');
  const steps: FakeReply[] = [
    { text: 'Loading the changelog skill.', toolUse: { name: 'Skill', input: { skill: 'changelog' } } },
    { text: 'Reading the changelog.', toolUse: { name: 'Read', input: { file_path: file } } },
    { text: 'Adding the entry.', toolUse: { name: 'Edit', input: { file_path: file, old_string: '# Changelog\n', new_string: '# Changelog\n\n## 1.2.1\n- Fixed: export crash on empty ledgers (PR 418)\n' } } },
    { text: 'Added the 1.2.1 entry for PR 418.' },
  ];
  return steps[Math.min(step, steps.length - 1)];
}

function runClaude(inv: ExecInvocation, cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(CLAUDE, inv.argv, { cwd, env: { ...env, ...inv.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill(), 180_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(inv.stdin ?? '');
  });
}

/** The argv with another `--tools` list. */
function withTools(inv: ExecInvocation, tools: string): ExecInvocation {
  return { ...inv, argv: inv.argv.map((a, i) => (inv.argv[i - 1] === '--tools' ? tools : a)) };
}

/** Wave 3's invocation of a replay (before issue 40's wave 4): every file tool but the search tools in an unseeded workspace, the built-in plugin's skill listed. */
function wave3(inv: ExecInvocation, emptyWorkspace: boolean): ExecInvocation {
  const settings = inv.argv.indexOf('--settings');
  const argv = settings >= 0 ? [...inv.argv.slice(0, settings), ...inv.argv.slice(settings + 2)] : inv.argv;
  return withTools({ ...inv, argv }, emptyWorkspace ? 'Read,Write,Edit,Skill' : CLAUDE_TARGET_TOOLS.join(','));
}

/** Turn 2's invocation: this one without the lean flags (MCP servers allowed, bundled skills listed, every tool). */
function turn2(inv: ExecInvocation, fullTools: ExecInvocation): ExecInvocation {
  const env = { ...inv.env };
  for (const key of Object.keys(CLAUDE_LEAN_ENV)) delete env[key];
  const argv = fullTools.argv.filter((a) => a !== '--strict-mcp-config');
  const settings = argv.indexOf('--settings');
  return { ...inv, argv: settings >= 0 ? [...argv.slice(0, settings), ...argv.slice(settings + 2)] : argv, env };
}

interface CallTokens {
  tokensIn: number;
  tokensOut: number;
  requests: number;
  /** tokens the CLI added to what we sent (reported in − sent / CHARS_PER_TOKEN) */
  overhead: number;
}

async function measureCall(kind: CallKind, arm: Arm, serverUrl: string, requests: () => number): Promise<CallTokens> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-tokens-'));
  try {
    const home = path.join(ws, '.agent-home');
    fs.mkdirSync(home);
    let inv: ExecInvocation;
    let sent: number;
    if (kind === 'text call') {
      inv = buildClaudeInvocation({ prompt: TEXT_PROMPT, system: TEXT_SYSTEM, workspace: ws, mode: 'text' });
      if (arm === 'turn 2') inv = turn2(inv, inv);
      sent = TEXT_SYSTEM.length + TEXT_PROMPT.length;
    } else {
      const task = SKILLS[kind];
      const rel = claudeSkillPath({ name: task.name, content: task.doc });
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), task.doc);
      // the file task's workspace is seeded (it holds the changelog); the text task's is not
      if (kind === 'file task') fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n\n## 1.2.0\n- Added: CSV export (PR 401)\n');
      const input = { prompt: task.prompt, workspace: ws, mode: 'agent' as const, emptyWorkspace: kind === 'text task' };
      inv = buildClaudeInvocation(input);
      if (arm === 'turn 2') inv = turn2(inv, buildClaudeInvocation({ ...input, emptyWorkspace: false }));
      if (arm === 'wave 3') inv = wave3(inv, input.emptyWorkspace);
      if (arm === 'own system prompt') inv = { ...inv, argv: [...inv.argv, '--system-prompt', OWN_SYSTEM] };
      if (arm === 'skill tool only') inv = withTools(inv, 'Skill');
      sent = task.prompt.length;
    }
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: home, ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: 'sk-ant-bench-dummy' };
    const before = requests();
    const r = await runClaude(inv, ws, env);
    const parsed = parseClaudeOutput(r.stdout);
    if (r.status !== 0 || parsed.error) throw new Error(`claude (${kind}, ${arm}) failed: ${parsed.error ?? r.stderr.slice(0, 400)}`);
    return { tokensIn: parsed.tokensIn, tokensOut: parsed.tokensOut, requests: requests() - before, overhead: Math.max(0, parsed.tokensIn - sent / CHARS_PER_TOKEN) };
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

const k = (n: number) => Math.round(n / 100) / 10;

export async function run(args: string[]): Promise<BenchResult[]> {
  if (!fs.existsSync(CLAUDE)) return [{ name: `skipped: no claude binary at ${CLAUDE} (npm devDependency @anthropic-ai/claude-code)`, value: 0, unit: '' }];
  const seed = flag(args, '--seed', 1);
  const perProject = flag(args, '--per-project', 8);
  const log = (s: string) => process.stderr.write(`  tokens: ${s}\n`);

  const server = await startFakeAnthropic((req) => scriptedAgent(req));
  const calls = {} as Record<Arm, Partial<Record<CallKind, CallTokens>>>;
  try {
    const plan: Array<[Arm, CallKind[]]> = [
      ['turn 2', ['file task', 'text task', 'text call']],
      ['wave 3', ['file task', 'text task']],
      ['now', ['file task', 'text task', 'text call']],
      ['own system prompt', ['text task']],
      ['skill tool only', ['text task']],
    ];
    for (const [arm, kinds] of plan) {
      calls[arm] = {};
      for (const kind of kinds) {
        const c = await measureCall(kind, arm, server.url, () => server.messageRequests().length);
        calls[arm][kind] = c;
        log(`${arm}, ${kind}: ${c.tokensIn} in + ${c.tokensOut} out over ${c.requests} requests (CLI overhead ${Math.round(c.overhead)})`);
      }
    }
  } finally {
    await server.close();
  }
  const overhead = (arm: Arm, kind: CallKind) => calls[arm][kind]?.overhead ?? 0;
  const total = (arm: Arm, kind: CallKind) => (calls[arm][kind]?.tokensIn ?? 0) + (calls[arm][kind]?.tokensOut ?? 0);

  log(`night of the three-job user (seed ${seed}, ${perProject} sessions per job and project, default budget)…`);
  const night = await runE2eSeed(seed, { perProject, hiddenPerJob: 8, budget: 'default', jobs: ['changelog', 'commit', 'release'] });
  const points = (night.scores['night (staged skills)'] - night.scores['empty skill']) * 100;
  const roles = Object.entries(night.calls.byRole).sort((a, b) => b[1] - a[1]);
  const tallied = roles.reduce((n, [, c]) => n + c, 0);
  // the budget counts the calls that went out (a cached reply is tallied by role but spends nothing):
  // each role's share of the calls that went out is its tally scaled by that ratio
  const outShare = tallied ? Math.min(1, night.calls.used.calls / tallied) : 0;
  const own = night.calls.used.tokens;
  // this world's tasks are text tasks in unseeded workspaces (no repository behind its projects)
  const textCallArm = (arm: Arm): Arm => (arm === 'turn 2' ? 'turn 2' : 'now');
  const overheadOf = (arm: Arm, role: string, n: number) => n * outShare * (role === 'target' ? overhead(arm, 'text task') : overhead(textCallArm(arm), 'text call'));
  const perNight = (arm: Arm) => own + roles.reduce((t, [role, n]) => t + overheadOf(arm, role, n), 0);
  const now = perNight('now');
  const before = perNight('turn 2');
  const ownSystem = perNight('own system prompt');
  const beforeWave = perNight('wave 3');
  const skillOnly = perNight('skill tool only');
  // where the rest goes: what the 400k target leaves for target replays after every other role, at this overhead
  const nonTarget = own + roles.reduce((t, [role, n]) => t + (role === 'target' ? 0 : overheadOf('now', role, n)), 0);
  const targetRoom = Math.max(0, Math.floor((TARGET_TOKENS - nonTarget) / Math.max(1, overhead('now', 'text task'))));
  const targetOut = Math.round((night.calls.byRole.target ?? 0) * outShare);
  // the replays every night makes before and after training (fixed by its tasks) and the training steps' own
  const fixedReplays = Object.entries(night.targetReplays).reduce((n, [phase, c]) => n + (UNTRAINED_PHASES.has(phase) ? c : 0), 0);
  const trainingReplays = Object.values(night.targetReplays).reduce((n, c) => n + c, 0) - fixedReplays;
  const nightScore = night.scores['night (staged skills)'];
  const emptyScore = night.scores['empty skill'];
  log(`night: ${night.pipeline.nightStatus}, ${night.calls.used.calls} calls out (${roles.map(([r, n]) => `${r} ${n}`).join(', ')} tallied), ${own} tokens of our own, staged ${night.pipeline.staged.length}; hidden test ${nightScore.toFixed(3)} vs empty ${emptyScore.toFixed(3)}`);

  const rows: BenchResult[] = [
    { name: `a file-task replay (seeded; ${calls.now['file task']?.requests} requests): tokens, now`, value: total('now', 'file task'), unit: 'tokens', note: `was ${total('turn 2', 'file task')}` },
    { name: `a text-task replay (unseeded; ${calls.now['text task']?.requests} requests): tokens, now`, value: total('now', 'text task'), unit: 'tokens', note: `was ${total('turn 2', 'text task')}; wave 3 ${total('wave 3', 'text task')}` },
    { name: '  CLI overhead per text-task replay (reported − sent), now', value: Math.round(overhead('now', 'text task')), unit: 'tokens', note: `was ${Math.round(overhead('turn 2', 'text task'))}; wave 3 ${Math.round(overhead('wave 3', 'text task'))}` },
    { name: '  what-if, not adopted: our own system prompt for replays', value: Math.round(overhead('own system prompt', 'text task')), unit: 'tokens' },
    { name: '  what-if, not adopted: the Skill tool only (no Write: a file answer could not be written)', value: Math.round(overhead('skill tool only', 'text task')), unit: 'tokens' },
    { name: '  CLI overhead per text call (optimizer, judge), now', value: Math.round(overhead('now', 'text call')), unit: 'tokens', note: `was ${Math.round(overhead('turn 2', 'text call'))}` },
    { name: `night, three-job user: calls that went out (tallied: ${roles.map(([r, n]) => `${r} ${n}`).join(', ')})`, value: night.calls.used.calls, unit: 'calls' },
    { name: '  our own tokens (prompts sent + replies, every role)', value: k(own), unit: 'k tokens' },
  ];
  for (const [role, n] of roles) rows.push({ name: `  ${role}: CLI overhead (${Math.round(n * outShare)} calls out)`, value: k(overheadOf('now', role, n)), unit: 'k tokens', note: `was ${k(overheadOf('turn 2', role, n))}k` });
  // where the target's calls go: per phase of the night, each a text-task replay's CLI overhead
  const phases = Object.entries(night.targetReplays).sort((a, b) => b[1] - a[1]);
  for (const [phase, n] of phases) {
    const was = PHASES_BEFORE[phase];
    rows.push({ name: `    target replays: ${PHASE_NAMES[phase] ?? phase}`, value: n, unit: 'replays', note: `${k(n * overhead('now', 'text task'))}k tokens${was !== undefined ? `; was ${was}` : ''}` });
  }
  for (const [phase, was] of Object.entries(PHASES_BEFORE)) if (!(phase in night.targetReplays)) rows.push({ name: `    target replays: ${PHASE_NAMES[phase] ?? phase}`, value: 0, unit: 'replays', note: `was ${was}` });
  rows.push(
    { name: 'tokens per night, claude in every role: turn 2 flags, this night', value: k(before), unit: 'k tokens' },
    { name: '  wave 3 flags (Read, Edit in unseeded workspaces; plugin skill listed), this night', value: k(beforeWave), unit: 'k tokens' },
    { name: 'tokens per night, claude in every role: now', value: k(now), unit: 'k tokens', target: `<= ${TARGET_TOKENS / 1000}`, pass: now <= TARGET_TOKENS },
    { name: `  turn 2 as measured then (issue 40: ${TURN2.calls} calls)`, value: TURN2.tokens / 1000, unit: 'k tokens' },
    { name: '  what-if, not adopted: our own system prompt for replays', value: k(ownSystem), unit: 'k tokens' },
    { name: '  what-if, not adopted: the Skill tool only in unseeded workspaces', value: k(skillOnly), unit: 'k tokens' },
    { name: `  where the rest goes: target replays that fit in ${TARGET_TOKENS / 1000}k beside the other roles, at ${Math.round(overhead('now', 'text task'))} tokens each (this night: ${targetOut})`, value: targetRoom, unit: 'replays' },
    {
      name: `  where the rest goes: the night without its training steps (judge audit, start gate, test and audit-slice measures: ${fixedReplays} replays), our own tokens and the other roles' overhead`,
      value: k(nonTarget + fixedReplays * overhead('now', 'text task')),
      unit: 'k tokens',
      note: `leaves ${Math.max(0, Math.floor((TARGET_TOKENS - nonTarget) / Math.max(1, overhead('now', 'text task'))) - fixedReplays)} replays for training steps in ${TARGET_TOKENS / 1000}k; this night's took ${trainingReplays}`,
    },
    { name: `hidden-test points: night ${nightScore.toFixed(3)} − empty skill ${emptyScore.toFixed(3)} (×100)`, value: Math.round(points * 10) / 10, unit: 'points' },
    { name: 'hidden-test points per 100k tokens: now', value: Math.round((points / (now / 1e5)) * 100) / 100, unit: 'pts/100k' },
    { name: 'hidden-test points per 100k tokens: turn 2 flags, same night', value: Math.round((points / (before / 1e5)) * 100) / 100, unit: 'pts/100k' },
  );
  rows.push(...(await budgetArms(flag(args, '--seeds', 10), perProject, { replay: Math.round(overhead('now', 'text task')), call: Math.round(overhead('now', 'text call')) }, log)));
  return rows;
}

interface ArmNight {
  tokens: number;
  score: number;
  empty: number;
  staged: number;
  note: string;
}

/** Points (score × 100) over the empty skill per 100k tokens, over the seeds' means. */
const per100k = (ns: ArmNight[]) => Math.round((((mean(ns.map((n) => n.score)) - mean(ns.map((n) => n.empty))) * 100) / (mean(ns.map((n) => n.tokens)) / 1e5)) * 100) / 100;

/** The rows of one world: each budget's tokens and score, their paired difference, the points per 100k. */
function armRows(world: string, tight: ArmNight[], wide: ArmNight[], extra: BenchResult[] = []): BenchResult[] {
  const d = pairedBootstrap(
    tight.map((n) => n.score),
    wide.map((n) => n.score),
  );
  const most = Math.max(...tight.map((n) => n.tokens));
  return [
    { name: `${world}: tokens per night, budget.maxTokens ${TARGET_TOKENS / 1000}k (mean; most ${k(most)}k)`, value: k(mean(tight.map((n) => n.tokens))), unit: 'k tokens', target: `<= ${TARGET_TOKENS / 1000}`, pass: most <= TARGET_TOKENS },
    { name: `${world}: tokens per night, budget.maxTokens ${DEFAULT_MAX_TOKENS / 1e6}M (mean)`, value: k(mean(wide.map((n) => n.tokens))), unit: 'k tokens' },
    { name: `${world}: seeds whose ${TARGET_TOKENS / 1000}k night staged`, value: tight.filter((n) => n.staged > 0).length, unit: `of ${tight.length}` },
    { name: `${world}: hidden test, ${TARGET_TOKENS / 1000}k night (mean)`, value: mean(tight.map((n) => n.score)), unit: 'score' },
    { name: `${world}: hidden test, ${DEFAULT_MAX_TOKENS / 1e6}M night (mean)`, value: mean(wide.map((n) => n.score)), unit: 'score' },
    { name: `${world}: ${TARGET_TOKENS / 1000}k − ${DEFAULT_MAX_TOKENS / 1e6}M, paired over seeds [95% CI]`, value: Math.round(d.diff * 1000) / 1000, unit: 'score', note: ci(d) },
    { name: `${world}: points per 100k tokens, ${TARGET_TOKENS / 1000}k night`, value: per100k(tight), unit: 'pts/100k' },
    { name: `${world}: points per 100k tokens, ${DEFAULT_MAX_TOKENS / 1e6}M night`, value: per100k(wide), unit: 'pts/100k' },
    ...extra,
  ];
}

/** The three-job user's nights and the outcome world's under 400k and 2M, each call charged the CLI's measured overhead. */
async function budgetArms(seedCount: number, perProject: number, cliOverhead: { replay: number; call: number }, log: (s: string) => void): Promise<BenchResult[]> {
  const seeds = Array.from({ length: seedCount }, (_, i) => i + 1);
  log(`budget arms: each call charged the CLI's overhead (${cliOverhead.replay} tokens a replay, ${cliOverhead.call} a text call), seeds 1..${seedCount}`);
  const e2e = async (seed: number, maxTokens: number): Promise<ArmNight & { o: E2eSeedOutcome }> => {
    const o = await runE2eSeed(seed, { perProject, hiddenPerJob: 8, budget: 'default', jobs: ['changelog', 'commit', 'release'], maxTokens, cliOverhead });
    const b = o.pipeline.budget;
    const note = b.stopBeforeSpending ?? [b.cut.join(', '), ...b.deferred.map((x) => `deferred ${x}`)].filter(Boolean).join('; ');
    return { tokens: o.calls.used.tokens, score: o.scores['night (staged skills)'], empty: o.scores['empty skill'], staged: o.pipeline.staged.length, note, o };
  };
  const tight: ArmNight[] = [];
  const wide: ArmNight[] = [];
  const fromDraft: number[] = [];
  for (const seed of seeds) {
    const t = await e2e(seed, TARGET_TOKENS);
    const w = await e2e(seed, DEFAULT_MAX_TOKENS);
    tight.push(t);
    wide.push(w);
    fromDraft.push(w.o.scores['night (staged skills)'] - w.o.scores['night: its start, no optimizer']);
    log(`  e2e seed ${seed}: ${TARGET_TOKENS / 1000}k night ${k(t.tokens)}k tokens, test ${f3(t.score)}, staged ${t.staged} (${t.note}); 2M night ${k(w.tokens)}k, test ${f3(w.score)} (${w.note})`);
  }
  const rows = armRows('e2e, three-job user', tight, wide, [{ name: 'e2e, three-job user: what training added at 2M (night − its start, mean)', value: Math.round(mean(fromDraft) * 1000) / 1000, unit: 'score' }]);

  const outcomeSeeds = seeds.slice(0, MAX_OUTCOME_SEEDS);
  const oTight: ArmNight[] = [];
  const oWide: ArmNight[] = [];
  const oGain: number[] = [];
  for (const seed of outcomeSeeds) {
    const t = await runOutcomeBudgetSeed(seed, { maxTokens: TARGET_TOKENS, cliOverhead });
    const w = await runOutcomeBudgetSeed(seed, { maxTokens: DEFAULT_MAX_TOKENS, cliOverhead });
    oTight.push({ tokens: t.tokens, score: t.night, empty: t.empty, staged: t.staged, note: '' });
    oWide.push({ tokens: w.tokens, score: w.night, empty: w.empty, staged: w.staged, note: '' });
    oGain.push(w.night - w.start);
    log(`  outcome seed ${seed}: ${TARGET_TOKENS / 1000}k night ${k(t.tokens)}k tokens, ${t.calls} calls, test ${f3(t.night)} (its start ${f3(t.start)}), staged ${t.staged}; 2M night ${k(w.tokens)}k, ${w.calls} calls, test ${f3(w.night)} (its start ${f3(w.start)}), staged ${w.staged}`);
  }
  rows.push(...armRows('outcome world', oTight, oWide, [{ name: 'outcome world: what training added at 2M (night − its start, mean)', value: Math.round(mean(oGain) * 1000) / 1000, unit: 'score' }]));
  return rows;
}

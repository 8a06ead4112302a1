/**
 * Outcome evidence from a real repository made with real `git` (issue 41): Claude Code transcripts
 * in which the agent proposes a commit message and writes a CHANGELOG, the user commits edited
 * versions after each session; harvest (the Claude parser and the store) → mine → the tasks carry
 * what the user kept, with provenance, and a judge grounded in it. And nothing was written into
 * the repository: `git status --porcelain` identical and clean, `git fsck` passes, and the mtime
 * of every file (work tree, .git/index, refs, objects) unchanged.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { listTasks } from '../../src/store/repos/tasks.js';
import { upsertSession } from '../../src/store/repos/sessions.js';
import { insertEvents } from '../../src/store/repos/events.js';
import { ClaudeParser } from '../../adapters/claude-code/parse.js';
import { GitHistory } from '../../src/mine/kept/git-read.js';
import { keptOutcomesOf } from '../../src/mine/kept/kept.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 9, 5, 9);

function git(repo: string, args: string[], at?: number): string {
  const date = at ? new Date(at).toISOString() : undefined;
  return execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: repo,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Dana',
      GIT_AUTHOR_EMAIL: 'dana@example.com',
      GIT_COMMITTER_NAME: 'Dana',
      GIT_COMMITTER_EMAIL: 'dana@example.com',
      ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}),
    },
  });
}

/** Every path under `root` (the .git folder included) with its mtime. */
function mtimes(root: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      out.set(path.relative(root, p), fs.lstatSync(p).mtimeMs);
      if (e.isDirectory()) walk(p);
    }
  };
  out.set('.', fs.statSync(root).mtimeMs);
  walk(root);
  return out;
}

interface Occurrence {
  scope: string;
  subject: string;
  pr: number;
  fix: string;
}

const OCCURRENCES: Occurrence[] = [
  { scope: 'cli', subject: 'handle an empty config file', pr: 412, fix: 'The CLI no longer crashes on an empty config file.' },
  { scope: 'store', subject: 'close the database on exit', pr: 418, fix: 'The database is closed when the process exits.' },
  { scope: 'mine', subject: 'skip damaged transcript lines', pr: 423, fix: 'Damaged transcript lines are skipped, not fatal.' },
];

/** What the agent wrote (a capitalised subject with no prefix, an emoji, no trailer; a CHANGELOG without the subheading) and what the user committed. */
const agentMessage = (o: Occurrence) => `${o.subject[0].toUpperCase()}${o.subject.slice(1)} 🎉\n\nThis change makes sure we ${o.subject}.`;
const keptMessage = (o: Occurrence) => `fix(${o.scope}): ${o.subject}\n\nThis change makes sure we ${o.subject}.\n\nRefs: #${o.pr}`;
const agentChangelog = (o: Occurrence) => `# Changelog\n\n## Unreleased\n\n- ${o.fix}\n`;
const keptChangelog = (o: Occurrence) => `# Changelog\n\n## Unreleased\n\n### Fixed\n\n- ${o.fix} (#${o.pr})\n`;

function transcript(sessionId: string, repo: string, at: number, o: Occurrence): Array<Record<string, unknown>> {
  let u = 0;
  const iso = (dt: number) => new Date(at + dt).toISOString();
  const row = (type: string, message: unknown, dt: number) => ({ type, uuid: `${sessionId}-${u++}`, sessionId, timestamp: iso(dt), cwd: repo, message });
  return [
    row('user', { role: 'user', content: `write the changelog entry and the commit message for the ${o.scope} fix` }, 0),
    row('assistant', { id: `${sessionId}-m1`, role: 'assistant', content: [{ type: 'tool_use', id: `${sessionId}-t1`, name: 'Write', input: { file_path: path.join(repo, 'CHANGELOG.md'), content: agentChangelog(o) } }] }, 1000),
    row('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: `${sessionId}-t1`, content: 'File written' }] }, 2000),
    row('assistant', { id: `${sessionId}-m2`, role: 'assistant', content: [{ type: 'tool_use', id: `${sessionId}-t2`, name: 'Bash', input: { command: 'npm test' } }] }, 3000),
    row('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: `${sessionId}-t2`, content: 'npm ERR! Missing script: "test"', is_error: true }] }, 4000),
    row('assistant', { id: `${sessionId}-m3`, role: 'assistant', content: [{ type: 'tool_use', id: `${sessionId}-t3`, name: 'Bash', input: { command: 'pnpm vitest run' } }] }, 5000),
    row('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: `${sessionId}-t3`, content: 'Test Files 12 passed' }] }, 6000),
    row(
      'assistant',
      { id: `${sessionId}-m4`, role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: `Updated CHANGELOG.md. Here is the commit message:\n\n\`\`\`\n${agentMessage(o)}\n\`\`\`` }] },
      7000,
    ),
  ];
}

function harvestInto(db: Db, rows: Array<Record<string, unknown>>, sessionId: string): void {
  const p = new ClaudeParser(`/h/.claude/projects/-repo/${sessionId}.jsonl`, undefined);
  for (const r of rows) p.line(r);
  const out = p.flush();
  const snap = out.session!;
  // (as ingest does: the project is the session's git root)
  const sid = upsertSession(db, {
    id: snap.id,
    agent: 'claude-code',
    vendorId: snap.vendorId,
    project: snap.cwd,
    cwd: snap.cwd,
    gitBranch: snap.gitBranch,
    startedAt: snap.startedAt,
    endedAt: snap.endedAt,
    kind: snap.kind,
    parentId: snap.parentId,
    file: `/h/.claude/projects/-repo/${sessionId}.jsonl`,
    title: snap.title,
    promptCount: snap.promptCount,
    toolErrorCount: snap.toolErrorCount,
  });
  insertEvents(db, sid, out.events);
}

describe('outcome evidence from a real git repository', () => {
  it('mines what the user kept (commit message and file) and writes nothing into the repository', async () => {
    const root = makeTempDir();
    dirs.push(root);
    const repo = path.join(root, 'ledgerline');
    fs.mkdirSync(repo);
    git(repo, ['init', '-q', '-b', 'main']);
    fs.writeFileSync(path.join(repo, 'CHANGELOG.md'), '# Changelog\n\n## Unreleased\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'chore: start'], T0 - DAY);
    const db = openDb(path.join(root, 'state', 'sleep.db'));

    OCCURRENCES.forEach((o, i) => {
      const at = T0 + i * 2 * DAY;
      const sessionId = `0b7c4a10-2f3e-4d5a-8b6c-7d8e9f0a1b2${i}`;
      harvestInto(db, transcript(sessionId, repo, at, o), sessionId);
      // the user commits their own version a few hours after the session
      fs.writeFileSync(path.join(repo, 'CHANGELOG.md'), keptChangelog(o));
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-q', '-m', keptMessage(o)], at + 3 * 3600_000);
    });

    const statusBefore = git(repo, ['status', '--porcelain']);
    const before = mtimes(repo);
    expect(before.has(path.join('.git', 'index'))).toBe(true);

    const summary = await runMining(db, defaultConfig(), { now: T0 + 10 * DAY });
    expect(summary.newTasks).toBe(3);
    const tasks = listTasks(db);
    const kept = tasks.flatMap((t) => t.kept ?? []);
    const messages = kept.filter((k) => k.kind === 'commit_message').sort((a, b) => a.at - b.at);
    expect(messages.map((k) => k.kept)).toEqual(OCCURRENCES.map(keptMessage));
    expect(messages.map((k) => k.agent)).toEqual(OCCURRENCES.map(agentMessage));
    for (const k of messages) {
      expect(k.commit).toMatch(/^[0-9a-f]{12}$/);
      expect(git(repo, ['log', '-1', '--format=%B', k.commit]).trim()).toBe(k.kept);
    }
    const files = kept.filter((k) => k.kind === 'file').sort((a, b) => a.at - b.at);
    expect(files.map((k) => [k.file, k.agent, k.kept])).toEqual(OCCURRENCES.map((o) => ['CHANGELOG.md', agentChangelog(o), keptChangelog(o)]));

    // the procedure: `npm test` failed, `pnpm vitest run` worked, in each session
    const procedures = tasks.flatMap((t) => t.procedures ?? []);
    expect(procedures.length).toBe(3);
    expect(procedures.every((p) => p.failed === 'npm test' && p.worked === 'pnpm vitest run' && p.purpose === 'test')).toBe(true);

    // the judge of the train/val tasks is grounded in what was kept (not byte equality)
    const trained = tasks.find((t) => t.split !== 'test')!;
    const grounded = trained.judge.checks.filter((c) => c.grounded === 'kept');
    const descriptions = grounded.map((c) => c.description ?? '');
    expect(descriptions.some((d) => d.includes('`fix(<scope>):`'))).toBe(true);
    expect(descriptions.some((d) => d.includes('`Refs:` trailer'))).toBe(true);
    expect(descriptions.some((d) => d.includes('`### Fixed`'))).toBe(true);
    expect(descriptions.some((d) => /no emoji/.test(d))).toBe(true);

    // nothing was written into the repository (mtimes first: `git status` itself may refresh the index)
    const after = mtimes(repo);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [p, m] of before) expect({ p, m: after.get(p) }).toEqual({ p, m });
    expect(git(repo, ['status', '--porcelain'])).toBe(statusBefore);
    expect(statusBefore).toBe('');
    git(repo, ['fsck', '--strict', '--no-progress']);
  });

  it('with mining.outcomeEvidence off the tasks carry neither kept outcomes nor procedures', async () => {
    const root = makeTempDir();
    dirs.push(root);
    const repo = path.join(root, 'r');
    fs.mkdirSync(repo);
    git(repo, ['init', '-q', '-b', 'main']);
    git(repo, ['commit', '-q', '--allow-empty', '-m', 'chore: start'], T0 - DAY);
    const db = openDb(path.join(root, 'state', 'sleep.db'));
    OCCURRENCES.slice(0, 2).forEach((o, i) => {
      const at = T0 + i * 2 * DAY;
      const sessionId = `1b7c4a10-2f3e-4d5a-8b6c-7d8e9f0a1b2${i}`;
      harvestInto(db, transcript(sessionId, repo, at, o), sessionId);
      git(repo, ['commit', '-q', '--allow-empty', '-m', keptMessage(o)], at + 3600_000);
    });
    const config = defaultConfig();
    config.mining.outcomeEvidence = false;
    await runMining(db, config, { now: T0 + 10 * DAY });
    const tasks = listTasks(db);
    expect(tasks.length).toBe(2);
    expect(tasks.every((t) => t.kept === undefined && t.procedures === undefined)).toBe(true);
    expect(tasks.flatMap((t) => t.judge.checks).some((c) => c.grounded)).toBe(false);
  });

  it('reads only inside the window: a commit after the next occurrence (or a week later) is not this ask\'s outcome', () => {
    const root = makeTempDir();
    dirs.push(root);
    const repo = path.join(root, 'w');
    fs.mkdirSync(repo);
    git(repo, ['init', '-q', '-b', 'main']);
    git(repo, ['commit', '-q', '--allow-empty', '-m', 'late: eight days on'], T0 + 8 * DAY);
    const history = GitHistory.open(path.join(repo))!;
    const input = { session: 's', ts: T0, cwd: repo, artifacts: { commitMessage: 'Fix it' } };
    expect(keptOutcomesOf(input, history)).toEqual([]);
    git(repo, ['commit', '-q', '--allow-empty', '-m', 'fix(a): in time'], T0 + 2 * DAY);
    const fresh = GitHistory.open(repo)!;
    expect(keptOutcomesOf(input, fresh).map((k) => k.kept)).toEqual(['fix(a): in time']);
    expect(keptOutcomesOf({ ...input, nextTs: T0 + DAY }, fresh)).toEqual([]);
    expect(GitHistory.open(path.join(root, 'not-a-repo'))).toBeNull();
  });

  it('redacts a secret in what the user kept (and in what the agent wrote) before it is stored', () => {
    const root = makeTempDir();
    dirs.push(root);
    const repo = path.join(root, 'sec');
    fs.mkdirSync(repo);
    git(repo, ['init', '-q', '-b', 'main']);
    const token = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';
    fs.writeFileSync(path.join(repo, 'deploy.md'), `# Deploy\n\nuse token ${token}\n`);
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', `fix(ci): rotate the token ${token}`], T0 + 3600_000);
    const kept = keptOutcomesOf({ session: 's', ts: T0, cwd: repo, artifacts: { commitMessage: `Rotate ${token}`, files: [{ path: 'deploy.md', content: `token ${token}` }] } }, GitHistory.open(repo)!);
    expect(kept.map((k) => k.kind)).toEqual(['commit_message', 'file']);
    for (const k of kept) {
      expect(k.kept).not.toContain(token);
      expect(k.agent).not.toContain(token);
    }
    expect(kept[0].kept).toMatch(/^fix\(ci\): rotate the token /);
  });
});

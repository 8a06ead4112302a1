/**
 * The outcome world (bench/outcome-world.ts, issue 41) on a small size: its git repositories are
 * real ones made with the real `git`, they hold what the user kept (edited by hand, differing from
 * what the transcripts show the agent wrote), the transcripts hold the procedure (a failed command,
 * then the one that worked), and no hidden test value appears in any transcript or commit. Also:
 * the hidden verifiers and the sim agree (the oracle passes the silent preferences, the empty skill
 * none of them), so a figure of the bench measures learning, not a broken verifier.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { OUTCOME_DEFAULTS, OUTCOME_PROJECTS, hiddenOnlyValues, outcomeHidden, outcomeOracleSkill, outcomeSessions, outcomeVerbatimSkill, staleContent, type OutcomeKnobs } from '../../bench/outcome-world.js';
import { buildOutcomeRepos, outcomeProjectDir, writeOutcomeTranscripts } from '../../bench/outcome-transcripts.js';
import { scoreOutcomeArm } from '../../bench/train-outcomes.js';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { makeTempDir } from '../helpers/sandbox.js';

const knobs: OutcomeKnobs = { ...OUTCOME_DEFAULTS, perJob: 3, hiddenPerJob: 3 };
const root = makeTempDir('sos-outcome-world-');
const homes = { claudeConfigDir: path.join(root, 'claude'), projectsRoot: path.join(root, 'src') };
const now = Date.UTC(2026, 10, 20, 12);
const sessions = outcomeSessions(7, knobs, now, (p) => outcomeProjectDir(homes, p));
const repos = buildOutcomeRepos(sessions, homes, OUTCOME_PROJECTS);
const transcripts = writeOutcomeTranscripts(sessions, 7, homes);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const git = (dir: string, ...args: string[]) => execFileSync('git', ['--no-optional-locks', ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
const records = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
/** every tool_use input and tool_result of a transcript, in order */
function toolEvents(file: string): Array<{ use?: { name: string; input: Record<string, string> }; result?: { content: string; is_error: boolean } }> {
  const out: Array<{ use?: { name: string; input: Record<string, string> }; result?: { content: string; is_error: boolean } }> = [];
  for (const r of records(file)) {
    const content = (r.message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as Array<Record<string, unknown>>) {
      if (b.type === 'tool_use') out.push({ use: { name: String(b.name), input: b.input as Record<string, string> } });
      if (b.type === 'tool_result') out.push({ result: { content: String(b.content), is_error: b.is_error === true } });
    }
  }
  return out;
}

describe('the outcome world', () => {
  it('builds each project as a real git repository, one commit per artifact session, dated after the session', () => {
    expect(repos.map((r) => r.project)).toEqual(OUTCOME_PROJECTS);
    for (const repo of repos) {
      expect(git(repo.dir, 'rev-parse', '--is-inside-work-tree').trim()).toBe('true');
      expect(fs.statSync(path.join(repo.dir, '.git', 'objects')).isDirectory()).toBe(true);
      // fsck exits non-zero on a broken store
      git(repo.dir, 'fsck', '--strict');
      expect(git(repo.dir, 'status', '--porcelain').trim()).toBe('');
      const times = git(repo.dir, 'log', '--format=%ct %at').trim().split('\n');
      expect(times.length).toBe(repo.commits);
      const withCommit = sessions.filter((s) => s.project === repo.project && s.commit);
      expect(repo.commits).toBe(withCommit.length + 1);
      // every session's commit is dated after the session started (author and committer alike)
      const dates = times.slice(0, -1).map((l) => l.split(' ').map((x) => Number(x) * 1000));
      const sessionTimes = withCommit.map((s) => s.at).sort((a, b) => b - a);
      dates.forEach(([ct, at], i) => {
        expect(ct).toBe(at);
        expect(ct).toBeGreaterThan(sessionTimes[i]);
      });
    }
  });

  it('holds what the user kept, which differs from what the transcript shows the agent wrote', () => {
    const ledger = outcomeProjectDir(homes, 'ledgerline');
    const tally = outcomeProjectDir(homes, 'tallybook');
    // the commit message that landed: conventional prefix with a scope, a Refs trailer (an edited session's)
    const messages = [ledger, tally].flatMap((d) => git(d, 'log', '--format=%B%x00').split('\0').map((m) => m.trim()).filter(Boolean));
    const edited = sessions.filter((s) => s.job === 'commit' && s.evidence.edited);
    expect(edited.length).toBeGreaterThan(0);
    for (const s of edited) expect(messages).toContain(`${s.commit!.message}`);
    expect(messages.some((m) => /^(fix|feat|perf|chore)\([a-z]+\): [a-z]/.test(m) && /\nRefs: #\d+$/.test(m))).toBe(true);
    // the CHANGELOG as merged: `### Changed`, no emoji; the agent's Write had `## Upcoming` and 🎉
    const changelog = git(ledger, 'show', 'HEAD:CHANGELOG.md');
    expect(changelog).toMatch(/^## (?:\[Unreleased\]|Unreleased)$/m);
    const lastChangelog = sessions.filter((s) => s.job === 'changelog').at(-1)!;
    if (lastChangelog.evidence.edited) {
      expect(changelog).toMatch(/^### Changed$/m);
      expect(changelog).not.toContain('🎉');
    }
    // the test file as committed: vitest, vi.fn; the agent wrote jest.fn
    const testFiles = git(tally, 'log', '--name-only', '--format=').split('\n').filter((f) => f.startsWith('tests/'));
    expect(testFiles.length).toBeGreaterThan(0);
    const committedTests = [...new Set(testFiles)].map((f) => git(tally, 'show', `HEAD:${f}`));
    expect(committedTests.some((t) => t.includes('vi.fn') && !t.includes('jest.'))).toBe(true);
    const writes = transcripts.flatMap(toolEvents).filter((e) => e.use?.name === 'Write').map((e) => e.use!.input);
    expect(writes.some((w) => w.file_path.endsWith('CHANGELOG.md') && w.content.includes('## Upcoming') && w.content.includes('🎉'))).toBe(true);
    expect(writes.some((w) => /tests\/\w+\.test\.ts$/.test(w.file_path) && w.content.includes('jest.fn'))).toBe(true);
    // the agent's proposed message in its reply starts with its habit
    const replies = transcripts.flatMap((f) => records(f)).filter((r) => r.type === 'assistant').map((r) => JSON.stringify(r.message));
    expect(replies.some((r) => r.includes('```\\nUpdate: '))).toBe(true);
  });

  it('holds the procedure in the tool calls: the failed command (is_error), then the one that worked', () => {
    const pairs = transcripts.map(toolEvents).filter((ev) => ev.some((e) => e.use?.input.command === 'npm test'));
    expect(pairs.length).toBeGreaterThan(0);
    for (const ev of pairs) {
      const failed = ev.findIndex((e) => e.use?.input.command === 'npm test');
      expect(ev[failed + 1].result?.is_error).toBe(true);
      const worked = ev.findIndex((e) => e.use?.input.command === 'pnpm vitest run');
      expect(worked).toBeGreaterThan(failed);
      expect(ev[worked + 1].result?.is_error).toBe(false);
    }
  });

  it('puts no hidden instance value in any transcript or commit', () => {
    const hidden = outcomeHidden(7, knobs.hiddenPerJob);
    const everything = [...transcripts.map((f) => fs.readFileSync(f, 'utf8')), ...repos.map((r) => git(r.dir, 'log', '-p', '--all', '--format=%H %an %ad%n%B'))].join('\n');
    for (const v of hiddenOnlyValues()) expect(everything).not.toContain(v);
    for (const h of hidden) {
      for (const v of h.verifiers) {
        if (v.verifier.kind !== 'text') continue;
        const value = String(v.verifier.check.value ?? '');
        // instance-valued verifiers (a PR number, a version, a function) hold values no transcript or commit holds
        if (/#\d{3}|v\d+\.\d+\.\d+|describe\('/.test(value)) expect(everything).not.toContain(value);
      }
    }
  });

  it('has verifiers the sim can pass from a skill alone: the oracle passes silent and procedural preferences, the empty skill none', async () => {
    const hidden = outcomeHidden(7, 4);
    const tester = createSimBackend({ seed: 10_007, role: 'target' });
    const empty = await scoreOutcomeArm(hidden, () => '', tester);
    const oracle = await scoreOutcomeArm(hidden, () => outcomeOracleSkill(), tester);
    expect(empty.perKind.silent).toBe(0);
    expect(oracle.perKind.silent).toBeGreaterThanOrEqual(0.8);
    // the sim target reports the commands it ran: a rule naming the command that works is followed
    expect(empty.perKind.procedural).toBe(0);
    expect(oracle.perKind.procedural).toBeGreaterThanOrEqual(0.75);
    expect(oracle.overall).toBeGreaterThan(empty.overall + 0.5);
  });

  it('finds a superseded value or a one-off in a skill, and nothing in the oracle', () => {
    expect(staleContent(outcomeOracleSkill())).toEqual({ superseded: [], oneOff: false });
    // a PR bound of 500 characters is no release-notes minimum of 500
    expect(staleContent('## PR descriptions\n- Keep it under 500 characters.').superseded).toEqual([]);
    expect(staleContent('- Release notes must be at least 500 characters.\n- Put it under `## Unreleased`.').superseded).toEqual(['changelog-heading', 'release-length']);
    // the note-taker keeps both sides of each changed mind and the one-off
    const verbatim = outcomeVerbatimSkill(sessions, 'ledgerline');
    expect(staleContent(verbatim)).toEqual({ superseded: ['changelog-heading', 'release-length'], oneOff: true });
  });
});

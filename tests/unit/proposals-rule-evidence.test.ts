/**
 * Issue 41, evidence per rule in the review: each rule of a staged proposal carries what the user
 * did that supports it ("you changed `Handle` to `fix(cli):` in 3 of 3 commits (a1b2c3d, Nov 12)",
 * "`npm test` failed in 3 sessions; `pnpm vitest run` worked"), computed at staging from the tasks'
 * kept outcomes and procedures, stored in the proposal record and shown in the TUI's view.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { makeTask } from '../helpers/tasks.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import type { KeptOutcome, Procedure, SkillTarget } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { getProposal } from '../../src/store/repos/proposals.js';
import { upsertTask } from '../../src/store/repos/tasks.js';
import { managedSkillTarget, scaffoldSkill } from '../../adapters/skills-registry.js';
import { ruleEvidence, rulesOf } from '../../src/mine/kept/rule-evidence.js';
import { evidenceLines } from '../../src/tui/evidence-model.js';
import { plainText } from '../../src/tui/components/Line.js';

const DAY = 86_400_000;
const NOV = Date.UTC(2026, 10, 10, 12);
const kept = (i: number, scope: string, subject: string): KeptOutcome => ({
  kind: 'commit_message',
  agent: `${subject[0].toUpperCase()}${subject.slice(1)}\n\nBody.`,
  kept: `fix(${scope}): ${subject}\n\nBody.\n\nRefs: #${400 + i}`,
  commit: `a1b2c3d${i}e5f60`.slice(0, 12),
  at: NOV + i * DAY,
  session: `s${i}`,
});
const KEPT = [kept(0, 'cli', 'handle empty config'), kept(1, 'store', 'close the db'), kept(2, 'cli', 'skip damaged lines')];
const PROCS: Procedure[] = [{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', sessions: 3, at: NOV }];
const SKILL = [
  '## When writing a commit message',
  '- Start the subject with a conventional prefix, e.g. `fix(cli): handle empty input`.',
  '- Write the subject in lower case.',
  '- End with a `Refs: #<pr>` trailer.',
  '- Run the tests with `pnpm vitest run`.',
  '- Keep it friendly.',
].join('\n');

describe('ruleEvidence (pure)', () => {
  it('matches each rule to a property by the literal it names, with counts and provenance', () => {
    const ev = ruleEvidence(rulesOf(SKILL), KEPT, PROCS);
    const by = Object.fromEntries(ev.map((r) => [r.rule, r.evidence.map((e) => e.text)]));
    expect(by['Start the subject with a conventional prefix, e.g. `fix(cli): handle empty input`.']).toEqual(['you changed `Skip` to `fix(cli):` in 3 of 3 commits (a1b2c3d, Nov 12)']);
    expect(by['Write the subject in lower case.']).toEqual(['you lower-cased the subject (`Skip` → `skip`) in 3 of 3 commits (a1b2c3d, Nov 12)']);
    expect(by['End with a `Refs: #<pr>` trailer.']).toEqual(['you added the trailer `Refs: #402` in 3 of 3 commits (a1b2c3d, Nov 12)']);
    expect(by['Run the tests with `pnpm vitest run`.']).toEqual(['`npm test` failed in 3 sessions; `pnpm vitest run` worked']);
    // a command named without its runner still matches its procedure
    const lint: Procedure = { failed: 'npm run lint', worked: 'npx eslint --cache .', purpose: 'lint', sessions: 2, at: NOV };
    expect(ruleEvidence(['Before committing, run the linter with `eslint --cache`.'], [], [lint])[0].evidence[0].text).toBe('`npm run lint` failed in 2 sessions; `npx eslint --cache .` worked');
    expect(ruleEvidence(['Run eslint.'], [], [lint])).toEqual([]);
    // a rule with nothing behind it is left out
    expect(by['Keep it friendly.']).toBeUndefined();
    expect(ev.find((r) => r.rule.startsWith('End with'))!.evidence[0]).toMatchObject({ kind: 'trailer', literal: 'Refs:', changed: 3, of: 3, commits: ['a1b2c3d2e5f6', 'a1b2c3d1e5f6', 'a1b2c3d0e5f6'] });
  });
});

describe('staging stores the evidence per rule; the review shows it', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  it('from the kept outcomes of every task of the families the proposal was scored on', () => {
    const root = makeTempDir('sos-rule-evidence-');
    const project = path.join(root, 'proj');
    fs.mkdirSync(path.join(project, '.git'), { recursive: true });
    const env: NodeJS.ProcessEnv = { HOME: path.join(root, 'home'), SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex') };
    const paths = resolvePaths({ env });
    const db = openDb(paths.database);
    cleanups.push(() => {
      db.close();
      fs.rmSync(root, { recursive: true, force: true });
    });
    markProjectSeen(db, project);
    const judge = { checks: [], reference: { kind: 'rule' as const } };
    // the train tasks hold the evidence; the proposal's per-task scores name only the val task
    KEPT.forEach((k, i) => upsertTask(db, makeTask({ id: `t${i}`, intent: 'write the commit message', judge, split: 'train', family: 'cl_commit', kept: [k], procedures: [{ ...PROCS[0], sessions: 1 }] }), { clusterId: 'cl_commit' }));
    upsertTask(db, makeTask({ id: 'tv', intent: 'write the commit message', judge, split: 'val', family: 'cl_commit' }), { clusterId: 'cl_commit' });
    const target: SkillTarget = managedSkillTarget({ project, env }, { agentsUsed: ['claude-code'] });
    const start = scaffoldSkill(target.name, 'Learned rules for proj');
    const p = stageProposal(db, paths, {
      target,
      baseContent: null,
      startContent: start,
      candidate: `${start.trimEnd()}\n\n${SKILL}\n`,
      runId: 'r1',
      result: { accepted: true, baselineScore: 0.2, candidateScore: 0.9, perTask: [{ taskId: 'tv', split: 'val', before: 0.2, after: 0.9 }], edits: [] },
      now: NOV + 5 * DAY,
    });
    const stored = getProposal(db, p.id)!;
    expect(stored.ruleEvidence?.map((r) => r.rule)).toEqual([
      'Start the subject with a conventional prefix, e.g. `fix(cli): handle empty input`.',
      'Write the subject in lower case.',
      'End with a `Refs: #<pr>` trailer.',
      'Run the tests with `pnpm vitest run`.',
    ]);
    expect(stored.ruleEvidence![3].evidence[0].text).toBe('`npm test` failed in 3 sessions; `pnpm vitest run` worked');

    const text = evidenceLines(stored, { tasks: {}, refs: {} }, new Set(), 0, 120, NOV + 6 * DAY).lines.map(plainText).join('\n');
    expect(text).toContain('Rules and what you did (4)');
    expect(text).toContain('rule "End with a `Refs: #<pr>` trailer."');
    expect(text).toContain('kept › you changed `Skip` to `fix(cli):` in 3 of 3 commits (a1b2c3d, Nov 12)');
  });
});

/**
 * Seeds a sandbox with real staged proposals for the review TUI's end-to-end test and benchmark:
 * live SKILL.md files in a fake project, proposals staged through the trainer's own `stageProposal`
 * (row + proposals/<id>/ folder), validation tasks, a ledger of last night's calls, and cached
 * rollouts for one edit subset (as leave-one-out attribution leaves them) so a partial apply can be
 * re-scored from the cache.
 */
import { markProjectSeen } from './seen-project.js';
import fs from 'node:fs';
import path from 'node:path';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import type { EditRecord, Proposal, SkillTarget, Task } from '../../src/core/records.js';
import { stageProposal } from '../../src/proposals/staging.js';
import { applyEdits } from '../../src/skilldoc/edits.js';
import { contentForEdits } from '../../src/proposals/partial.js';
import { addOccurrences, upsertTask } from '../../src/store/repos/tasks.js';
import { makeTask } from './tasks.js';
import { recordEgress } from '../../src/llm/ledger.js';
import { createRun, updateRun } from '../../src/store/repos/runs.js';
import { skillHash } from '../../src/replay/index.js';
import { sha256 } from '../../src/core/fsutil.js';

export interface SeededSkill {
  name: string;
  file: string;
  base: string;
  proposal: Proposal;
}

function skillDoc(name: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${name} conventions for this project.\n---\n# ${name}\n\n${body}\n`;
}

function edit(id: string, anchor: string, content: string, rationale: string, evidence: string[], effect: number): EditRecord {
  return { id, op: 'add', anchor, content, rationale, evidence, status: 'accepted', effect };
}

function task(id: string, intent: string, split: Task['split'], corrections: string[] = []): Task {
  return makeTask({ id, intent, judge: { checks: [], reference: { kind: 'rule' } }, split, occurrences: 4, firstSeen: Date.now() - 86_400_000, lastSeen: Date.now(), corrections, agents: ['claude-code'] });
}

export function seedReview(env: NodeJS.ProcessEnv, projectDir: string, opts: { extraProposals?: number; now?: number } = {}): SeededSkill[] {
  const paths = resolvePaths({ env });
  const db = openDb(paths.database);
  const now = opts.now ?? Date.now();
  try {
    markProjectSeen(db, projectDir);
    fs.mkdirSync(path.join(projectDir, '.git'), { recursive: true }); // proposals write only into git work trees
    for (const t of [
      task('t-val-a', 'write a changelog entry for the parser fix', 'val', ['no, Keep a Changelog format']),
      task('t-val-b', 'add a changelog line that links the PR', 'val', ['link the PR']),
      task('t-test-a', 'changelog for the 2.0 release', 'test'),
    ])
      upsertTask(db, t, { now });
    addOccurrences(db, [
      { taskId: 't-val-a', sessionId: 'claude-code:sess-1', eventSeq: 3, ts: now - 26 * 3600_000, prompt: 'add a changelog entry for the parser fix', outcome: { corrections: ['use Keep a Changelog sections'] } },
      { taskId: 't-val-a', sessionId: 'claude-code:sess-2', eventSeq: 7, ts: now - 20 * 3600_000, prompt: 'changelog entry please, the usual format', outcome: {} },
    ]);
    createRun(db, { id: 'run-night-1', kind: 'night', dir: paths.runsDir, record: {}, startedAt: now - 5 * 3600_000 });
    updateRun(db, 'run-night-1', { status: 'done', endedAt: now - 3 * 3600_000 });
    for (let i = 0; i < 41; i++) {
      recordEgress(db, { ts: now - 4 * 3600_000 + i, runId: 'run-night-1', role: 'target', backend: 'claude', model: 'sonnet', destination: 'claude', bytesSent: 4000, redactions: 0, contentHash: sha256(String(i)), tokensIn: 900, tokensOut: 300, costUsd: 0, ok: true, error: null });
    }

    const specs = [
      {
        name: 'changelog',
        body: '## Format\nWrite one line per change.\n\n## Links\nMention the issue.',
        edits: [
          edit('e1', 'Write one line per change.', 'Use the Keep a Changelog sections: Added, Changed, Fixed.', 'The user corrected the agent to use Keep a Changelog', ['t-val-a'], 0.3),
          edit('e2', 'Mention the issue.', 'Link the pull request as [#123](url).', 'The user asked to link the PR', ['t-val-b'], 0.15),
        ],
        createdAt: now - 3 * 3600_000,
      },
      {
        name: 'vitest-style',
        body: '## Tests\nUse describe and it.',
        edits: [edit('e1', 'Use describe and it.', 'Prefer it.each for tables of cases.', 'Seen in 3 sessions', ['t-val-a'], 0.1)],
        createdAt: now - 3 * 3600_000 - 1000,
      },
      {
        name: 'release-notes',
        body: '## Sections\nStart with a summary.\n\n## Credits\nThank contributors.',
        edits: [
          edit('e1', 'Start with a summary.', 'KEEP-THIS: list breaking changes first.', 'Breaking changes were missed twice', ['t-val-a'], 0.2),
          edit('e2', 'Thank contributors.', 'DROP-THIS: add a haiku at the end.', 'Not clearly useful', ['t-val-b'], 0.0),
        ],
        createdAt: now - 3 * 3600_000 - 2000,
      },
    ];
    for (let i = 0; i < (opts.extraProposals ?? 0); i++) {
      specs.push({ name: `extra-${String(i).padStart(2, '0')}`, body: '## Notes\nKeep it short.', edits: [edit('e1', 'Keep it short.', `Extra rule ${i}.`, 'filler', [], 0.05)], createdAt: now - 10 * 86_400_000 - i * 60_000 });
    }

    const out: SeededSkill[] = [];
    for (const s of specs) {
      const file = path.join(projectDir, '.claude', 'skills', s.name, 'SKILL.md');
      const base = skillDoc(s.name, s.body);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, base);
      const candidate = applyEdits(base, s.edits, { scope: 'document' }).content;
      const target: SkillTarget = { agent: 'claude-code', path: file, name: s.name, kind: 'skill', readBy: ['claude-code', 'copilot'], project: projectDir };
      const proposal = stageProposal(db, paths, {
        target,
        baseContent: base,
        candidate,
        editScope: 'document',
        result: {
          accepted: true,
          baselineScore: 0.4,
          candidateScore: 0.85,
          perTask: [
            { taskId: 't-val-a', split: 'val', before: 0.3, after: 0.9 },
            { taskId: 't-val-b', split: 'val', before: 0.5, after: 0.8 },
          ],
          edits: s.edits,
          gateTrials: [{ trial: 1 }],
          notes: [],
        },
        runId: 'run-night-1',
        nightId: 'night-1',
        test: { before: 0.5, after: 0.83, perTask: [{ taskId: 't-test-a', before: 0.5, after: 0.83 }] },
        budget: { usd: 0, tokens: 48_000, calls: 41 },
        backends: { target: { backend: 'claude', model: 'sonnet' }, optimizer: { backend: 'claude', model: 'opus' } },
        // the shape night.ts writes: the plan (with the corrections trained on), then steps and epochs
        evidence: [
          { stage: 'plan', routedBy: 'skill invocations in transcripts', tasks: ['t-val-a', 't-val-b'], corrections: [{ taskId: 't-val-b', correction: 'the PR link goes at the end' }] },
          { stage: 'step', epoch: 1, step: 1 },
          { stage: 'epoch', epoch: 1 },
        ],
        now: s.createdAt,
      });
      out.push({ name: s.name, file, base, proposal });
    }

    // the subset "release-notes without e2" was scored during attribution: cached rollouts exist
    const rn = out.find((s) => s.name === 'release-notes')!;
    const subset = contentForEdits(rn.proposal, ['e1']);
    const put = db.prepare('INSERT INTO rollouts (cache_key, task_id, skill_hash, record, created_at) VALUES (?, ?, ?, ?, ?)');
    for (const [taskId, score] of [
      ['t-val-a', 0.9],
      ['t-val-b', 0.74],
    ] as const) {
      const rollout = { taskId, skillHash: skillHash(subset), sample: 0, backend: 'claude', model: 'sonnet', response: 'ok', toolsCalled: [], hardScore: score, softScore: score, checks: [], feedback: '', tokensIn: 0, tokensOut: 0, costUsd: 0, latencyMs: 0, cached: false };
      put.run(`seed-${taskId}`, taskId, skillHash(subset), JSON.stringify(rollout), now);
    }
    return out;
  } finally {
    db.close();
  }
}

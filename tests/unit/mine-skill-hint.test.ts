/**
 * Mining routes a recurring ask to the skill the user already uses for it: the adapters record
 * which skill a turn invoked (`meta.skill`), mining collects them per ask (`outcome.skills`), a
 * family takes the skill invoked in at least half of its asks (and at least two) as `skillHint`,
 * and the night plan sends its tasks to that existing skill.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import type { SkillTarget, Task } from '../../src/core/records.js';
import { OUTCOME_VERSION, runMining } from '../../src/mine/index.js';
import { kvGet, kvSet } from '../../src/store/repos/kv.js';
import { extractIntents, skillsOf, type MinedEvent, type Outcome } from '../../src/mine/outcome.js';
import { familySkillHint } from '../../src/mine/family.js';
import type { StoredMember } from '../../src/mine/state.js';
import { getTask, listTasks } from '../../src/store/repos/tasks.js';
import { planNight } from '../../src/night/plan.js';
import { addSession } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { ClaudeParser } from '../../adapters/claude-code/parse.js';
import { CodexParser } from '../../adapters/codex/parse.js';
import { CopilotCliParser } from '../../adapters/copilot/cli-events.js';
import { claudeSlashCommand, codexInjectedSkills, skillFromToolInput } from '../../adapters/skill-signal.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function freshDb(): Db {
  const d = makeTempDir();
  dirs.push(d);
  return openDb(path.join(d, 'state', 'sleep.db'));
}
const T0 = Date.UTC(2026, 9, 1);
const DAY = 86_400_000;
const PROJECT = '/home/dana/src/ledgerline';

let seqN = 0;
function ev(p: Partial<MinedEvent> & Pick<MinedEvent, 'kind' | 'role'>): MinedEvent {
  return { seq: seqN++, ts: null, toolName: null, isError: false, text: '', meta: {}, ...p };
}

/** Sets the stored text/meta of a session's tool calls named `tool` (what an adapter wrote). */
function tagToolCalls(db: Db, sessionId: string, tool: string, text: string, meta: Record<string, unknown>): void {
  const n = db
    .prepare(`UPDATE events SET text = ?, meta = ? WHERE sid = (SELECT sid FROM sessions WHERE id = ?) AND kind = 'tool_call' AND tool_name = ?`)
    .run(text, JSON.stringify(meta), sessionId, tool).changes;
  if (n === 0) throw new Error(`no ${tool} call in ${sessionId}`);
}

describe('skillsOf (one event)', () => {
  it('reads meta.skill (one name or several)', () => {
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'Skill', meta: { skill: 'vitest-style' } }))).toEqual(['vitest-style']);
    expect(skillsOf(ev({ kind: 'prompt', role: 'user', text: 'x', meta: { skill: ['a', 'b'] } }))).toEqual(['a', 'b']);
  });

  it('falls back to the stored input of events harvested before meta.skill was recorded', () => {
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'Skill', text: '{"skill":"vitest-style","args":"x"}' }))).toEqual(['vitest-style']);
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'Skill', text: 'keep-a-changelog' }))).toEqual(['keep-a-changelog']);
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'SlashCommand', text: '/review-pr 123' }))).toEqual(['review-pr']);
    // Codex opens the skills it uses by reading their SKILL.md
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'exec_command', text: 'sed -n 1,200p /home/dana/.codex/skills/release-notes/SKILL.md' }))).toEqual([
      'release-notes',
    ]);
  });

  it('editing a skill document, or a plain tool call, is not using a skill', () => {
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'Edit', text: '/w/.claude/skills/vitest-style/SKILL.md' }))).toEqual([]);
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'Bash', text: "sed -i 's/a/b/' .claude/skills/x/SKILL.md" }))).toEqual([]);
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'Bash', text: 'npm test' }))).toEqual([]);
    expect(skillsOf(ev({ kind: 'tool_call', role: 'assistant', toolName: 'Skill', text: '{"skill":"../../etc/passwd"}' }))).toEqual([]);
  });
});

describe('extractIntents collects the skills of each ask', () => {
  it('a skill invoked in the turn (follow-ups included) belongs to that ask, not to the next one', () => {
    const intents = extractIntents([
      ev({ kind: 'prompt', role: 'user', text: 'add unit tests for parseAmount' }),
      ev({ kind: 'tool_call', role: 'assistant', toolName: 'Skill', meta: { skill: 'vitest-style' } }),
      ev({ kind: 'text', role: 'assistant', text: 'Added.', meta: { final: true } }),
      ev({ kind: 'prompt', role: 'user', text: 'use it.each for the separator cases', meta: { skill: 'table-tests' } }),
      ev({ kind: 'prompt', role: 'user', text: 'write a changelog entry for the rounding fix (#412)' }),
      ev({ kind: 'text', role: 'assistant', text: 'Done.', meta: { final: true } }),
    ]);
    expect(intents.map((i) => i.outcome.skills)).toEqual([['vitest-style', 'table-tests'], undefined]);
  });
});

const member = (skills: string[] | undefined, i: number): StoredMember => ({
  sessionId: `s${i}`,
  seq: 0,
  project: PROJECT,
  agent: 'claude-code',
  ts: i,
  similarity: 1,
  prompt: 'add unit tests',
  outcome: { tools: [], toolErrors: 0, final: '', reactions: [], label: 'unknown', ...(skills ? { skills } : {}) } as Outcome,
});

describe('familySkillHint', () => {
  it('is the skill invoked in at least half of the asks, and in at least two', () => {
    expect(familySkillHint([['vitest-style'], ['vitest-style'], undefined, undefined].map(member))).toBe('vitest-style');
    expect(familySkillHint([['vitest-style'], ['Vitest-Style'], ['other'], undefined].map(member))).toBe('vitest-style');
    expect(familySkillHint([['vitest-style'], ['vitest-style'], undefined, undefined, undefined].map(member))).toBeNull(); // 2 of 5
    expect(familySkillHint([['vitest-style'], undefined].map(member))).toBeNull(); // once is not a habit
    expect(familySkillHint([undefined, undefined, undefined].map(member))).toBeNull();
    // two skills both in every ask: deterministic (by name)
    expect(familySkillHint([['b', 'a'], ['a', 'b']].map(member))).toBe('a');
  });
});

describe('runMining sets skillHint from the transcripts, and the night routes it', () => {
  function corpus(db: Db): void {
    const testAsks = [
      'add unit tests for parseAmount: negative numbers, thousands separators',
      'write unit tests for formatAmount with negative numbers and separators',
      'add unit tests for parsePercent: negative numbers, thousands separators',
      'write unit tests for roundHalfEven with negative numbers',
    ];
    testAsks.forEach((user, i) =>
      addSession(db, { id: `claude-code:t${i}`, project: PROJECT, startedAt: T0 + i * DAY, turns: [{ user, tools: i < 3 ? ['Skill', 'Edit'] : ['Edit'] }] }),
    );
    // two sessions recorded by the adapter, one harvested before meta.skill existed (only its input)
    tagToolCalls(db, 'claude-code:t0', 'Skill', '{"skill":"vitest-style"}', { skill: 'vitest-style' });
    tagToolCalls(db, 'claude-code:t1', 'Skill', '{"skill":"vitest-style"}', { skill: 'vitest-style' });
    tagToolCalls(db, 'claude-code:t2', 'Skill', '{"skill":"vitest-style"}', {});
    const changelogAsks = [
      'write a changelog entry for the rounding fix (#412)',
      'add a changelog entry for the pagination fix in #77',
      'changelog entry for the timezone fix (#90) please',
    ];
    changelogAsks.forEach((user, i) =>
      addSession(db, { id: `claude-code:c${i}`, project: PROJECT, startedAt: T0 + (10 + i) * DAY, turns: [{ user, tools: i === 0 ? ['Skill'] : ['Read'] }] }),
    );
    // one invocation out of three asks: no habit
    tagToolCalls(db, 'claude-code:c0', 'Skill', '{"skill":"keep-a-changelog"}', { skill: 'keep-a-changelog' });
  }

  it('a family whose asks invoked a skill gets it as skillHint; a mixed one gets null', async () => {
    const db = freshDb();
    corpus(db);
    await runMining(db, defaultConfig(), { now: T0 + 30 * DAY });
    const tasks = listTasks(db);
    const tests = tasks.filter((t) => /unit tests/.test(t.intent));
    const changelog = tasks.filter((t) => /changelog/.test(t.intent));
    // (near-identical asks share an instance task: count the asks)
    expect(tests.reduce((n, t) => n + t.occurrences, 0)).toBe(4);
    expect(changelog.reduce((n, t) => n + t.occurrences, 0)).toBe(3);
    expect(new Set(tests.map((t) => t.family)).size).toBe(1);
    expect(new Set(changelog.map((t) => t.family)).size).toBe(1);
    // 3 of 4 asks invoked it (one only visible from the stored tool input); every instance of the family carries it
    expect(tests.length).toBeGreaterThan(1);
    expect(tests.every((t) => t.skillHint === 'vitest-style')).toBe(true);
    expect(changelog.every((t) => t.skillHint === null)).toBe(true);
    // persisted in the task record
    expect(getTask(db, tests[0].id)?.skillHint).toBe('vitest-style');
    // and the per-ask evidence is kept with the occurrence
    const stored = db.prepare("SELECT outcome FROM cluster_members WHERE session_id = 'claude-code:t2'").pluck().get() as string;
    expect((JSON.parse(stored) as Outcome).skills).toEqual(['vitest-style']);

    // the night sends the hinted family to the user's existing skill, the rest to the managed one
    const target = (name: string, kind: SkillTarget['kind'] = 'skill'): SkillTarget => ({
      agent: null,
      path: `${PROJECT}/.claude/skills/${name}/SKILL.md`,
      name,
      kind,
      readBy: ['claude-code'],
      project: PROJECT,
    });
    const plan = planNight({
      tasks,
      skillsByProject: new Map([[PROJECT, [target('vitest-style')]]]),
      managed: () => target('skillopt-sleep-learned', 'managed'),
      maxTasks: 60,
      minValTasks: 1,
    });
    const byName = Object.fromEntries(plan.items.map((i) => [i.target.name, i]));
    expect(byName['vitest-style'].routedBy).toBe('skill-hint');
    const routed = (i: (typeof plan.items)[number]) => [...i.tasks.train, ...i.tasks.val, ...i.tasks.test].map((t: Task) => t.id).sort();
    expect(routed(byName['vitest-style'])).toEqual(tests.map((t) => t.id).sort());
    expect(byName['skillopt-sleep-learned'].routedBy).toBe('managed');
    expect(routed(byName['skillopt-sleep-learned'])).toEqual(changelog.map((t) => t.id).sort());
  });

  it('the hint follows new evidence: a later session that tips the family over half sets it', async () => {
    const db = freshDb();
    const asks = ['write a changelog entry for the rounding fix (#412)', 'add a changelog entry for the pagination fix in #77', 'changelog entry for the timezone fix (#90)'];
    asks.forEach((user, i) => addSession(db, { id: `copilot:c${i}`, agent: 'copilot', project: PROJECT, startedAt: T0 + i * DAY, turns: [{ user, tools: i === 0 ? ['skill'] : ['view'] }] }));
    tagToolCalls(db, 'copilot:c0', 'skill', '{"skill":"keep-a-changelog"}', { skill: 'keep-a-changelog' });
    const first = await runMining(db, defaultConfig(), { now: T0 + 5 * DAY });
    expect(listTasks(db).map((t) => t.skillHint)).toEqual([null, null, null]);
    // the run says how often the agent loaded a skill for the asks it read (here Copilot's skill tool)
    expect(first.skillLoads).toEqual({ asks: 3, loaded: 1, bySkill: { 'keep-a-changelog': 1 } });
    addSession(db, {
      id: 'copilot:c3',
      agent: 'copilot',
      project: PROJECT,
      startedAt: T0 + 6 * DAY,
      turns: [{ user: 'write the changelog entry for the csv export fix (#93)', tools: ['skill'] }],
    });
    tagToolCalls(db, 'copilot:c3', 'skill', '{"skill":"keep-a-changelog"}', { skill: 'keep-a-changelog' });
    const second = await runMining(db, defaultConfig(), { now: T0 + 7 * DAY });
    expect(second.skillLoads).toEqual({ asks: 1, loaded: 1, bySkill: { 'keep-a-changelog': 1 } });
    const tasks = listTasks(db);
    expect(tasks.length).toBe(4);
    expect(tasks.every((t) => t.skillHint === 'keep-a-changelog')).toBe(true);
  });

  it('a store mined before outcomes recorded skills is re-read once, and its families get their hints', async () => {
    const db = freshDb();
    corpus(db);
    const first = await runMining(db, defaultConfig(), { now: T0 + 30 * DAY });
    expect(first.sessions).toBe(7);
    // what an older version left: no skills in the stored outcomes, no hints, outcome version 1
    db.prepare("UPDATE cluster_members SET outcome = json_remove(outcome, '$.skills')").run();
    db.prepare("UPDATE tasks SET record = json_set(record, '$.skillHint', json('null'))").run();
    kvSet(db, 'mine.outcomeVersion', 1);
    expect(listTasks(db).every((t) => t.skillHint === null)).toBe(true);

    const refresh = await runMining(db, defaultConfig(), { now: T0 + 31 * DAY });
    expect(refresh.sessions).toBe(7); // every session re-read, though none changed
    expect(kvGet(db, 'mine.outcomeVersion')).toBe(OUTCOME_VERSION);
    const tests = listTasks(db).filter((t) => /unit tests/.test(t.intent));
    expect(tests.length).toBeGreaterThan(0);
    expect(tests.every((t) => t.skillHint === 'vitest-style')).toBe(true);
    // once only
    expect((await runMining(db, defaultConfig(), { now: T0 + 32 * DAY })).sessions).toBe(0);
  });
});

describe('adapters record the skill a turn invoked (meta.skill)', () => {
  const SID = '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23';
  let u = 0;
  const row = (type: string, message: unknown, extra: object = {}) => ({
    type,
    uuid: `u${u++}`,
    sessionId: SID,
    timestamp: '2026-10-14T16:20:00.000Z',
    cwd: '/w',
    message,
    ...extra,
  });

  it('Claude Code: a Skill tool call, and a user slash command with arguments becomes the ask', () => {
    const p = new ClaudeParser(`/h/.claude/projects/-w/${SID}.jsonl`, undefined);
    const rows = [
      row('user', { role: 'user', content: 'add unit tests for parseAmount' }),
      row('assistant', { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Skill', input: { skill: 'vitest-style' } }] }),
      row('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Launching skill: vitest-style' }] }),
      row('user', { role: 'user', content: '<command-message>vitest-style is running…</command-message>\n<command-name>/vitest-style</command-name>\n<command-args>add tests for formatAmount</command-args>' }),
      row('user', { role: 'user', content: 'Base directory for this skill: /w/.claude/skills/vitest-style\n\n# Vitest style' }, { isMeta: true }),
      row('user', { role: 'user', content: '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>' }),
      row('user', { role: 'user', content: '<command-name>/vitest-style</command-name>\n<command-message>vitest-style</command-message>\n<command-args></command-args>' }),
    ];
    for (const r of rows) p.line(r as Record<string, unknown>);
    const out = p.flush();
    const prompts = out.events.filter((e) => e.kind === 'prompt');
    expect(prompts.map((e) => [e.text, e.meta.skill])).toEqual([
      ['add unit tests for parseAmount', undefined],
      ['add tests for formatAmount', 'vitest-style'],
    ]);
    expect(out.events.find((e) => e.kind === 'tool_call')?.meta.skill).toBe('vitest-style');
    expect(out.session?.promptCount).toBe(2);
  });

  it('Copilot CLI: a skill tool call; a skill the user invoked is put on the prompt', () => {
    const p = new CopilotCliParser('/h/.copilot/session-state/7d2f1c9e-4b3a-4e5d-9f60-8a1b2c3d4e5f/events.jsonl', undefined);
    const e = (type: string, data: object) => ({ type, data, id: `e${u++}`, timestamp: '2026-10-13T07:15:10.418Z' });
    for (const r of [
      e('user.message', { content: 'write a changelog entry for #412' }),
      e('assistant.message', { content: '', toolRequests: [{ toolCallId: 'c1', name: 'skill', arguments: { skill: 'keep-a-changelog' } }] }),
      e('tool.execution_complete', { toolCallId: 'c1', success: true, result: { content: 'Skill "keep-a-changelog" loaded.' } }),
      e('skill.invoked', { name: 'keep-a-changelog', path: '/w/.github/skills/keep-a-changelog/SKILL.md' }),
      e('user.message', { content: '/release-notes draft notes for v2.4.0' }),
      e('skill.invoked', { name: 'release-notes', path: '/w/.github/skills/release-notes/SKILL.md' }),
    ])
      p.line(r as Record<string, unknown>);
    const out = p.flush();
    expect(out.events.filter((x) => x.kind === 'prompt').map((x) => x.meta.skill)).toEqual([undefined, 'release-notes']);
    expect(out.events.find((x) => x.kind === 'tool_call')?.meta.skill).toBe('keep-a-changelog');
  });

  it('Codex: the <skill> item recorded after a prompt names the skill it mentioned', () => {
    const p = new CodexParser('/h/.codex/sessions/2026/10/20/rollout-2026-10-20T10-00-00-019a0000-0000-7000-8000-000000000001.jsonl', undefined);
    const env = (type: string, payload: object) => ({ timestamp: '2026-10-20T08:00:00.000Z', type, payload });
    const user = (text: string) => env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
    for (const r of [
      env('session_meta', { id: '019a0000-0000-7000-8000-000000000001', cwd: '/w', source: 'cli' }),
      user('$release-notes draft the notes for v2.4.0'),
      user('<skill>\n<name>release-notes</name>\n<path>/h/.codex/skills/release-notes/SKILL.md</path>\n# Release notes\n</skill>'),
      user('fix the flaky date test'),
    ])
      p.line(r as Record<string, unknown>);
    const out = p.flush();
    expect(out.events.filter((x) => x.kind === 'prompt').map((x) => [x.text, x.meta.skill])).toEqual([
      ['$release-notes draft the notes for v2.4.0', 'release-notes'],
      ['fix the flaky date test', undefined],
    ]);
  });

  it('helpers reject what is not a skill invocation', () => {
    expect(claudeSlashCommand('<command-name>/compact</command-name>\n<command-args></command-args>')).toBeNull();
    expect(claudeSlashCommand('please run <command-name>/vitest-style</command-name>')).toBeNull();
    expect(claudeSlashCommand('<command-name>/mcp__github__pr</command-name><command-args>12</command-args>')).toBeNull();
    expect(claudeSlashCommand('<command-name>/tools:lint</command-name><command-args>src</command-args>')).toEqual({ name: 'tools:lint', args: 'src' });
    expect(skillFromToolInput({ command: '/review-pr 123' })).toBe('review-pr');
    expect(skillFromToolInput({ skill: 'a b/c' })).toBe('a');
    expect(skillFromToolInput({ path: '/x' })).toBeNull();
    expect(codexInjectedSkills('<skill>\n<name>a</name>\n</skill>\n<skill>\n<name>b</name>\n</skill>')).toEqual(['a', 'b']);
  });
});

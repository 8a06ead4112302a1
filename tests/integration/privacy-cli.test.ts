/**
 * The user's controls over what the tool keeps, through the built binary: `export` (the store as
 * JSONL, redacted, ISO timestamps), `wipe` (asks first; one project, or everything: db and files
 * gone), `hooks install|remove` (the agents' settings files restored byte for byte) and
 * `uninstall` (units, hooks, state and config gone; asks first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { shapeProblems } from '../helpers/json-docs.js';
import { FIXTURE_PROJECT, fixtureHome } from '../helpers/fixtures.js';
import { openDb } from '../../src/store/db.js';

let sb: Sandbox;
const state = () => path.join(sb.home, 'state');
const db = () => path.join(state(), 'sleep.db');

function seedTranscripts(): void {
  fs.cpSync(fixtureHome('claude-code'), sb.env.CLAUDE_CONFIG_DIR!, { recursive: true });
  fs.cpSync(fixtureHome('codex'), sb.env.CODEX_HOME!, { recursive: true });
  // a second project, with a secret typed into a prompt
  const f = path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects/-w-other/99999999-0000-4000-8000-000000000009.jsonl');
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(
    f,
    JSON.stringify({ type: 'user', uuid: 'x1', sessionId: '99999999-0000-4000-8000-000000000009', cwd: '/w/other', timestamp: '2026-11-01T00:00:00Z', message: { role: 'user', content: 'deploy with AKIAIOSFODNN7EXAMPLE please' } }) + '\n',
  );
}

function count(sql: string, ...args: unknown[]): number {
  const d = openDb(db(), { readonly: true });
  try {
    return d.prepare(sql).pluck().get(...args) as number;
  } finally {
    d.close();
  }
}

beforeEach(() => {
  sb = makeSandbox({ SKILLOPT_SLEEP_UNIT_DIR: '' });
  sb.env.SKILLOPT_SLEEP_UNIT_DIR = path.join(sb.root, 'units');
  seedTranscripts();
  const h = runCli(['harvest'], sb.env);
  expect(h.status, h.stderr).toBe(0);
});
afterEach(() => sb.cleanup());

describe('export', () => {
  it('writes a $schema header then one {table,row} per line, redacted, with ISO timestamps', () => {
    const out = path.join(sb.root, 'out', 'store.jsonl');
    const r = runCli(['export', '--out', out], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { $schema?: string; exportedAt?: string; table?: string; row: Record<string, unknown> });
    expect(lines[0]!.$schema).toBe('skillopt-sleep/export@1');
    expect(lines[0]!.exportedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const sessions = lines.filter((l) => l.table === 'sessions');
    expect(sessions.length).toBe(count('SELECT count(*) FROM sessions'));
    expect(lines.filter((l) => l.table === 'events').length).toBe(count('SELECT count(*) FROM events'));
    expect(sessions[0]!.row.updated_at).toMatch(/Z$/);
    const text = fs.readFileSync(out, 'utf8');
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(text).toContain('[REDACTED');
    expect(r.stderr).toMatch(/wrote \d+ rows/);
  });

  it('--project keeps to that project', () => {
    const r = runCli(['export', '--project', '/w/other'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').slice(1).map((l) => JSON.parse(l) as { table: string; row: Record<string, unknown> });
    const sessions = rows.filter((l) => l.table === 'sessions');
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.row.project).toBe('/w/other');
    expect(rows.some((l) => l.table === 'ledger')).toBe(false);
  });
});

describe('wipe', () => {
  it('asks first: "2" (or no answer) deletes nothing', () => {
    const no = runCli(['wipe'], sb.env, { input: '2\n' });
    expect(no.status).toBe(1);
    expect(no.stderr).toMatch(/1 yes\n {2}2 no/);
    expect(no.stderr).toContain('nothing deleted');
    const eof = runCli(['wipe'], sb.env, { input: '' });
    expect(eof.status).toBe(1);
    expect(fs.existsSync(db())).toBe(true);
    expect(count('SELECT count(*) FROM sessions')).toBeGreaterThan(0);
  });

  it('--project deletes that project only, and what was read is not read back in', () => {
    const before = count('SELECT count(*) FROM sessions');
    const other = count("SELECT count(*) FROM sessions WHERE project = '/w/other'");
    expect(other).toBe(1);
    const r = runCli(['wipe', '--project', 'other', '--json'], sb.env, { input: '1\n' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { $schema: string; scope: string; project: string; deleted: { sessions: number } };
    expect(out).toMatchObject({ $schema: 'skillopt-sleep/wipe@1', scope: 'project', project: '/w/other', deleted: { sessions: 1 } });
    expect(count("SELECT count(*) FROM sessions WHERE project = '/w/other'")).toBe(0);
    expect(count('SELECT count(*) FROM sessions')).toBe(before - 1);
    expect(count("SELECT count(*) FROM events WHERE text LIKE '%deploy with%'")).toBe(0);
    const again = runCli(['harvest'], sb.env);
    expect(again.status, again.stderr).toBe(0);
    expect(count("SELECT count(*) FROM sessions WHERE project = '/w/other'")).toBe(0);
  });

  it('--project --exclude also keeps it out from now on', () => {
    const r = runCli(['wipe', '--project', FIXTURE_PROJECT, '--exclude', '--yes'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const cfg = JSON.parse(fs.readFileSync(path.join(sb.home, 'config.json'), 'utf8')) as { privacy: { excludeProjects: string[] } };
    expect(cfg.privacy.excludeProjects).toEqual([FIXTURE_PROJECT]);
    const reread = runCli(['harvest', '--reread'], sb.env);
    expect(reread.status, reread.stderr).toBe(0);
    expect(count('SELECT count(*) FROM sessions WHERE project = ?', FIXTURE_PROJECT)).toBe(0);
    expect(count("SELECT count(*) FROM sessions WHERE project = '/w/other'")).toBe(1);
  });

  it('an unknown project is an error that lists the known ones', () => {
    const r = runCli(['wipe', '--project', 'nope', '--yes'], sb.env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('/w/other');
  });

  it('everything: the database and the state files are gone, the config stays', () => {
    fs.mkdirSync(path.join(state(), 'proposals', 'p1'), { recursive: true });
    fs.writeFileSync(path.join(state(), 'proposals', 'p1', 'candidate.md'), 'x');
    runCli(['config', 'set', 'budget.maxCalls', '10'], sb.env);
    const r = runCli(['wipe', '--yes', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ $schema: 'skillopt-sleep/wipe@1', scope: 'all', ok: true });
    expect(fs.existsSync(db())).toBe(false);
    expect(fs.existsSync(`${db()}-wal`)).toBe(false);
    expect(fs.existsSync(state())).toBe(false);
    expect(fs.existsSync(path.join(sb.home, 'config.json'))).toBe(true);
  });
});

describe('hooks', () => {
  const claudeSettings = () => path.join(sb.env.CLAUDE_CONFIG_DIR!, 'settings.json');
  const codexHooks = () => path.join(sb.env.CODEX_HOME!, 'hooks.json');
  // a settings file with the user's own hooks, 4-space indent and no trailing newline
  const original = '{\n    "model": "opus",\n    "hooks": {\n        "SessionStart": [\n            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo mine"}]}\n        ]\n    }\n}';

  it('install adds the hook; remove restores the file byte for byte (and deletes the one it created)', () => {
    fs.writeFileSync(claudeSettings(), original);
    expect(fs.existsSync(codexHooks())).toBe(false);
    const inst = runCli(['hooks', 'install', '--json'], sb.env);
    expect(inst.status, inst.stderr).toBe(0);
    const res = JSON.parse(inst.stdout) as { $schema: string; hooks: Array<{ agent: string; status: string }> };
    expect(res.$schema).toBe('skillopt-sleep/hooks-install@1');
    expect(res.hooks.map((h) => [h.agent, h.status])).toEqual([
      ['claude-code', 'installed'],
      ['codex', 'installed'],
    ]);
    const settings = JSON.parse(fs.readFileSync(claudeSettings(), 'utf8')) as { model: string; hooks: { SessionStart: Array<{ hooks: Array<{ command: string }> }> } };
    expect(settings.model).toBe('opus');
    expect(settings.hooks.SessionStart).toHaveLength(2);
    expect(settings.hooks.SessionStart[0]!.hooks[0]!.command).toBe('echo mine');
    expect(settings.hooks.SessionStart[1]!.hooks[0]!.command).toMatch(/hooks nudge --agent claude-code --from-hook$/);
    expect(fs.readFileSync(claudeSettings(), 'utf8')).toContain('\n    "model"'); // the file's own indent
    // installing twice changes nothing
    const twice = runCli(['hooks', 'install'], sb.env);
    expect(twice.stdout).toMatch(/already/);
    expect((JSON.parse(fs.readFileSync(claudeSettings(), 'utf8')) as typeof settings).hooks.SessionStart).toHaveLength(2);

    const rm = runCli(['hooks', 'remove'], sb.env);
    expect(rm.status, rm.stderr).toBe(0);
    expect(fs.readFileSync(claudeSettings(), 'utf8')).toBe(original);
    expect(fs.existsSync(codexHooks())).toBe(false);
  });

  it('remove after the user edited the file takes out only our entry and keeps the rest', () => {
    fs.writeFileSync(claudeSettings(), original);
    expect(runCli(['hooks', 'install', '--agent', 'claude'], sb.env).status).toBe(0);
    const edited = JSON.parse(fs.readFileSync(claudeSettings(), 'utf8')) as Record<string, unknown>;
    edited.theme = 'dark';
    fs.writeFileSync(claudeSettings(), JSON.stringify(edited, null, 4));
    const rm = runCli(['hooks', 'remove', '--agent', 'claude'], sb.env);
    expect(rm.status, rm.stderr).toBe(0);
    expect(rm.stdout).toMatch(/changed the file since install/);
    const after = JSON.parse(fs.readFileSync(claudeSettings(), 'utf8')) as { theme: string; hooks: { SessionStart: unknown[] } };
    expect(after.theme).toBe('dark');
    expect(after.hooks.SessionStart).toEqual([{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo mine' }] }]);
  });

  it('an agent never used here (no home folder) gets no settings file, unless named with --agent', () => {
    fs.rmSync(sb.env.CODEX_HOME!, { recursive: true, force: true });
    const r = runCli(['hooks', 'install', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const hooks = (JSON.parse(r.stdout) as { hooks: Array<{ agent: string; status: string }> }).hooks;
    expect(hooks.find((h) => h.agent === 'codex')?.status).toBe('skipped');
    expect(fs.existsSync(codexHooks())).toBe(false);
    expect(runCli(['hooks', 'install', '--agent', 'codex'], sb.env).status).toBe(0);
    expect(fs.existsSync(codexHooks())).toBe(true);
  });

  it('a settings file that is not JSON is refused and left alone', () => {
    fs.writeFileSync(claudeSettings(), '{ broken');
    const r = runCli(['hooks', 'install', '--agent', 'claude-code'], sb.env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(fs.readFileSync(claudeSettings(), 'utf8')).toBe('{ broken');
  });

  it('the hook prints one line when proposals wait and nothing when none do', () => {
    expect(runCli(['hooks', 'install', '--agent', 'claude-code'], sb.env).status).toBe(0);
    const settings = JSON.parse(fs.readFileSync(claudeSettings(), 'utf8')) as { hooks: { SessionStart: Array<{ hooks: Array<{ command: string }> }> } };
    const command = settings.hooks.SessionStart[0]!.hooks[0]!.command;
    const args = command.match(/"[^"]*"|\S+/g)!.map((a) => a.replace(/^"|"$/g, ''));
    const runHook = () => runCli(args.slice(2), sb.env);
    const none = runHook();
    expect(none.status).toBe(0);
    expect(none.stdout).toBe('');
    const d = openDb(db());
    const rec = (id: string) => ({ id, runId: null, skillTarget: { agent: null, path: `/w/other/.claude/skills/x${id}/SKILL.md`, name: 'x', kind: 'managed', readBy: [], project: '/w/other' }, baseHash: '', candidate: 'c', diff: '', baselineScore: 0, candidateScore: 1, perTask: [], edits: [], status: 'staged', createdAt: Date.now(), dir: '/nonexistent' });
    for (const id of ['p1', 'p2']) d.prepare("INSERT INTO proposals(id, run_id, skill_path, skill_name, status, created_at, record) VALUES (?, NULL, ?, 'x', 'staged', ?, ?)").run(id, `/w/other/${id}`, Date.now(), JSON.stringify(rec(id)));
    d.close();
    const two = runHook();
    expect(two.status).toBe(0);
    expect(JSON.parse(two.stdout)).toEqual({ systemMessage: '2 skill proposals waiting: skillopt-sleep review', suppressOutput: true });
    const plain = runCli(['hooks', 'nudge'], sb.env);
    expect(plain.stdout).toBe('2 skill proposals waiting: skillopt-sleep review\n');
  });
});

describe('uninstall', () => {
  it('asks first, then removes the service unit, the hooks, state and config', () => {
    const claudeSettings = path.join(sb.env.CLAUDE_CONFIG_DIR!, 'settings.json');
    fs.writeFileSync(claudeSettings, '{"model": "opus"}\n');
    expect(runCli(['schedule', 'install', '--kind', 'systemd'], sb.env).status).toBe(0);
    expect(runCli(['hooks', 'install'], sb.env).status).toBe(0);
    const unit = path.join(sb.env.SKILLOPT_SLEEP_UNIT_DIR!, 'skillopt-sleep.service');
    expect(fs.existsSync(unit)).toBe(true);
    const no = runCli(['uninstall'], sb.env, { input: '2\n' });
    expect(no.status).toBe(1);
    expect(no.stderr).toContain(`remove the systemd service ${unit}`);
    expect(fs.existsSync(unit)).toBe(true);
    const yes = runCli(['uninstall', '--json'], sb.env, { input: '1\n' });
    expect(yes.status, yes.stderr).toBe(0);
    expect(shapeProblems(JSON.parse(yes.stdout), 'uninstall')).toEqual([]);
    expect(fs.existsSync(unit)).toBe(false);
    expect(fs.readFileSync(claudeSettings, 'utf8')).toBe('{"model": "opus"}\n');
    expect(fs.existsSync(path.join(sb.env.CODEX_HOME!, 'hooks.json'))).toBe(false);
    expect(fs.existsSync(sb.home)).toBe(false);
  });
});

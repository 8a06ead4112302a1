/** `skillopt-sleep harvest`, `sessions list|show` and the doctor probe, through the built binary. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { fixtureHome } from '../helpers/fixtures.js';

let sb: Sandbox;
beforeAll(() => {
  sb = makeSandbox();
  fs.cpSync(fixtureHome('claude-code'), sb.env.CLAUDE_CONFIG_DIR!, { recursive: true });
  fs.cpSync(fixtureHome('codex'), sb.env.CODEX_HOME!, { recursive: true });
  fs.cpSync(fixtureHome('copilot-cli'), sb.env.COPILOT_HOME!, { recursive: true });
  // a secret in a prompt must never reach the store
  const f = path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects/-w/99999999-0000-4000-8000-000000000009.jsonl');
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(
    f,
    JSON.stringify({ type: 'user', uuid: 'x1', sessionId: '99999999-0000-4000-8000-000000000009', cwd: '/w', timestamp: '2026-11-01T00:00:00Z', message: { role: 'user', content: 'deploy with AKIAIOSFODNN7EXAMPLE please' } }) + '\n',
  );
});
afterAll(() => sb.cleanup());

describe('harvest and sessions commands', () => {
  it('harvest --json prints the summary', () => {
    const r = runCli(['harvest', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { files: number; sessions: number; sessionsByKind: Record<string, number>; prompts: number; redactions: number; errors: unknown[] };
    expect(s.files).toBe(12);
    expect(s.sessions).toBe(12);
    expect(s.sessionsByKind.subagent).toBe(2);
    expect(s.redactions).toBe(1);
    expect(s.errors).toEqual([]);
  });

  it('harvest prints a readable summary; a second run reads nothing', () => {
    const r = runCli(['harvest', '--agent', 'codex'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/files\s+4 seen, 0 read/);
    expect(r.stdout).toMatch(/skipped\s+none/);
    const again = runCli(['harvest', '--agent', 'codex', '--reread'], sb.env);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/files\s+4 seen, 4 read/);
    expect(again.stdout).toMatch(/sessions\s+\d+ updated .*, 0 new/);
  });

  it('sessions list filters by agent and kind', () => {
    const r = runCli(['sessions', 'list', '--agent', 'codex', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const rows = (JSON.parse(r.stdout) as { sessions: Array<{ id: string; kind: string }> }).sessions;
    expect(rows.map((x) => x.id).sort()).toEqual([
      'codex:01a13448-894e-75f1-ae9c-511bd56efd1b',
      'codex:01a13449-7354-74ad-b3df-22c4bc9ea598',
      'codex:01a13fef-3d0b-7735-afdb-86863e345c95',
      'codex:33015626-48e4-4ce0-9948-2e2b765efdc4',
    ]);
    const subs = (JSON.parse(runCli(['sessions', 'list', '--kind', 'subagent', '--json'], sb.env).stdout) as { sessions: unknown[] }).sessions;
    expect(subs).toHaveLength(2);
    const bad = runCli(['sessions', 'list', '--kind', 'nope'], sb.env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown kind/);
  });

  it('sessions show prints events, by id prefix, with redacted text', () => {
    const r = runCli(['sessions', 'show', '5f0c2b7e'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('claude-code:5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860');
    expect(r.stdout).toMatch(/USER\s+Write a changelog entry/);
    expect(r.stdout).toMatch(/ERROR\s+\[Bash\]/);
    const s = JSON.parse(runCli(['sessions', 'show', '99999999', '--json'], sb.env).stdout) as { events: Array<{ text: string }> };
    expect(s.events[0].text).toBe('deploy with [REDACTED:aws-access-key] please');
    const missing = runCli(['sessions', 'show', 'nope'], sb.env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no session "nope"/);
  });

  it('doctor lists the transcript roots with session file counts', () => {
    const r = runCli(['doctor', '--json'], sb.env);
    const d = JSON.parse(r.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
    const claude = d.checks.find((c) => c.name === 'transcripts:claude-code');
    expect(claude?.detail).toMatch(/5 session files/);
    expect(d.checks.find((c) => c.name === 'transcripts:copilot')?.status).toBe('ok');
    expect(d.checks.find((c) => c.name === 'transcript files')).toMatchObject({ status: 'ok', detail: 'every harvested file was readable' });
  });

  it('doctor names a transcript file the harvest could not use', () => {
    const env = { ...sb.env, SKILLOPT_SLEEP_HOME: path.join(sb.root, 'home-bad-zst') };
    const bad = path.join(sb.env.CODEX_HOME!, 'sessions', '2026', '10', '14', 'rollout-2026-10-14T09-00-00-01a13448-0000-7000-8000-0000000000ff.jsonl.zst');
    fs.mkdirSync(path.dirname(bad), { recursive: true });
    fs.writeFileSync(bad, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x01, 0x02, 0x03]));
    try {
      expect(runCli(['harvest', '--json'], env).status).toBe(0);
      const d = JSON.parse(runCli(['doctor', '--json'], env).stdout) as { checks: Array<{ name: string; status: string; detail: string; fix?: string }> };
      const files = d.checks.find((c) => c.name === 'transcript files');
      expect(files?.status).toBe('warn');
      expect(files?.detail).toContain(bad);
      expect(files?.fix).toMatch(/skipped until it changes/);
    } finally {
      fs.rmSync(bad);
    }
  });

  it('worker threads give the same result as parsing inline', () => {
    const env = { ...sb.env, SKILLOPT_SLEEP_HOME: path.join(sb.root, 'home-workers'), SKILLOPT_SLEEP_HARVEST_WORKERS: '2' };
    const r = runCli(['harvest', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { workers: number; sessions: number; events: number; prompts: number; toolErrors: number; redactions: number };
    expect(s.workers).toBe(2);
    const inline = JSON.parse(runCli(['harvest', '--json'], { ...sb.env, SKILLOPT_SLEEP_HOME: path.join(sb.root, 'home-inline'), SKILLOPT_SLEEP_HARVEST_WORKERS: '0' }).stdout) as typeof s;
    expect(inline.workers).toBe(0);
    expect({ ...s, workers: 0, durationMs: 0 }).toMatchObject({ sessions: inline.sessions, events: inline.events, prompts: inline.prompts, toolErrors: inline.toolErrors, redactions: inline.redactions });
  });

  it('rejects a bad --since', () => {
    const r = runCli(['harvest', '--since', 'soon'], sb.env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/invalid duration/);
  });
});

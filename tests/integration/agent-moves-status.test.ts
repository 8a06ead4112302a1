/**
 * "Say when an agent went quiet", through the built CLI: `status --json` and the status text name
 * Gemini CLI's move to Antigravity CLI (with the new folder) and the store that cannot be read; a
 * night's report (here a dry run's) carries the same notes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import type { Session } from '../../src/core/records.js';
import { openDb, type Db } from '../../src/store/db.js';
import { upsertSession } from '../../src/store/repos/sessions.js';
import { agentNotices } from '../../src/harvest/agent-moves.js';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

const DAY = 86_400_000;
const config = () => ConfigSchema.parse({});

let sb: Sandbox | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  sb?.cleanup();
  db = null;
  sb = null;
});

function session(agent: Session['agent'], id: string, endedAt: number): Session {
  return { id: `${agent}:${id}`, agent, vendorId: id, project: '/p', cwd: '/p', startedAt: endedAt - 60_000, endedAt, kind: 'interactive', file: `/f/${id}`, promptCount: 1, toolErrorCount: 0 };
}

function setup(): { agyHome: string } {
  sb = makeSandbox();
  db = openDb(resolvePaths({ env: sb.env }).database);
  return { agyHome: path.join(sb.env.HOME!, '.gemini', 'antigravity-cli') };
}

describe('status and the night report on an agent that went quiet', () => {
  it('status --json and the status text name the move and the unreadable store; a night report carries both', () => {
    const { agyHome } = setup();
    fs.mkdirSync(path.join(agyHome, 'brain'), { recursive: true });
    fs.mkdirSync(path.join(agyHome, 'conversations'), { recursive: true });
    fs.writeFileSync(path.join(agyHome, 'conversations', 'c0ffee00-0000-4000-8000-000000000001.db'), '');
    upsertSession(db!, session('gemini', 'g1', Date.now() - 40 * DAY));
    db!.close();
    db = null;
    // status shows what the last full harvest pass found (computing it loads every agent record)
    expect(runCli(['status', '--json'], sb!.env).stdout).toContain('"agentNotices": []');
    const h = runCli(['harvest'], sb!.env);
    expect(h.status, h.stderr).toBe(0);
    const r = runCli(['status', '--json'], sb!.env);
    expect(r.status, r.stderr).toBe(0);
    const notices = (JSON.parse(r.stdout) as { agentNotices: Array<{ kind: string; agent: string; movedTo?: string; location?: string; detail: string }> }).agentNotices;
    expect(notices.map((n) => [n.kind, n.agent, n.movedTo ?? null])).toEqual([
      ['went-quiet', 'gemini', 'antigravity'],
      ['unreadable', 'antigravity', null],
    ]);
    expect(notices[0].location).toBe(path.join(agyHome, 'brain'));
    expect(notices[1].detail).toContain('protobuf without a published schema');
    const text = runCli(['status'], sb!.env).stdout;
    expect(text).toMatch(/^moved: +Gemini CLI went quiet: its last transcript is from \d{4}-\d\d-\d\d \(40 days ago\), and Antigravity CLI appeared at /m);
    expect(text).toMatch(/^unreadable: +1 Antigravity CLI conversation in /m);
    // doctor warns of the move among the transcript lines
    const doc = JSON.parse(runCli(['doctor', '--json'], sb!.env).stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
    expect(doc.checks.find((c) => c.name === 'store:gemini')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^Gemini CLI went quiet/) });
    // the night report (here a dry run's) says the same
    db = openDb(resolvePaths({ env: sb!.env }).database);
    const night = agentNotices(db, config(), sb!.env).map((n) => n.detail);
    db.close();
    db = null;
    const dry = runCli(['night', '--dry-run', '--backend', 'sim', '--json'], sb!.env);
    expect(dry.status, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { notes: string[] }).notes).toEqual(expect.arrayContaining(night));
  });
});

/**
 * "Say when an agent went quiet": Gemini CLI's transcripts stopped while Antigravity CLI (its
 * successor in the registry) is installed or harvested — `agentMoves` names the move and the new
 * location; nothing is said while Gemini CLI is still active, or when no successor is there. The
 * CLI side (status, the night report) is tests/integration/agent-moves-status.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import type { Session } from '../../src/core/records.js';
import { openDb, type Db } from '../../src/store/db.js';
import { upsertSession } from '../../src/store/repos/sessions.js';
import { agentMoves, QUIET_DAYS } from '../../src/harvest/agent-moves.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-07-01T12:00:00Z');
const config = (antigravity = true) => ConfigSchema.parse({ agents: { antigravity: { enabled: antigravity } } });

let sb: Sandbox | null = null;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  sb?.cleanup();
  db = null;
  sb = null;
});

function session(agent: Session['agent'], id: string, endedAt: number, kind: Session['kind'] = 'interactive'): Session {
  return { id: `${agent}:${id}`, agent, vendorId: id, project: '/p', cwd: '/p', startedAt: endedAt - 60_000, endedAt, kind, file: `/f/${id}`, promptCount: 1, toolErrorCount: 0 };
}

function setup(): { agyHome: string } {
  sb = makeSandbox();
  db = openDb(resolvePaths({ env: sb.env }).database);
  return { agyHome: path.join(sb.env.HOME!, '.gemini', 'antigravity-cli') };
}

describe('an agent that went quiet', () => {
  it('Gemini CLI quiet for weeks while Antigravity CLI is installed: the move, the last transcript and the new folder', () => {
    const { agyHome } = setup();
    const last = Date.parse('2026-06-17T18:00:00Z');
    upsertSession(db!, session('gemini', 'g1', last - 5 * DAY));
    upsertSession(db!, session('gemini', 'g2', last));
    // our own replays through Gemini CLI are not the user's activity
    upsertSession(db!, session('gemini', 'self1', NOW - DAY, 'self'));
    expect(agentMoves(db!, config(), sb!.env, NOW)).toEqual([]); // no successor installed: nothing to say
    fs.mkdirSync(path.join(agyHome, 'brain'), { recursive: true });
    const [m] = agentMoves(db!, config(), sb!.env, NOW);
    expect(m).toMatchObject({ kind: 'went-quiet', agent: 'gemini', movedTo: 'antigravity', lastSeenAt: '2026-06-17T18:00:00.000Z', location: path.join(agyHome, 'brain') });
    expect(m.detail).toBe(
      `Gemini CLI went quiet: its last transcript is from 2026-06-17 (13 days ago), and Antigravity CLI appeared at ${path.join(agyHome, 'brain')} (none of its conversations harvested yet). Google moved Gemini CLI's individual, AI Pro and AI Ultra accounts to Antigravity CLI.`,
    );
    // once its conversations are harvested, the notice counts them
    upsertSession(db!, session('antigravity', 'a1', NOW - DAY));
    expect(agentMoves(db!, config(), sb!.env, NOW)[0].detail).toContain('(1 conversation harvested so far).');
  });

  it('says nothing while Gemini CLI is active, when it was never harvested, or when Antigravity CLI is disabled', () => {
    const { agyHome } = setup();
    fs.mkdirSync(agyHome, { recursive: true });
    expect(agentMoves(db!, config(), sb!.env, NOW)).toEqual([]); // never harvested
    upsertSession(db!, session('gemini', 'g1', NOW - (QUIET_DAYS - 1) * DAY));
    expect(agentMoves(db!, config(), sb!.env, NOW)).toEqual([]); // still active
    expect(agentMoves(db!, config(), sb!.env, NOW + 2 * DAY)).toHaveLength(1);
    expect(agentMoves(db!, config(false), sb!.env, NOW + 2 * DAY)).toEqual([]);
  });

  it('harvested Antigravity CLI conversations newer than the last Gemini CLI one count as the appearance, even with no home on disk', () => {
    setup();
    upsertSession(db!, session('gemini', 'g1', NOW - 30 * DAY));
    upsertSession(db!, session('antigravity', 'a1', NOW - 40 * DAY));
    expect(agentMoves(db!, config(), sb!.env, NOW)).toEqual([]); // older than Gemini's last: both in use then
    upsertSession(db!, session('antigravity', 'a2', NOW - 2 * DAY));
    expect(agentMoves(db!, config(), sb!.env, NOW).map((m) => m.movedTo)).toEqual(['antigravity']);
  });
});

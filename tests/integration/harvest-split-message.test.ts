/**
 * An assistant message whose parts are written as separate lines (same message id) and harvested
 * in two passes — the daemon ran between the parts — is stored as one event, and a secret split
 * across the two passes is redacted in the stored text (the db file and its WAL hold no trace of it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox } from '../helpers/sandbox.js';
import { defaultConfig } from '../../src/core/config.js';
import { openDb } from '../../src/store/db.js';
import { runHarvest } from '../../src/harvest/ingest.js';

const sb = makeSandbox();
afterAll(() => sb.cleanup());

const SID = '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d';
const base = { sessionId: SID, cwd: '/w/app', gitBranch: 'main', entrypoint: 'cli', isSidechain: false };
const line = (o: object) => JSON.stringify({ ...base, ...o }) + '\n';
const prompt = (uuid: string, text: string) => line({ type: 'user', uuid, timestamp: '2026-10-01T00:00:00.000Z', message: { role: 'user', content: text } });
const part = (uuid: string, text: string, end = false) =>
  line({ type: 'assistant', uuid, timestamp: '2026-10-01T00:00:01.000Z', message: { id: 'msg_split', role: 'assistant', content: [{ type: 'text', text }], stop_reason: end ? 'end_turn' : null } });

let round = 0;
async function harvestInTwoPasses(first: string, second: string, ...later: string[]) {
  const home = path.join(sb.root, `r${round++}`);
  const env = { ...sb.env, SKILLOPT_SLEEP_HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'claude') };
  const file = path.join(env.CLAUDE_CONFIG_DIR, 'projects/-w-app', `${SID}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const dbFile = path.join(home, 'store.db');
  const db = openDb(dbFile);
  const config = defaultConfig();
  const opts = { env, stateDir: path.join(home, 'state') };
  fs.writeFileSync(file, first);
  const s1 = await runHarvest(db, config, opts);
  const diskAfterFirst = onDisk(dbFile);
  fs.appendFileSync(file, second);
  let s2 = await runHarvest(db, config, opts);
  const diskBetween: string[] = [];
  for (const more of later) {
    diskBetween.push(onDisk(dbFile));
    fs.appendFileSync(file, more);
    s2 = await runHarvest(db, config, opts);
  }
  const texts = (db.prepare("SELECT text FROM events WHERE kind = 'text' ORDER BY seq").all() as Array<{ text: string }>).map((r) => r.text);
  const state = (db.prepare('SELECT state FROM files').all() as Array<{ state: string | null }>).map((r) => r.state ?? '').join('\n');
  const rawBeforeClose = onDisk(dbFile);
  db.close();
  return { texts, state, s1, s2, diskAfterFirst, diskBetween, disk: rawBeforeClose + onDisk(dbFile) };
}

/** The db file and its WAL, as bytes (latin1 keeps every byte one char). */
function onDisk(dbFile: string): string {
  return [dbFile, `${dbFile}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('');
}

/** Pieces of `secret` of `len` chars that are on the disk image (none may be). */
function piecesOnDisk(disk: string, secret: string, len: number): string[] {
  const found: string[] = [];
  for (let i = 0; i + len <= secret.length; i++) if (disk.includes(secret.slice(i, i + len))) found.push(secret.slice(i, i + len));
  return found;
}

describe('an assistant message split across two harvest passes', () => {
  it('is one event, and a token split between the passes is redacted', async () => {
    const token = 'ghp_' + 'Zq8Lm3Vt6Xw1Ry4Nb7Kc0Hd5Jf2Gs9Pa3Ue6'; // 40 chars, GitHub token shape
    const r = await harvestInTwoPasses(prompt('u1', 'set up the release') + part('a1', `Push with ${token.slice(0, 17)}`), part('a2', `${token.slice(17)} and push.`, true));
    expect(r.texts).toHaveLength(1);
    expect(r.texts[0]).toMatch(/^Push with \[REDACTED:github-token\] and push\.$/);
    expect(r.disk).not.toContain(token);
    expect(r.diskAfterFirst).not.toContain(token.slice(0, 17)); // the head is held back, not stored in clear
    expect(r.state).not.toContain(token.slice(0, 17));
    expect(r.s1.redactions + r.s2.redactions).toBeGreaterThanOrEqual(1);
  });

  it('a key name in the first pass and its value in the second: the value is redacted', async () => {
    const value = 'hunter2-Blue-Moose-81';
    const r = await harvestInTwoPasses(prompt('u1', 'connect to the db') + part('a1', 'I set DB_PASSWORD='), part('a2', `${value} in .env for you.`, true));
    expect(r.texts).toHaveLength(1);
    expect(r.texts[0]).not.toContain(value);
    expect(r.texts[0]).toContain('DB_PASSWORD=[REDACTED:env-secret]');
    expect(r.disk).not.toContain(value);
  });

  it('a secret redacted whole in the first pass leaves no tail in the second', async () => {
    const key = 'sk-ant-api03-' + 'Qw7Er4Ty1Ui8Op5As2Df9Gh6Jk3Lz0Xc7Vb4Nm1Qa8Ws5Ed2';
    const r = await harvestInTwoPasses(prompt('u1', 'call the api') + part('a1', `The key is ${key.slice(0, 40)}`), part('a2', `${key.slice(40)}, keep it safe.`, true));
    expect(r.texts).toHaveLength(1);
    expect(r.texts[0]).toBe('The key is [REDACTED:anthropic-api-key], keep it safe.');
    expect(r.disk).not.toContain(key.slice(40));
  });

  it('parts of different messages stay separate events', async () => {
    const other = line({ type: 'assistant', uuid: 'b1', timestamp: '2026-10-01T00:00:02.000Z', message: { id: 'msg_other', role: 'assistant', content: [{ type: 'text', text: 'second message' }], stop_reason: 'end_turn' } });
    const r = await harvestInTwoPasses(prompt('u1', 'go') + part('a1', 'first message'), other);
    expect(r.texts).toEqual(['first message', 'second message']);
  });

  // A secret cut at every offset: after the first pass (only the head exists) and after the join,
  // no 8-char piece of it is in the db or its WAL. (Shorter heads are not secret: `ghp_Zq8` tells
  // nothing.) Each shape: a provider prefix, a key name with its value, a URL password, a bare key.
  const SHAPES: Array<[string, string, string, string]> = [
    ['github token', 'Push with ', 'ghp_' + 'Zq8Lm3Vt6Xw1Ry4Nb7Kc0Hd5Jf2Gs9Pa3Ue6', ' and push.'],
    ['.env password', 'I set DB_PASSWORD=', 'hunter2-Blue-Moose-81', ' in .env for you.'],
    ['url password', 'Connect with postgres://admin:', 'Tr0ub4dor3-x9Kq', '@db.internal:5432/app now.'],
    ['bare aws secret key', 'the key pair is AKIAZ3RQ8V6N4M2LXK7P / ', 'tY7uP0oQ9wE8rT6yU5iO4pA3sD2fG1hJ0kL9zX+c', ' (keep it).'],
  ];
  for (const [name, lead, secret, trail] of SHAPES) {
    it(`${name}: cut at every offset, never on disk in pieces of 8+`, async () => {
      const leaks: string[] = [];
      for (let k = 1; k < secret.length; k++) {
        const r = await harvestInTwoPasses(prompt('u1', 'do it') + part('a1', lead + secret.slice(0, k)), part('a2', secret.slice(k) + trail, true));
        expect(r.texts).toHaveLength(1);
        expect(r.texts[0]).toContain(trail.trim().slice(-6)); // the text after the secret survives the join
        for (const p of piecesOnDisk(r.diskAfterFirst, secret, 8)) leaks.push(`cut ${k}, after pass 1: ${p}`);
        for (const p of piecesOnDisk(r.disk, secret, 8)) leaks.push(`cut ${k}, after the join: ${p}`);
        if (k === 1 || leaks.length) expect(r.texts[0]).toMatch(/\[REDACTED:[a-z0-9-]+\]/);
      }
      expect(leaks).toEqual([]);
    }, 60_000);
  }

  it('a message in three parts over three passes: a head cut at the second split is held back too', async () => {
    const token = 'ghp_' + 'Zq8Lm3Vt6Xw1Ry4Nb7Kc0Hd5Jf2Gs9Pa3Ue6';
    const r = await harvestInTwoPasses(prompt('u1', 'go') + part('a1', 'First, '), part('a2', `push with ${token.slice(0, 20)}`), part('a3', `${token.slice(20)} now.`, true));
    expect(r.texts).toEqual(['First, push with [REDACTED:github-token] now.']);
    expect(piecesOnDisk(r.diskBetween.join('') + r.disk, token, 8)).toEqual([]);
  });

  it('two later parts in one pass join the stored part as one rest', async () => {
    const token = 'ghp_' + 'Zq8Lm3Vt6Xw1Ry4Nb7Kc0Hd5Jf2Gs9Pa3Ue6';
    const r = await harvestInTwoPasses(prompt('u1', 'go') + part('a1', 'First, '), part('a2', `push with ${token.slice(0, 12)}`) + part('a3', `${token.slice(12)} now, then tag v1.2.`, true));
    expect(r.texts).toEqual(['First, push with [REDACTED:github-token] now, then tag v1.2.']);
    expect(piecesOnDisk(r.disk, token, 8)).toEqual([]);
  });

  it('an ordinary word at the end of a pass is not held back', async () => {
    const r = await harvestInTwoPasses(prompt('u1', 'go') + part('a1', 'Now run `npm test`'), line({ type: 'assistant', uuid: 'b1', timestamp: '2026-10-01T00:00:02.000Z', message: { id: 'msg_other', role: 'assistant', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' } }));
    expect(r.texts).toEqual(['Now run `npm test`', 'done']);
  });
});

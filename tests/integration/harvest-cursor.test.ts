/**
 * Cursor Agent through the built CLI: the fixtures harvested with prompts, project and the user's
 * correction; the corpus's secrets planted in a transcript are not stored; a second harvest of
 * unchanged files reads (almost) nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, REPO_ROOT, runCli, type Sandbox } from '../helpers/sandbox.js';
import { CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

const MAIN = 'cursor:5f1c2a9e-0b7d-4c3e-9a11-2e6b8d0c4f71';
const LEAKY = 'd00d0000-5ec2-4e75-8000-00000000beef';

let sb: Sandbox;
let project: string;
let cursorDir: string;

/** A secret survives when any 12-character run of it is in the text (partial redaction is a leak). */
function survives(secret: string, text: string): boolean {
  if (secret.length <= 12) return text.includes(secret);
  for (let i = 0; i + 12 <= secret.length; i++) if (text.includes(secret.slice(i, i + 12))) return true;
  return false;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
}

beforeAll(() => {
  sb = makeSandbox();
  // CURSOR_CONFIG_DIR moves the folder whose projects/ is read
  cursorDir = path.join(sb.root, 'agents/cursor');
  sb.env.CURSOR_CONFIG_DIR = cursorDir;
  fs.cpSync(path.join(REPO_ROOT, 'tests/fixtures/cursor/home'), cursorDir, { recursive: true });
  project = path.join(sb.root, 'shop');
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(cursorDir, 'projects/home-dev-shop/.workspace-trusted'), JSON.stringify({ workspacePath: project }));
  // every secret of the corpus, in prompts (inside <user_query>, and in attached files) and answers
  const lines = CORPUS_SECRETS.flatMap(([, text], i) => [
    { role: 'user', message: { content: [{ type: 'text', text: `<attached_files>\n${text}\n</attached_files>\n<user_query>\nwhy does this fail? ${text}\n</user_query>` }] } },
    { role: 'assistant', message: { content: [{ type: 'text', text: `Answer ${i}: the config holds ${text}` }, { type: 'tool_use', name: 'shell.execute', input: { command: text } }] } },
    { type: 'turn_ended', status: 'success' },
  ]);
  const leaky = path.join(cursorDir, 'projects/home-dev-shop/agent-transcripts', LEAKY, `${LEAKY}.jsonl`);
  fs.mkdirSync(path.dirname(leaky), { recursive: true });
  fs.writeFileSync(leaky, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
});
afterAll(() => sb.cleanup());

describe('harvest of Cursor Agent transcripts', () => {
  it('stores prompts, the project and the correction; the time is the file mtime', () => {
    const when = new Date('2026-11-20T09:30:00Z');
    fs.utimesSync(path.join(cursorDir, 'projects/home-dev-shop/agent-transcripts/5f1c2a9e-0b7d-4c3e-9a11-2e6b8d0c4f71/5f1c2a9e-0b7d-4c3e-9a11-2e6b8d0c4f71.jsonl'), when, when);
    const r = runCli(['harvest', '--agent', 'cursor', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { files: number; sessions: number; errors: unknown[]; redactions: number };
    expect(s.errors).toEqual([]);
    expect(s.files).toBe(4);
    expect(s.sessions).toBe(4);
    expect(s.redactions).toBeGreaterThanOrEqual(CORPUS_SECRETS.length);

    const list = JSON.parse(runCli(['sessions', 'list', '--agent', 'cursor', '--json'], sb.env).stdout) as { sessions: Array<{ id: string; project: string | null }> };
    expect(list.sessions.find((x) => x.id === MAIN)?.project).toBe(project);
    const shown = runCli(['sessions', 'show', MAIN, '--json'], sb.env);
    expect(shown.status, shown.stderr).toBe(0);
    const d = JSON.parse(shown.stdout) as { session: { endedAt: string; toolErrorCount: number }; events: Array<{ kind: string; text: string }> };
    expect(d.session.endedAt).toBe(when.toISOString());
    expect(d.session.toolErrorCount).toBe(1);
    // the user's correction after the agent's answer is a stored prompt, without Cursor's envelope
    expect(d.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['Deploy the API to staging', "No, that's wrong: deploy to production, not staging."]);
  });

  it('stores none of the planted secrets', () => {
    const stored = filesUnder(sb.env.SKILLOPT_SLEEP_HOME!).map((f) => fs.readFileSync(f).toString('latin1'));
    const shown = runCli(['sessions', 'show', `cursor:${LEAKY}`, '--limit', '1000', '--json'], sb.env);
    expect(shown.status, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).events.length).toBeGreaterThan(CORPUS_SECRETS.length);
    const leaked = CORPUS_SECRETS.filter(([, , secret]) => stored.some((t) => survives(secret, t)) || survives(secret, shown.stdout)).map(([name]) => name);
    expect(leaked).toEqual([]);
  });

  it('a second harvest of unchanged files reads at most 2% of the bytes', () => {
    const total = filesUnder(path.join(cursorDir, 'projects')).filter((f) => f.endsWith('.jsonl')).reduce((n, f) => n + fs.statSync(f).size, 0);
    const r = runCli(['harvest', '--agent', 'cursor', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { bytesRead: number; filesChanged: number };
    expect(s.filesChanged).toBe(0);
    expect(s.bytesRead).toBeLessThanOrEqual(total * 0.02);
  });
});

/**
 * Antigravity CLI through the built CLI: the fixtures harvested with prompts and project; the
 * corpus's secrets planted in a transcript (prompts, the CLI's blocks, answers, thinking, tool
 * arguments, tool output, errors) are not stored; `doctor` names the conversation it cannot read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, REPO_ROOT, runCli, type Sandbox } from '../helpers/sandbox.js';
import { CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

const MAIN = 'antigravity:3b4a1d20-3968-4ed2-80b3-00eea3060b02';
const LEAKY = 'beef0000-5ec2-4e75-8000-00000000d00d';

let sb: Sandbox;
let project: string;
let agyDir: string;

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
  agyDir = path.join(sb.env.HOME!, '.gemini', 'antigravity-cli');
  fs.cpSync(path.join(REPO_ROOT, 'tests/fixtures/antigravity/home'), agyDir, { recursive: true });
  project = path.join(sb.root, 'tidemark');
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(agyDir, 'cache/last_conversations.json'), JSON.stringify({ [project]: MAIN.split(':')[1] }));
  // every secret of the corpus in each place a step carries text
  const at = (i: number) => new Date(Date.UTC(2026, 6, 5, 8, 0, i)).toISOString().replace('.000', '');
  const lines = CORPUS_SECRETS.flatMap(([, text], i) => [
    { step_index: 5 * i, source: 'USER_EXPLICIT', type: 'USER_INPUT', status: 'DONE', created_at: at(5 * i), content: `<USER_REQUEST>\nwhy does this fail? ${text}\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\n${text}\n</ADDITIONAL_METADATA>` },
    { step_index: 5 * i + 1, source: 'MODEL', type: 'PLANNER_RESPONSE', status: 'DONE', created_at: at(5 * i + 1), thinking: `the key is ${text}`, tool_calls: [{ name: 'run_command', args: { CommandLine: `curl -H "${text}" x`, Cwd: project } }] },
    { step_index: 5 * i + 2, source: 'MODEL', type: 'RUN_COMMAND', status: 'DONE', created_at: at(5 * i + 2), content: `Output:\n${text}` },
    { step_index: 5 * i + 3, source: 'SYSTEM', type: 'ERROR_MESSAGE', status: 'DONE', created_at: at(5 * i + 3), error: `denied: ${text}`, content: `Error: ${text}` },
    { step_index: 5 * i + 4, source: 'MODEL', type: 'PLANNER_RESPONSE', status: 'DONE', created_at: at(5 * i + 4), content: `Answer ${i}: the config holds ${text}` },
  ]);
  const leaky = path.join(agyDir, 'brain', LEAKY, '.system_generated/logs/transcript.jsonl');
  fs.mkdirSync(path.dirname(leaky), { recursive: true });
  fs.writeFileSync(leaky, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
});
afterAll(() => sb.cleanup());

describe('harvest of Antigravity CLI transcripts', () => {
  it('stores prompts and the project; the full copy of a conversation is its one file', () => {
    const r = runCli(['harvest', '--agent', 'antigravity', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { sessions: number; errors: unknown[]; redactions: number };
    expect(s.errors).toEqual([]);
    // three fixture conversations (one with two copies) and the leaky one
    expect(s.sessions).toBe(4);
    expect(s.redactions).toBeGreaterThanOrEqual(CORPUS_SECRETS.length);
    const list = JSON.parse(runCli(['sessions', 'list', '--agent', 'antigravity', '--json'], sb.env).stdout) as { sessions: Array<{ id: string; project: string | null }> };
    expect(list.sessions.find((x) => x.id === MAIN)?.project).toBe(project);
    const d = JSON.parse(runCli(['sessions', 'show', MAIN, '--json'], sb.env).stdout) as { events: Array<{ kind: string; text: string }> };
    expect(d.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['add a unit test for parseDuration (negative values, unit suffixes, empty string)', 'use it.each for the suffix cases']);
  });

  it('stores none of the planted secrets', () => {
    const stored = filesUnder(sb.env.SKILLOPT_SLEEP_HOME!).map((f) => fs.readFileSync(f).toString('latin1'));
    const shown = runCli(['sessions', 'show', `antigravity:${LEAKY}`, '--limit', '1000', '--json'], sb.env);
    expect(shown.status, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).events.length).toBeGreaterThan(CORPUS_SECRETS.length);
    const leaked = CORPUS_SECRETS.filter(([, , secret]) => stored.some((t) => survives(secret, t)) || survives(secret, shown.stdout)).map(([name]) => name);
    expect(leaked).toEqual([]);
  });

  it('doctor names the conversation it cannot read, and why, and that agy is no replay backend', () => {
    const r = runCli(['doctor', '--json'], sb.env);
    const checks = (JSON.parse(r.stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.filter((c) => c.name === 'store:antigravity');
    expect(checks.map((c) => c.status)).toEqual(['warn', 'ok']);
    expect(checks[0].detail).toContain('protobuf without a published schema');
    expect(checks[1].detail).toContain('not a replay backend');
  });
});

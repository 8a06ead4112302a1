/**
 * Pi sessions through the built CLI: every era harvested with its prompts and project, mined into
 * tasks that keep the user's corrections; a second harvest of unchanged files reads (almost)
 * nothing; planted secrets of the redaction corpus are in no file the product wrote.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, REPO_ROOT, runCli, type Sandbox } from '../helpers/sandbox.js';
import { CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

const FIX = path.join(REPO_ROOT, 'tests/fixtures/pi');
let sb: Sandbox;
let project: string;
let sessionsDir: string;
const json = (r: { stdout: string; stderr: string; status: number | null }) => {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

/** A v3 session with every corpus secret in each channel a Pi session has. */
function secretSession(cwd: string): string {
  const id = '0badc0de-1111-4222-8333-444455556666';
  const rows: object[] = [{ type: 'session', version: 3, id, timestamp: '2026-11-04T08:00:00.000Z', cwd }];
  let parent: string | null = null;
  let n = 0;
  const add = (message: object) => {
    const eid = `f${String(n).padStart(7, '0')}`;
    rows.push({ type: 'message', id: eid, parentId: parent, timestamp: new Date(Date.UTC(2026, 10, 4, 8, 0, ++n)).toISOString(), message });
    parent = eid;
  };
  CORPUS_SECRETS.forEach(([, text], i) => {
    const channel = i % 4;
    if (channel === 0) add({ role: 'user', content: `here is the output, please fix it:\n${text}` });
    else if (channel === 1) {
      add({ role: 'assistant', content: [{ type: 'toolCall', id: `c${i}`, name: 'bash', arguments: { command: `echo '${text}' | tee out.log` } }], stopReason: 'toolUse' });
      add({ role: 'toolResult', toolCallId: `c${i}`, toolName: 'bash', content: [{ type: 'text', text }], isError: false });
    } else if (channel === 2) {
      add({ role: 'assistant', content: [{ type: 'toolCall', id: `c${i}`, name: 'bash', arguments: { command: 'cat .env' } }], stopReason: 'toolUse' });
      add({ role: 'toolResult', toolCallId: `c${i}`, toolName: 'bash', content: [{ type: 'text', text: `${'x'.repeat(900)}\n${text}\n${'y'.repeat(900)}` }], isError: true });
    } else add({ role: 'assistant', content: [{ type: 'text', text: `I found this in the config: ${text}` }], stopReason: 'stop' });
  });
  return `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

/** Whether any 12-char run of `secret` (or the whole of a shorter one) is in `text`. */
function survives(secret: string, text: string): boolean {
  if (secret.length <= 12) return text.includes(secret);
  for (let i = 0; i + 12 <= secret.length; i++) if (text.includes(secret.slice(i, i + 12))) return true;
  return false;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.isFile() ? [p] : [];
  });
}

let first: { files: number; sessions: number; prompts: number; bytesRead: number; redactions: number; errors: unknown[] };
beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  project = path.join(sb.root, 'src', 'ledger');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  // Pi's own folder name for the project: the cwd with its separators as `-`, between `--`
  sessionsDir = path.join(sb.env.HOME!, '.pi', 'agent', 'sessions', `--${project.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`);
  fs.mkdirSync(sessionsDir, { recursive: true });
  for (const f of fs.readdirSync(FIX).filter((n) => n.endsWith('.jsonl'))) {
    const text = fs.readFileSync(path.join(FIX, f), 'utf8').replaceAll('/home/u/ledger', project);
    fs.writeFileSync(path.join(sessionsDir, `2026-11-02T09-00-00-000Z_${f}`), text);
  }
  fs.writeFileSync(path.join(sessionsDir, '2026-11-04T08-00-00-000Z_0badc0de.jsonl'), secretSession(project));
  first = json(runCli(['harvest', '--json', '--agent', 'pi'], sb.env));
}, 120_000);
afterAll(() => sb.cleanup());

describe('harvesting Pi sessions through the CLI', () => {
  it('stores every era with its prompts and project; the broken tree keeps no events', () => {
    expect(first.errors).toEqual([]);
    expect(first.files).toBe(6);
    const rows = json(runCli(['sessions', 'list', '--agent', 'pi', '--json'], sb.env)).sessions as Array<{ id: string; project: string | null }>;
    expect(rows.map((r) => r.id).sort()).toEqual(
      ['pi:0badc0de-1111-4222-8333-444455556666', 'pi:1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f', 'pi:5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'pi:7f3c1a2b-0d4e-4f5a-9b6c-1d2e3f4a5b6c', 'pi:9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b', 'pi:3d4e5f6a-7b8c-4d9e-8f0a-1b2c3d4e5f6a'].sort(),
    );
    for (const r of rows) expect(r.project).toBe(project);
    const prompts = (id: string) => (json(runCli(['sessions', 'show', id, '--json'], sb.env)).events as Array<{ kind: string; text: string }>).filter((e) => e.kind === 'prompt').map((e) => e.text);
    expect(prompts('pi:7f3c1a2b')).toEqual(['add a CSV export to the ledger report', "no, don't add a dependency: write the CSV by hand and run the tests"]);
    expect(prompts('pi:5a1b2c3d')).toEqual(['rename the Ledger class to Journal everywhere', 'keep the old name as a deprecated alias']);
    expect(prompts('pi:1c2d3e4f')).toEqual(['fix the rounding in totals', 'no, round half up like the bank does']);
    expect(json(runCli(['sessions', 'show', 'pi:9e8d7c6b', '--json'], sb.env)).events).toEqual([]);
    expect(prompts('pi:3d4e5f6a')).toEqual(['now add a JSON export next to it']); // the fork's own turn only
  });

  it('a second harvest of unchanged files reads at most 2% of the bytes', () => {
    const again = json(runCli(['harvest', '--json', '--agent', 'pi'], sb.env));
    expect(first.bytesRead).toBeGreaterThan(0);
    expect(again.bytesRead).toBeLessThanOrEqual(first.bytesRead * 0.02);
  });

  it('mines tasks that keep the corrections the user typed', () => {
    // a job is a task once it recurs: two more sessions ask for the same kind of export
    const tree = fs.readFileSync(path.join(FIX, 'session-v3-tree.jsonl'), 'utf8').replaceAll('/home/u/ledger', project);
    ['invoices', 'payments'].forEach((report, i) => {
      const text = tree.replace('7f3c1a2b-0d4e-4f5a-9b6c-1d2e3f4a5b6c', `7f3c1a2b-0d4e-4f5a-9b6c-00000000000${i}`).replace('the ledger report', `the ${report} report`).replaceAll('2026-11-02', `2026-11-1${i}`);
      fs.writeFileSync(path.join(sessionsDir, `2026-11-1${i}T09-00-00-000Z_${report}.jsonl`), text);
    });
    json(runCli(['harvest', '--json', '--agent', 'pi'], sb.env));
    const mined = json(runCli(['mine', '--json'], sb.env));
    expect(mined.newTasks).toBeGreaterThan(0);
    const tasks = json(runCli(['tasks', 'list', '--json'], sb.env)).tasks as Array<{ id: string; intent: string }>;
    const csv = tasks.find((t) => /CSV export/.test(t.intent));
    expect(csv, JSON.stringify(tasks.map((t) => t.intent))).toBeDefined();
    const shown = json(runCli(['tasks', 'show', csv!.id, '--json'], sb.env));
    expect(shown.task.corrections).toContain("no, don't add a dependency: write the CSV by hand and run the tests");
  });

  it('stores none of the planted secrets', () => {
    expect(first.redactions).toBeGreaterThan(0);
    const home = sb.env.SKILLOPT_SLEEP_HOME!;
    const written = filesUnder(home).map((f) => fs.readFileSync(f).toString('latin1'));
    expect(written.length).toBeGreaterThan(0);
    const leaked = CORPUS_SECRETS.filter(([, , secret]) => written.some((t) => survives(secret, t))).map(([name]) => name);
    expect(leaked).toEqual([]);
  });
});

/** Claude Code pitfalls beyond the shared fixtures (docs/transcript-formats.md §1.9). */
import { describe, expect, it } from 'vitest';
import { ClaudeParser, cleanClaudePrompt, isUuidKey, uuidKey } from '../../adapters/claude-code/parse.js';
import { redactSecrets, redactValue } from '../../src/core/redact.js';
import { PROVIDER_RULES } from '../../src/core/secret-rules.js';
import { claudeConfigRoots, isClaudeTranscript } from '../../adapters/claude-code/paths.js';
import { defaultConfig } from '../../src/core/config.js';
import type { ParseOutput } from '../../adapters/types.js';

const SID = '11111111-2222-4333-8444-555555555555';
const FILE = `/h/.claude/projects/-w/${SID}.jsonl`;
const base = { sessionId: SID, cwd: '/w', gitBranch: 'main', entrypoint: 'cli', isSidechain: false };
let n = 0;
const user = (content: unknown, extra: object = {}) => ({ ...base, type: 'user', uuid: `u${n++}`, timestamp: `2026-10-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`, message: { role: 'user', content }, ...extra });
const asst = (id: string, blocks: unknown[], stop: string | null = null, extra: object = {}) => ({
  ...base,
  type: 'assistant',
  uuid: `a${n++}`,
  timestamp: '2026-10-01T00:01:00.000Z',
  message: { id, role: 'assistant', model: 'claude-opus-4-8', content: blocks, stop_reason: stop },
  ...extra,
});

function parse(rows: object[], file = FILE): ParseOutput {
  const p = new ClaudeParser(file, undefined);
  for (const r of rows) p.line(r as Record<string, unknown>);
  return p.flush();
}

describe('Claude Code parser', () => {
  it('merges a response split across lines by message.id and marks the end_turn text final', () => {
    const out = parse([user('hi'), asst('m1', [{ type: 'text', text: 'Part one. ' }]), asst('m1', [{ type: 'text', text: 'Part two.' }], 'end_turn')]);
    const texts = out.events.filter((e) => e.kind === 'text');
    expect(texts.map((e) => e.text)).toEqual(['Part one. Part two.']);
    expect(texts[0].meta.final).toBe(true);
  });

  it('drops rows re-appended with the same uuid after a second /compact', () => {
    const p = user('do the thing');
    const a = asst('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }]);
    const out = parse([p, a, p, a]);
    expect(out.events.filter((e) => e.kind === 'prompt')).toHaveLength(1);
    expect(out.events.filter((e) => e.kind === 'tool_call')).toHaveLength(1);
    expect(out.skipped.duplicate).toBe(2);
  });

  it('remembers seen uuids across resumed reads as short digests, and reads states saved with whole uuids', () => {
    const p = user('first');
    const first = new ClaudeParser(FILE, undefined);
    first.line(p as Record<string, unknown>);
    first.flush();
    const saved = JSON.parse(JSON.stringify(first.saveState())) as { seen: string[]; seenKeys?: number };
    expect(saved.seen).toHaveLength(1);
    expect(saved.seen[0]).not.toBe((p as { uuid: string }).uuid);
    expect(saved.seen[0].length).toBeLessThanOrEqual(14);
    const resumed = new ClaudeParser(FILE, saved);
    resumed.line(p as Record<string, unknown>);
    expect(resumed.flush().skipped.duplicate).toBe(1);
    // a state saved before digests: the whole uuids are converted on load
    const legacy = { ...saved, seen: [(p as { uuid: string }).uuid] };
    delete legacy.seenKeys;
    const fromLegacy = new ClaudeParser(FILE, legacy);
    fromLegacy.line(p as Record<string, unknown>);
    fromLegacy.line(user('second') as Record<string, unknown>);
    const out = fromLegacy.flush();
    expect(out.skipped.duplicate).toBe(1);
    expect(out.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['second']);
  });

  // The harvest stores the parser state without running the secret rules over `seen`
  // (saveRedactedState): that is only sound while no rule can match a digest.
  it('keeps uuid digests to a shape no secret rule matches, and saves the state redacted as redactValue does', () => {
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const B36 = '0123456789abcdefghijklmnopqrstuvwxyz';
    const fill = (len: number) => Array.from({ length: len }, () => B36[Math.floor(rand() * 36)]).join('');
    // every digest has the shape, whatever the uuid (including odd ones a file may hold)
    const uuids = ['', 'x', SID, SID.toUpperCase(), 'ü'.repeat(50), ...Array.from({ length: 5000 }, () => `${fill(8)}-${fill(4)}-4${fill(3)}-8${fill(3)}-${fill(12)}`)];
    expect(uuids.filter((u) => !isUuidKey(uuidKey(u)))).toEqual([]);
    // the digest is the same as it always was (stored states hold it): two FNV-style halves in base 36
    const reference = (u: string) => {
      let a = 0x811c9dc5;
      let b = 0x9747b28c;
      for (let i = 0; i < u.length; i++) {
        const c = u.charCodeAt(i);
        a = Math.imul(a ^ c, 0x01000193);
        b = Math.imul(b ^ c, 0x5bd1e995);
        b ^= b >>> 15;
      }
      return (a >>> 0).toString(36) + (b >>> 0).toString(36).padStart(7, '0');
    };
    expect(uuids.filter((u) => uuidKey(u) !== reference(u))).toEqual([]);
    // no string of the shape is touched by the rules: random ones, and ones built around the
    // lower-case words and prefixes of every rule (hints and regex literals) and of the key names
    const words = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'key', 'credentials', 'auth', 'bearer', 'basic', 'sig', 'age', 'eyj']);
    for (const r of PROVIDER_RULES) for (const w of `${r.hint} ${r.re.source}`.toLowerCase().match(/[0-9a-z]{2,14}/g) ?? []) words.add(w);
    const candidates: string[] = Array.from({ length: 20000 }, () => fill(8 + Math.floor(rand() * 7)));
    for (const w of words) {
      for (let len = Math.max(8, w.length); len <= 14; len++) {
        for (let at = 0; at + w.length <= len; at++) candidates.push(fill(at) + w + fill(len - at - w.length));
      }
    }
    expect(candidates.filter((c) => !isUuidKey(c))).toEqual([]);
    expect(candidates.filter((c) => redactSecrets(c).text !== c)).toEqual([]);
    // the only all-lower-case rule (Databricks: dapi + 32 hex) needs more characters than a digest has
    expect(redactSecrets(`dapi${'a1'.repeat(16)}`).count).toBe(1);
    expect(isUuidKey(`dapi${'a1'.repeat(16)}`)).toBe(false);

    // the saved state: the same JSON as redacting all of it, the title's secret redacted
    const p = new ClaudeParser(FILE, undefined);
    for (let i = 0; i < 50; i++) p.line(user(`ask ${i}`) as Record<string, unknown>);
    p.line({ type: 'custom-title', customTitle: 'deploy with ghp_1234567890abcdefghijABCDEFGHIJ123456', sessionId: SID } as Record<string, unknown>);
    p.flush();
    const stored = JSON.stringify(p.saveRedactedState());
    expect(stored).toBe(JSON.stringify(redactValue(p.saveState())));
    expect(stored).toContain('[REDACTED:github-token]');
    expect((JSON.parse(stored) as { seen: string[] }).seen).toHaveLength(50);
    // a loaded state whose `seen` holds something else than digests is redacted whole
    const odd = { ...(JSON.parse(stored) as object), seen: ['ghp_1234567890abcdefghijABCDEFGHIJ123456'] };
    const q = new ClaudeParser(FILE, odd);
    q.flush();
    expect(JSON.stringify(q.saveRedactedState())).toBe(JSON.stringify(redactValue(q.saveState())));
    expect(JSON.stringify(q.saveRedactedState())).not.toContain('ghp_');
    const resumed = new ClaudeParser(FILE, JSON.parse(stored));
    resumed.line(user('one more') as Record<string, unknown>);
    resumed.flush();
    expect(JSON.stringify(resumed.saveRedactedState())).toBe(JSON.stringify(redactValue(resumed.saveState())));
  });

  it('skips meta, command echoes, compaction summaries, interrupts and wrappers; strips envelopes', () => {
    const out = parse([
      user('<local-command-caveat>Caveat: …</local-command-caveat>', { isMeta: true }),
      user('<command-name>/clear</command-name>'),
      user('This session is being continued from a previous conversation…', { isCompactSummary: true }),
      user('[Request interrupted by user]'),
      user([{ type: 'text', text: '<system-reminder>be nice</system-reminder>\nreal question here' }]),
      user('<ide_selection>x</ide_selection> and another'),
    ]);
    expect(out.events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['real question here', 'and another']);
  });

  it('joins tool results to their calls and flags errors', () => {
    const out = parse([
      user('run it'),
      asst('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }]),
      user([{ type: 'tool_result', tool_use_id: 't1', content: 'Exit code 1', is_error: true }]),
      asst('m2', [{ type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: '/w/a.ts' } }]),
      user([{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: '<tool_use_error>String not found</tool_use_error>' }] }]),
    ]);
    const results = out.events.filter((e) => e.kind === 'tool_result');
    expect(results.map((e) => [e.toolName, e.isError])).toEqual([
      ['Bash', true],
      ['Edit', true],
    ]);
    expect(out.session?.toolErrorCount).toBe(2);
  });

  it('skips inline sidechain copies and synthetic API error rows; headless for sdk entrypoints', () => {
    const out = parse([
      user('go', { entrypoint: 'sdk-cli' }),
      asst('m1', [{ type: 'text', text: 'sub-agent work' }], null, { isSidechain: true }),
      asst('m2', [{ type: 'text', text: 'API Error: 529' }], null, { isApiErrorMessage: true }),
      asst('m3', [{ type: 'text', text: 'done' }], 'end_turn'),
    ]);
    expect(out.events.filter((e) => e.kind === 'text').map((e) => e.text)).toEqual(['done']);
    expect(out.session?.kind).toBe('headless');
  });

  it('reads legacy agent-*.jsonl beside the session as a sub-agent of the row sessionId', () => {
    const out = parse([user('explore the repo', { isSidechain: true, agentId: 'abc' })], '/h/.claude/projects/-w/agent-abc.jsonl');
    expect(out.session?.kind).toBe('subagent');
    expect(out.session?.id).toBe(`claude-code:${SID}:agent-abc`);
    expect(out.session?.parentId).toBe(`claude-code:${SID}`);
  });

  it('custom titles beat AI titles; the last prompt closes the previous turn', () => {
    const out = parse([
      { type: 'ai-title', aiTitle: 'AI', sessionId: SID },
      { type: 'custom-title', customTitle: 'Mine', sessionId: SID },
      user('first'),
      asst('m1', [{ type: 'text', text: 'interrupted answer' }]),
      user('second'),
    ]);
    expect(out.session?.title).toBe('Mine');
    expect(out.events.find((e) => e.text === 'interrupted answer')?.meta.final).toBe(true);
  });

  it('resumes from saved state across reads with the same result as one pass', () => {
    const rows = [user('a'), asst('m1', [{ type: 'text', text: 'x' }]), user('b'), asst('m2', [{ type: 'text', text: 'y' }], 'end_turn')];
    const one = parse(rows);
    const p1 = new ClaudeParser(FILE, undefined);
    rows.slice(0, 2).forEach((r) => p1.line(r as Record<string, unknown>));
    const first = p1.flush();
    const p2 = new ClaudeParser(FILE, JSON.parse(JSON.stringify(p1.saveState())));
    rows.slice(2).forEach((r) => p2.line(r as Record<string, unknown>));
    const second = p2.flush();
    expect([...first.events, ...second.events].map((e) => [e.seq, e.kind, e.text])).toEqual(one.events.map((e) => [e.seq, e.kind, e.text]));
    // the first turn's answer is marked by an update once the next prompt arrives
    expect(second.finalUpdates).toEqual([{ sessionId: `claude-code:${SID}`, seq: 1, final: true }]);
  });

  it('recognises prompt wrappers', () => {
    expect(cleanClaudePrompt('<bash-input>ls</bash-input>')).toEqual({ skip: 'injected' });
    expect(cleanClaudePrompt('  fix it  ')).toEqual({ text: 'fix it' });
  });

  it('finds config roots from CLAUDE_CONFIG_DIR lists, XDG and home; recognises transcript paths', () => {
    const roots = claudeConfigRoots(defaultConfig(), { env: { CLAUDE_CONFIG_DIR: '/a, /b' }, platform: 'linux', homedir: '/home/u' });
    expect(roots).toEqual(['/a', '/b', '/home/u/.config/claude', '/home/u/.claude']);
    expect(isClaudeTranscript('/a/projects/-w/x.jsonl')).toBe(true);
    expect(isClaudeTranscript('/a/projects/-w/x/subagents/agent-1.jsonl')).toBe(true);
    expect(isClaudeTranscript('/a/projects/-w/x/subagents/workflows/wf_1/agent-2.jsonl')).toBe(true);
    expect(isClaudeTranscript('/a/history.jsonl')).toBe(false);
    expect(isClaudeTranscript('/a/projects/-w/x/tool-results/y.jsonl')).toBe(false);
  });
});

describe('Claude prefilter', () => {
  it('drops big side-channel rows and non-prompt attachments unparsed, keeps queued prompts and tree rows', async () => {
    const { claudePrefilter } = await import('../../adapters/claude-code/parse.js');
    expect(claudePrefilter('{"type":"api-request-blob","sessionId":"s","message":{}}')).toBe('side-channel');
    expect(claudePrefilter('{"type":"file-history-snapshot","messageId":"m"}')).toBe('side-channel');
    expect(claudePrefilter('{"parentUuid":"p","isSidechain":false,"attachment":{"type":"prompt_snapshot","systemPrompt":[]},"type":"attachment"}')).toBe('side-channel');
    expect(claudePrefilter('{"parentUuid":"p","isSidechain":false,"attachment":{"type":"queued_command","prompt":"x"},"type":"attachment"}')).toBeNull();
    expect(claudePrefilter('{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":"hi"}}')).toBeNull();
    expect(claudePrefilter('{"parentUuid":"p","message":{"content":[{"type":"progress"}]},"type":"user"}')).toBeNull();
  });
});

/**
 * Codex rollout JSONL → events (docs/transcript-formats.md §2), every envelope era:
 * bare 2025 files (no envelope, cwd only in `<environment_context>`), `{timestamp,type,payload}`
 * in legacy history mode (prompts duplicated as `event_msg/user_message`: we read only
 * `response_item` messages) and paginated mode (no user/agent message events at all).
 * Injected context blocks are stripped from user items; tool errors come from exit codes in the
 * output text; sub-agent rollouts and the replayed prefix of forks are recognized.
 */
import { arr, isObj, obj, str, toMs, type Json } from '../kit/json.js';
import { emptyBuilderState, SessionBuilder, summarizeInput, type BuilderState } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';
import { codexIdFromPath } from './paths.js';
import { CODEX_INJECTED_TAGS } from './vocabulary.js';
import { addSkillMeta, codexInjectedSkills } from '../skill-signal.js';

const INJECTED_TAGS = CODEX_INJECTED_TAGS;

/** Strips leading injected blocks; returns what the human typed ('' if nothing). */
export function cleanCodexPrompt(raw: string): string {
  let t = raw.trimStart();
  for (let guard = 0; guard < 20; guard++) {
    if (t.startsWith('# AGENTS.md instructions')) {
      const end = t.indexOf('</INSTRUCTIONS>');
      if (end < 0) return '';
      t = t.slice(end + '</INSTRUCTIONS>'.length).trimStart();
      continue;
    }
    const tag = INJECTED_TAGS.find((g) => t.startsWith(`<${g}>`) || t.startsWith(`<${g} `) || t.startsWith(`<${g}\n`));
    if (!tag) break;
    const close = `</${tag}>`;
    const end = t.indexOf(close);
    if (end < 0) return '';
    t = t.slice(end + close.length).trimStart();
  }
  const marker = '## My request for Codex:';
  const k = t.indexOf(marker);
  if (k >= 0) t = t.slice(k + marker.length);
  return t.trim();
}

/** Exit status from the output formats of shell / exec_command / apply_patch (no is_error flag on disk). */
export function codexOutputIsError(output: string): boolean {
  const head = output.slice(0, 600);
  let m = head.match(/Process exited with code (-?\d+)/);
  if (m) return Number(m[1]) !== 0;
  m = head.match(/^Exit code: (-?\d+)/m);
  if (m) return Number(m[1]) !== 0;
  if (head.startsWith('{')) {
    const code = output.match(/"exit_code"\s*:\s*(-?\d+)/);
    if (code) return Number(code[1]) !== 0;
  }
  return /^(apply_patch verification failed|aborted by user|exec command rejected by user|patch rejected by user)/i.test(head.trimStart());
}

function outputText(out: unknown): string {
  if (typeof out === 'string') return out;
  if (isObj(out)) return str(out.content) ?? JSON.stringify(out);
  return arr(out)
    .map((x) => (isObj(x) ? (str(x.text) ?? '') : ''))
    .join('\n');
}

/** Readable output: 2025 `shell` wraps it in JSON `{output, metadata}`. */
function unwrapOutput(text: string): string {
  if (!text.startsWith('{"output"')) return text;
  try {
    const j = JSON.parse(text) as unknown;
    if (isObj(j) && typeof j.output === 'string') return j.output;
  } catch {
    /* keep raw */
  }
  return text;
}

/** UUIDv7 → its millisecond timestamp (null for other versions). */
export function uuidV7Ms(id: string): number | null {
  const hex = id.replace(/-/g, '');
  if (hex.length !== 32 || hex[12] !== '7') return null;
  return parseInt(hex.slice(0, 12), 16);
}

interface CodexState {
  b: BuilderState;
  metaSeen: number;
  /** fork files: turns older than the fork instant are replayed from the parent */
  forkAt: number | null;
  replaying: boolean;
}

export class CodexParser implements LineParser {
  private readonly b: SessionBuilder;
  private readonly st: CodexState;
  /** meta of the last prompt while it is still in this flush (a `<skill>` item follows its prompt) */
  private promptMeta: Record<string, unknown> | null = null;

  constructor(filePath: string, state?: unknown) {
    const s = state as CodexState | undefined;
    this.st = s && isObj(s) && isObj(s.b) ? s : { b: emptyBuilderState(), metaSeen: 0, forkAt: null, replaying: false };
    this.b = new SessionBuilder('codex', this.st.b);
    if (!this.st.b.vendorId) this.st.b.vendorId = codexIdFromPath(filePath);
  }

  line(o: Json): void {
    const payload = obj(o.payload);
    if (payload && typeof o.type === 'string') return this.envelope(o.type, payload, toMs(o.timestamp));
    // bare 2025 era: no envelope
    if (typeof o.record_type === 'string') return this.b.skip('side-channel');
    if (typeof o.type !== 'string' && typeof o.id === 'string') return this.meta(o, toMs(o.timestamp));
    if (typeof o.type === 'string') return this.responseItem(o, null);
    this.b.skip('unknown-type');
  }

  private meta(p: Json, ts: number | null): void {
    this.st.metaSeen++;
    if (this.st.metaSeen > 1) {
      // later session_meta lines are replayed ancestors (forks, sub-agents): their history follows
      if (this.st.forkAt !== null) this.st.replaying = true;
      return this.b.skip('replayed-meta');
    }
    this.b.touch(ts ?? toMs(p.timestamp));
    const id = str(p.id) ?? str(p.session_id);
    if (id) this.st.b.vendorId = id;
    this.b.setCwd(p.cwd);
    const git = obj(p.git);
    if (git && typeof git.branch === 'string') this.st.b.gitBranch = git.branch;
    const source = p.source;
    const spawn = obj(obj(obj(source)?.subagent)?.thread_spawn);
    if (spawn) {
      this.st.b.kind = 'subagent';
      const parent = str(spawn.parent_thread_id);
      if (parent) this.st.b.parentId = `codex:${parent}`;
    } else if (isObj(source) && 'subagent' in source) {
      this.st.b.kind = 'subagent';
    } else if (source === 'exec' || source === 'mcp' || p.originator === 'codex_exec') {
      this.st.b.kind = 'headless';
    }
    if (typeof p.forked_from_id === 'string') this.st.forkAt = toMs(p.timestamp) ?? ts;
  }

  private envelope(type: string, p: Json, ts: number | null): void {
    switch (type) {
      case 'session_meta':
        return this.meta(p, ts);
      case 'turn_context': {
        this.b.touch(ts);
        this.forkGate(str(p.turn_id));
        if (typeof p.cwd === 'string' && p.cwd) this.st.b.cwd = p.cwd;
        return this.b.skip('side-channel');
      }
      case 'response_item':
        if (this.st.replaying) return this.b.skip('fork-replay');
        this.b.touch(ts);
        return this.responseItem(p, ts);
      case 'event_msg':
        return this.event(p, ts);
      default:
        this.b.touch(ts);
        return this.b.skip(['world_state', 'compacted', 'inter_agent_communication', 'inter_agent_communication_metadata'].includes(type) ? 'side-channel' : 'unknown-type');
    }
  }

  /** In a fork, a turn whose UUIDv7 id predates the fork was copied from the parent. */
  private forkGate(turnId: string | undefined): void {
    if (this.st.forkAt === null || !turnId) return;
    const t = uuidV7Ms(turnId);
    if (t !== null) this.st.replaying = t < this.st.forkAt;
  }

  private event(p: Json, ts: number | null): void {
    const t = str(p.type);
    if (t === 'task_started' || t === 'turn_started') this.forkGate(str(p.turn_id));
    if (this.st.replaying) return this.b.skip('fork-replay');
    this.b.touch(ts);
    if (t === 'task_complete' || t === 'turn_complete') {
      this.b.completeTurn();
      return;
    }
    if (t === 'thread_name_updated' && typeof p.thread_name === 'string') this.st.b.title = p.thread_name;
    // user_message/agent_message duplicate response items (legacy mode); item_completed repeats them (paginated)
    this.b.skip('event');
  }

  private responseItem(p: Json, ts: number | null): void {
    switch (p.type) {
      case 'message':
        return this.message(p, ts);
      case 'function_call': {
        let args: unknown = p.arguments;
        if (typeof args === 'string') {
          try {
            args = JSON.parse(args);
          } catch {
            /* keep the raw string */
          }
        }
        let name = str(p.name) ?? 'unknown';
        const meta: Json = {};
        const cmd = isObj(args) ? args.command : undefined;
        if (name === 'shell' && Array.isArray(cmd) && cmd[0] === 'apply_patch') {
          name = 'apply_patch';
          meta.via = 'shell';
        }
        if (typeof p.namespace === 'string') meta.namespace = p.namespace;
        return this.b.toolCall(name, str(p.call_id), summarizeInput(args), ts, meta);
      }
      case 'custom_tool_call':
        return this.b.toolCall(str(p.name) ?? 'unknown', str(p.call_id), summarizeInput(p.input), ts);
      case 'local_shell_call':
        return this.b.toolCall('local_shell', str(p.call_id), summarizeInput(obj(p.action)?.command), ts);
      case 'web_search_call':
        return this.b.toolCall('web_search', str(p.call_id) ?? str(p.id), summarizeInput(obj(p.action)), ts);
      case 'tool_search_call':
        return this.b.toolCall('tool_search', str(p.call_id), summarizeInput(p.arguments), ts);
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'tool_search_output': {
        const raw = outputText(p.output);
        return this.b.toolResult(str(p.call_id), unwrapOutput(raw), codexOutputIsError(raw), ts);
      }
      case 'reasoning':
      case 'ghost_snapshot':
      case 'compaction':
      case 'compaction_summary':
        return this.b.skip('side-channel');
      default:
        return this.b.skip('unknown-type');
    }
  }

  private message(p: Json, ts: number | null): void {
    const role = str(p.role);
    const texts = arr(p.content)
      .filter(isObj)
      .map((c) => str(c.text) ?? '')
      .filter(Boolean);
    if (role === 'user') {
      const env = texts.find((t) => t.trimStart().startsWith('<environment_context>'));
      if (env && !this.st.b.cwd) {
        const m = env.match(/<cwd>([^<]+)<\/cwd>/);
        if (m) this.st.b.cwd = m[1].trim();
      }
      const prompt = texts.map(cleanCodexPrompt).filter(Boolean).join('\n');
      // `$name` in a prompt makes Codex record the skill's SKILL.md as a `<skill>` item right after it
      const skills = texts.flatMap(codexInjectedSkills);
      if (!prompt) {
        if (skills.length && this.promptMeta) addSkillMeta(this.promptMeta, skills);
        return this.b.skip('injected');
      }
      this.promptMeta = {};
      if (skills.length) addSkillMeta(this.promptMeta, skills);
      return this.b.prompt(prompt, ts, this.promptMeta);
    }
    if (role === 'assistant') {
      const text = texts.join('');
      if (!text.trim()) return this.b.skip('empty');
      const phase = str(p.phase);
      this.b.text(text, ts, { candidate: phase !== 'commentary', complete: phase === 'final_answer', meta: phase ? { phase } : {} });
      return;
    }
    this.b.skip('injected'); // developer/system
  }

  flush(): ParseOutput {
    // bare-era files carry no end-of-turn signal: the last answer so far counts as final
    this.promptMeta = null; // a prompt already handed out cannot be amended
    return this.b.flush(true);
  }

  saveState(): unknown {
    return this.st;
  }
}

const ENVELOPE_HEAD = /^\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"(\w+)"(?:,"payload":\{"type":"(\w+)")?/;
/** event_msg payloads the parser reads; every other event duplicates response items or is bookkeeping */
const EVENTS_READ = new Set(['task_started', 'turn_started', 'task_complete', 'turn_complete', 'thread_name_updated']);
const TOOL_ITEMS = new Set(['function_call_output', 'custom_tool_call_output', 'function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_output']);

/** Skips bookkeeping lines (token counts, world state, encrypted reasoning, compaction, UI events) unparsed. */
export function codexPrefilter(line: string): string | null {
  const m = ENVELOPE_HEAD.exec(line.slice(0, 160));
  if (!m) return null;
  if (m[1] === 'world_state' || m[1] === 'compacted') return 'side-channel';
  if (m[1] === 'event_msg' && m[2] && !EVENTS_READ.has(m[2])) return 'event';
  if (m[2] === 'reasoning' || m[2] === 'ghost_snapshot') return 'side-channel';
  return null;
}

export function codexShrinkable(line: string): boolean {
  const m = ENVELOPE_HEAD.exec(line.slice(0, 160));
  if (m) return m[1] === 'response_item' && !!m[2] && TOOL_ITEMS.has(m[2]);
  // bare era: `{"type":"function_call_output",…}`
  const t = /^\{"type":"(\w+)"/.exec(line);
  return !!t && TOOL_ITEMS.has(t[1]);
}

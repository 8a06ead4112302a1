/**
 * Copilot CLI `events.jsonl` → events (docs/transcript-formats.md §4). Envelope
 * `{type,data,id,timestamp,parentId}`; events with a top-level `agentId` belong to a sub-agent and
 * are skipped; hidden skill/inter-agent user messages are skipped; a shell's non-zero exit is a
 * success:true result ending `<exited with exit code N>`. The flat older layout
 * (`session-state/<id>.jsonl`) has the same events but no cwd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { arr, isObj, obj, str, toMs, type Json } from '../kit/json.js';
import { emptyBuilderState, SessionBuilder, summarizeInput, type BuilderState } from '../kit/session-builder.js';
import type { LineParser, ParseOutput } from '../types.js';
import { COPILOT_HIDDEN_CONTENT } from './vocabulary.js';
import { addSkillMeta, cleanSkillName, skillFromToolInput } from '../skill-signal.js';

export const HIDDEN_CONTENT = COPILOT_HIDDEN_CONTENT;

export function copilotCliSessionId(filePath: string): string {
  const base = path.basename(filePath);
  return base === 'events.jsonl' ? path.basename(path.dirname(filePath)) : base.replace(/\.jsonl$/, '');
}

/** A few scalar keys of `workspace.yaml` (flat `key: value`), without a YAML parser in the hot path. */
export function readWorkspaceYaml(file: string): Record<string, string> {
  let text: string;
  try {
    // (most session folders have none: a failed read builds an error with a stack, ~20 µs, so
    // the common case is asked first, without one)
    if (!fs.existsSync(file)) return {};
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2].trim();
    if ((v.startsWith("'") && v.endsWith("'")) || (v.startsWith('"') && v.endsWith('"'))) v = v.slice(1, -1);
    out[m[1]] = v;
  }
  return out;
}

export function copilotExitIsError(content: string): boolean {
  const m = /<exited with exit code (-?\d+)>\s*$/.exec(content.slice(-200));
  return !!m && Number(m[1]) !== 0;
}

interface CliState {
  b: BuilderState;
  yamlRead: boolean;
  /** folders of absolute paths the session's tools touched (kept only while the cwd is unknown) */
  touched?: string[];
}

/** Where a session ran when its log does not say (VS Code's transcripts store): see ./vscode-transcripts.ts. */
export type CwdFallback = (filePath: string, vendorId: string, touchedDirs: readonly string[]) => string | null;

const TOUCHED_CAP = 200;
const PATH_KEYS = ['filePath', 'path', 'file_path', 'dirPath', 'cwd'];

export class CopilotCliParser implements LineParser {
  private readonly b: SessionBuilder;
  private readonly st: CliState;
  /** meta of the last prompt while it is still in this flush, and the skills its turn loaded by tool call */
  private promptMeta: Record<string, unknown> | null = null;
  private readonly turnSkillCalls = new Set<string>();

  constructor(
    private readonly filePath: string,
    state?: unknown,
    private readonly cwdFallback?: CwdFallback,
  ) {
    const s = state as CliState | undefined;
    this.st = s && isObj(s) && isObj(s.b) ? s : { b: emptyBuilderState(), yamlRead: false };
    this.b = new SessionBuilder('copilot', this.st.b);
    if (!this.st.b.vendorId) this.st.b.vendorId = copilotCliSessionId(filePath);
  }

  private context(ctx: Json | undefined): void {
    if (!ctx) return;
    this.b.setCwd(ctx.cwd);
    if (typeof ctx.gitRoot === 'string' && ctx.gitRoot) this.st.b.gitRoot = ctx.gitRoot;
    if (typeof ctx.branch === 'string' && ctx.branch) this.st.b.gitBranch = ctx.branch;
  }

  line(o: Json): void {
    const type = str(o.type) ?? '';
    const d = obj(o.data) ?? {};
    const ts = toMs(o.timestamp);
    this.b.touch(ts);
    if (typeof o.agentId === 'string' || typeof d.parentToolCallId === 'string') return this.b.skip('subagent');
    switch (type) {
      case 'session.start':
      case 'session.resume':
        this.context(obj(d.context));
        if (type === 'session.start') this.b.touch(toMs(d.startTime));
        return;
      case 'session.title_changed':
        if (typeof d.title === 'string') this.st.b.title = d.title;
        return;
      case 'user.message': {
        const content = str(d.content) ?? '';
        const source = str(d.source) ?? '';
        if (/^(skill-|agent-|system)/.test(source)) return this.b.skip('injected');
        const t = content.trim();
        if (!t) return this.b.skip('empty');
        if (HIDDEN_CONTENT.some((p) => t.startsWith(p))) return this.b.skip('injected');
        this.promptMeta = d.delivery === 'steering' || d.delivery === 'queued' ? { delivery: d.delivery } : {};
        this.turnSkillCalls.clear();
        return this.b.prompt(t, ts, this.promptMeta);
      }
      case 'skill.invoked': {
        // a skill the user invoked themselves has no `skill` tool call: it belongs to the prompt
        const name = cleanSkillName(d.name);
        if (name && !this.turnSkillCalls.has(name) && this.promptMeta) addSkillMeta(this.promptMeta, [name]);
        return this.b.skip('event');
      }
      case 'assistant.message': {
        const requests = arr(d.toolRequests).filter(isObj);
        const content = str(d.content) ?? '';
        if (content.trim()) this.b.text(content, ts, { candidate: requests.length === 0, complete: requests.length === 0 });
        for (const r of requests) {
          const name = str(r.name) ?? 'unknown';
          const skill = name === 'skill' ? skillFromToolInput(r.arguments) : null;
          if (skill) this.turnSkillCalls.add(skill);
          if (this.cwdFallback && !this.st.b.cwd) this.noteTouched(r.arguments);
          this.b.toolCall(name, str(r.toolCallId), summarizeInput(r.arguments), ts, skill ? { skill } : undefined);
        }
        return;
      }
      case 'tool.execution_complete': {
        const result = obj(d.result);
        const err = obj(d.error);
        const content = str(result?.content) ?? str(err?.message) ?? '';
        const isError = d.success === false || copilotExitIsError(content);
        return this.b.toolResult(str(d.toolCallId), content, isError, ts, undefined, str(d.toolName));
      }
      case 'system.message':
      case 'assistant.reasoning':
        return this.b.skip('side-channel');
      default:
        return this.b.skip(type.includes('.') ? 'event' : 'unknown-type');
    }
  }

  /** Remembers the folders of absolute paths in a tool call's arguments (a project guess of last resort). */
  private noteTouched(args: unknown): void {
    let a: unknown = args;
    if (typeof a === 'string') {
      try {
        a = JSON.parse(a);
      } catch {
        return;
      }
    }
    if (!isObj(a)) return;
    const touched = (this.st.touched ??= []);
    for (const k of PATH_KEYS) {
      const v = a[k];
      if (typeof v !== 'string' || !path.isAbsolute(v) || touched.length >= TOUCHED_CAP) continue;
      const dir = k === 'dirPath' || k === 'cwd' ? v : path.dirname(v);
      if (!touched.includes(dir)) touched.push(dir);
    }
  }

  flush(): ParseOutput {
    if (this.cwdFallback && !this.st.b.cwd) {
      const cwd = this.cwdFallback(this.filePath, this.st.b.vendorId ?? '', this.st.touched ?? []);
      if (cwd) {
        this.st.b.cwd = cwd;
        delete this.st.touched;
      }
    }
    if (!this.st.yamlRead && path.basename(this.filePath) === 'events.jsonl') {
      // workspace.yaml fills what session.start lacks (and names the session)
      this.st.yamlRead = true;
      const y = readWorkspaceYaml(path.join(path.dirname(this.filePath), 'workspace.yaml'));
      if (!this.st.b.cwd && y.cwd) this.st.b.cwd = y.cwd;
      if (!this.st.b.gitRoot && y.git_root) this.st.b.gitRoot = y.git_root;
      if (!this.st.b.gitBranch && y.branch) this.st.b.gitBranch = y.branch;
      if (!this.st.b.title && (y.summary || y.name)) this.st.b.title = y.summary || y.name;
    }
    // a prompt already handed out cannot be amended
    this.promptMeta = null;
    return this.b.flush(false);
  }

  saveState(): unknown {
    return this.st;
  }
}

const SKIP_TYPES = /^\{"type":"(system\.message|assistant\.reasoning|tool\.execution_start|tool\.execution_partial_result|hook\.[a-z_]+|permission\.[a-z_]+|assistant\.turn_(?:start|end)|assistant\.usage|session\.usage_checkpoint)"/;

export function copilotCliPrefilter(line: string): string | null {
  const m = SKIP_TYPES.exec(line);
  if (!m) return null;
  return m[1] === 'system.message' || m[1] === 'assistant.reasoning' ? 'side-channel' : 'event';
}

export function copilotCliShrinkable(line: string): boolean {
  return line.startsWith('{"type":"tool.execution_complete"');
}

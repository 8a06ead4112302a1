/**
 * The anatomy of a SKILL.md (or instruction) document, in one place: where its YAML front matter
 * ends, what the front matter says (name, description, applyTo), its headings and sections, and
 * the learned region the trainer writes. Every reader — the trainer, the skill registry, the CLI
 * backends that install a skill, the simulator — goes through here, so they cannot disagree on
 * what is front matter (they once did: a first line `--- ` with a trailing space was front matter
 * to the trainer and nothing to the registry).
 */
import { createRequire } from 'node:module';
import type YamlModule from 'yaml';

// loaded on first use: the agent registry imports this module, so every harvest worker thread
// did too, and loading the YAML library cost each ~40 ms of CPU it never needed (workers parse
// transcripts, not skill documents)
let yamlModule: typeof YamlModule | null = null;
function yaml(): typeof YamlModule {
  return (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof YamlModule);
}

export { findSection, headingMatches, normalizeHeading, parseHeadings, type Heading, type Section } from '../core/markdown.js';

/** Markers of the region the trainer may edit in a hand-written skill. */
export const LEARNED_START = '<!-- skillopt:learned:start -->';
export const LEARNED_END = '<!-- skillopt:learned:end -->';
/** Markers of the protected guidance block (only the epoch slow update rewrites its inside). */
export const GUIDANCE_START = '<!-- skillopt:guidance:start -->';
export const GUIDANCE_END = '<!-- skillopt:guidance:end -->';

/** A fence line of front matter: `---`, trailing blanks allowed (editors leave them). */
const OPEN_FENCE = /^---[ \t]*\r?\n/;
const CLOSE_FENCE = /^---[ \t]*(?:\r?\n|$)/m;

/**
 * Splits off YAML front matter: a `---` first line through the next `---` line, newline included.
 * Unterminated front matter is body (never guess where it would end). Joining gives back `text`.
 */
export function splitFrontMatter(text: string): { front: string; body: string } {
  const m = OPEN_FENCE.exec(text);
  if (!m) return { front: '', body: text };
  const rest = text.slice(m[0].length);
  const c = CLOSE_FENCE.exec(rest);
  if (!c) return { front: '', body: text };
  const end = m[0].length + c.index + c[0].length;
  return { front: text.slice(0, end), body: text.slice(end) };
}

/** The YAML between the fences of a `front` returned by splitFrontMatter ('' when none). */
export function frontMatterYaml(front: string): string {
  if (!front) return '';
  const afterOpen = front.replace(OPEN_FENCE, '');
  const c = CLOSE_FENCE.exec(afterOpen);
  return c ? afterOpen.slice(0, c.index).replace(/\r?\n$/, '') : afterOpen;
}

/** Whether a front matter block (fences included) holds a YAML mapping (an empty block does not). */
export function isFrontMatterValid(front: string): boolean {
  const inner = frontMatterYaml(front);
  try {
    const v: unknown = yaml().parse(inner);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

export interface FrontMatter {
  name?: string;
  description?: string;
  /** Copilot's path scope of an `.instructions.md` file */
  applyTo?: string;
}

/** What a document's front matter says; {} when it has none or it is not a YAML mapping. */
export function parseFrontMatter(text: string): FrontMatter {
  const { front } = splitFrontMatter(text);
  const inner = frontMatterYaml(front);
  if (!inner.trim()) return {};
  try {
    const data: unknown = yaml().parse(inner);
    if (!data || typeof data !== 'object' || Array.isArray(data)) return {};
    const d = data as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const out: FrontMatter = {};
    const name = str(d.name);
    const description = str(d.description);
    const applyTo = str(d.applyTo);
    if (name !== undefined) out.name = name;
    if (description !== undefined) out.description = description;
    if (applyTo !== undefined) out.applyTo = applyTo;
    return out;
  } catch {
    return {};
  }
}

/** An Agent Skill (as opposed to an instruction file): front matter with a non-empty `name`. */
export function isAgentSkill(text: string): boolean {
  const name = parseFrontMatter(text).name;
  return typeof name === 'string' && name.trim() !== '';
}

/**
 * The learned region's inside (between the markers), or null when the document has none. A
 * start marker without an end marker runs to the end of the document, as the trainer reads it.
 */
export function learnedRegion(text: string): string | null {
  const lower = text.toLowerCase();
  const s = lower.indexOf(LEARNED_START);
  if (s < 0) return null;
  const from = s + LEARNED_START.length;
  const e = lower.indexOf(LEARNED_END, from);
  return text.slice(from, e < 0 ? text.length : e).replace(/^\r?\n/, '');
}

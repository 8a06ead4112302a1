/**
 * One view over every agent's skill locations: the merged skill roots, which agents read a given
 * file (`readBy`, shown by the review screen), discovery of a project's existing skills and
 * instruction files, the managed learned skill of a project, and the write guard that keeps
 * `apply` inside the resolved roots (PATH_ESCAPE otherwise).
 *
 * The managed learned skill goes to the folder, among the managed roots of the agents the user
 * works with in that project (adapters/<agent>/index.ts `skills.projectManagedRoot`), that is read
 * by the most of them; a tie goes to the earlier agent of the registry. So with Claude Code it is
 * `<project>/.claude/skills/skillopt-sleep-learned/SKILL.md` (read by Claude Code and Copilot), with
 * Codex alone `<project>/.agents/skills/…` (read by Codex, Copilot and Gemini CLI). No single
 * project folder is read by every agent (docs/REFERENCE.md, "Where data lives"): when an agent used does not read the
 * chosen folder (Claude Code with Codex), the target carries a copy in that agent's root
 * (`mirrors`), written and reverted with it. The review screen shows who reads each file.
 * Habits that recur across projects go to the personal managed skill (`personalManagedSkillTarget`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type YamlModule from 'yaml';
import type { AgentId, SkillTarget } from '../src/core/records.js';
import { SleepError } from '../src/core/errors.js';
import { AGENT_IDS, getAgent } from './index.js';
import type { InstructionFile, SkillLocationContext } from './skills-common.js';

export type { SkillLocationContext, SkillRoot, InstructionFile } from './skills-common.js';

// loaded on first use, as in src/core/skill-doc.ts: every CLI command imports this module through
// the agent registry, and evaluating the YAML library cost each run ~90 ms of CPU that only
// writing a new managed skill needs
let yamlModule: typeof YamlModule | null = null;
const yaml = (): typeof YamlModule => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof YamlModule);

export const MANAGED_SKILL_NAME = 'skillopt-sleep-learned';
export const ALL_AGENTS: AgentId[] = [...AGENT_IDS];

/** A root folder with every agent that reads it. */
export interface MergedRoot {
  dir: string;
  scope: 'project' | 'personal';
  agents: AgentId[];
  reserved: string[];
}

/** Whether some agent names `file` an instruction file by pattern (Copilot's `*.instructions.md`); which one. */
function patternInstructionReaders(project: string | null, file: string): AgentId[] {
  if (!project) return [];
  return ALL_AGENTS.filter((a) => getAgent(a).skills.isInstructionPath?.(project, file) ?? false);
}

/** All skill roots of the given agents, deduplicated by folder, agents merged, in priority order. */
export function skillRoots(ctx: SkillLocationContext, agents: AgentId[] = ALL_AGENTS): MergedRoot[] {
  const byDir = new Map<string, MergedRoot>();
  for (const agent of agents) {
    for (const r of getAgent(agent).skills.roots(ctx)) {
      const dir = path.resolve(r.dir);
      const cur = byDir.get(dir);
      if (cur) {
        if (!cur.agents.includes(agent)) cur.agents.push(agent);
        for (const x of r.reserved ?? []) if (!cur.reserved.includes(x)) cur.reserved.push(x);
      } else {
        byDir.set(dir, { dir, scope: r.scope, agents: [agent], reserved: [...(r.reserved ?? [])] });
      }
    }
  }
  return [...byDir.values()];
}

/** All instruction files (existing or not) of the given agents, deduplicated, agents merged. */
export function instructionFiles(ctx: SkillLocationContext, agents: AgentId[] = ALL_AGENTS): Array<InstructionFile & { agents: AgentId[] }> {
  const byPath = new Map<string, InstructionFile & { agents: AgentId[] }>();
  for (const agent of agents) {
    for (const f of getAgent(agent).skills.instructionFiles(ctx)) {
      const p = path.resolve(f.path);
      const cur = byPath.get(p);
      if (cur) {
        if (!cur.agents.includes(agent)) cur.agents.push(agent);
      } else byPath.set(p, { ...f, path: p, agents: [agent] });
    }
  }
  return [...byPath.values()];
}

/** Which agents read the file at `file` (a `<root>/<name>/SKILL.md` or an instruction file). */
export function readBy(file: string, ctx: SkillLocationContext): AgentId[] {
  const abs = path.resolve(file);
  const agents = new Set<AgentId>();
  if (path.basename(abs) === 'SKILL.md') {
    const root = path.dirname(path.dirname(abs));
    for (const r of skillRoots(ctx)) if (r.dir === root) r.agents.forEach((a) => agents.add(a));
  }
  for (const f of instructionFiles(ctx)) if (f.path === abs) f.agents.forEach((a) => agents.add(a));
  for (const a of patternInstructionReaders(ctx.project, abs)) agents.add(a);
  return ALL_AGENTS.filter((a) => agents.has(a));
}

/** Agent Skills convention: lowercase letters, digits and single hyphens; at most 64 chars. */
export function isValidSkillName(name: string): boolean {
  return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name) && name.length <= 64;
}

export { parseFrontMatter, type FrontMatter } from '../src/skilldoc/document.js';

/**
 * A new skill document with valid front matter (name matches the folder; description decides pickup).
 * Its intro line is for the person reading the file, not an instruction: the agent reads every line
 * of a skill, and "Review changes with `skillopt-sleep review`" read as one more rule for every reply
 * (the sim target took it so; a model could run or suggest the command). As a plain sentence it was
 * still read as something to say in every reply, so it is an HTML comment: meta text, not content
 * (outcome world, 30 seeds: the staged skills scored +0.009 with it as a comment).
 */
export function scaffoldSkill(name: string, description: string): string {
  if (!isValidSkillName(name)) throw new SleepError('INVALID_INPUT', `invalid skill name "${name}"`, { hint: 'use lowercase letters, digits and hyphens' });
  const desc = description.replace(/\s+/g, ' ').trim();
  return `---\n${yaml().stringify({ name, description: desc }).trimEnd()}\n---\n\n# ${name}\n\n<!-- Learned by skillopt-sleep from your recurring tasks; each change was reviewed by the user before it landed here. -->\n`;
}

function isFile(p: string): boolean {
  try {
    return fs.lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** The user's existing skills and instruction files for a project (plus personal ones). */
export function discoverSkills(ctx: SkillLocationContext, agents: AgentId[] = ALL_AGENTS): SkillTarget[] {
  const out: SkillTarget[] = [];
  const seen = new Set<string>();
  for (const root of skillRoots(ctx, agents)) {
    let names: string[];
    try {
      names = fs.readdirSync(root.dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (root.reserved.includes(name) || name.startsWith('.')) continue;
      const file = path.join(root.dir, name, 'SKILL.md');
      if (seen.has(file) || !isFile(file)) continue;
      seen.add(file);
      out.push({
        agent: root.agents.length === 1 ? root.agents[0] : null,
        path: file,
        name,
        kind: name === MANAGED_SKILL_NAME ? 'managed' : 'skill',
        readBy: readBy(file, ctx),
        project: root.scope === 'project' ? ctx.project : null,
      });
    }
  }
  for (const f of instructionFiles(ctx, agents)) {
    if (seen.has(f.path) || !isFile(f.path)) continue;
    seen.add(f.path);
    const rb = readBy(f.path, ctx);
    out.push({
      agent: rb.length === 1 ? rb[0] : null,
      path: f.path,
      name: instructionName(f.path, ctx),
      kind: f.kind,
      readBy: rb,
      project: f.scope === 'project' ? ctx.project : null,
    });
  }
  return out;
}

function instructionName(file: string, ctx: SkillLocationContext): string {
  if (ctx.project) {
    const rel = path.relative(ctx.project, file);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return path.basename(file);
}

/**
 * Of the candidate files (one per agent used, in registry order), the one read by the most agents
 * used; a tie goes to the earlier candidate. No agent used: the first agent of the registry's.
 */
function bestManagedFile(used: AgentId[], candidate: (a: AgentId) => string, readers: (file: string) => AgentId[]): string {
  const agents = used.length ? ALL_AGENTS.filter((a) => used.includes(a)) : [ALL_AGENTS[0]];
  let best: { file: string; reach: number } | null = null;
  for (const a of agents) {
    const file = candidate(a);
    const reach = readers(file).filter((r) => agents.includes(r)).length;
    if (!best || reach > best.reach) best = { file, reach };
  }
  return best!.file;
}

/**
 * Where copies of the managed skill go so that every agent used reads it: for each agent used that
 * does not read `file` (or an earlier copy), its own managed root. Claude Code and Codex together
 * have no common folder: the skill lands in `.claude/skills/` and a copy in `.agents/skills/`.
 */
function managedMirrors(used: AgentId[], file: string, candidate: (a: AgentId) => string, readers: (file: string) => AgentId[]): Array<{ path: string; readBy: AgentId[] }> {
  const reached = new Set(readers(file));
  const out: Array<{ path: string; readBy: AgentId[] }> = [];
  for (const a of ALL_AGENTS.filter((x) => used.includes(x))) {
    if (reached.has(a)) continue;
    const copy = candidate(a);
    if (path.resolve(copy) === path.resolve(file) || out.some((m) => m.path === copy)) continue;
    const rb = readers(copy);
    if (!rb.includes(a)) continue;
    rb.forEach((r) => reached.add(r));
    out.push({ path: copy, readBy: rb });
  }
  return out;
}

/** The project's managed learned skill (see the module comment for where and why). */
export function managedSkillTarget(ctx: SkillLocationContext & { project: string }, opts: { agentsUsed?: AgentId[]; name?: string } = {}): SkillTarget {
  const name = opts.name ?? MANAGED_SKILL_NAME;
  const candidate = (a: AgentId) => path.join(getAgent(a).skills.projectManagedRoot(ctx.project), name, 'SKILL.md');
  const readers = (f: string) => readBy(f, ctx);
  const file = bestManagedFile(opts.agentsUsed ?? [], candidate, readers);
  const mirrors = managedMirrors(opts.agentsUsed ?? [], file, candidate, readers);
  return { agent: null, path: file, name, kind: 'managed', readBy: readBy(file, ctx), project: ctx.project, ...(mirrors.length ? { mirrors } : {}) };
}

/**
 * The personal managed learned skill: where habits that recur across projects are learned (a
 * family of tasks seen in several projects belongs to no single project). The same rule as the
 * project's, over each agent's personal managed root: Claude Code's is its config folder's
 * `skills/` (`$CLAUDE_CONFIG_DIR/skills`, first entry, else `~/.claude/skills`, which Copilot reads
 * too), Copilot's `~/.claude/skills`, Codex's `~/.agents/skills` (read by Codex, Copilot and
 * Gemini CLI), Gemini CLI's `~/.gemini/skills`. `readBy` says which agents actually read the
 * chosen file. HOME comes from the context's env, so sandboxes stay sandboxed.
 */
export function personalManagedSkillTarget(ctx: Omit<SkillLocationContext, 'project'>, opts: { agentsUsed?: AgentId[]; name?: string } = {}): SkillTarget {
  const name = opts.name ?? MANAGED_SKILL_NAME;
  const personal = { ...ctx, project: null };
  const candidate = (a: AgentId) => path.join(getAgent(a).skills.personalManagedRoot(personal), name, 'SKILL.md');
  const readers = (f: string) => readBy(f, personal);
  const file = bestManagedFile(opts.agentsUsed ?? [], candidate, readers);
  const mirrors = managedMirrors(opts.agentsUsed ?? [], file, candidate, readers);
  return { agent: null, path: file, name, kind: 'managed', readBy: readBy(file, personal), project: null, ...(mirrors.length ? { mirrors } : {}) };
}

/**
 * Resolves `--skill NAME|PATH` to a target: a path must pass the write guard; a name matches a
 * discovered skill folder name or instruction-file name. Ambiguous names are refused.
 */
/** A `--skill` value that is a path (the user named the file), not a skill name. */
export function isSkillPathSpec(spec: string): boolean {
  return spec.includes('/') || spec.includes(path.sep) || spec.endsWith('.md');
}

export function resolveSkillTarget(spec: string, ctx: SkillLocationContext): SkillTarget {
  if (isSkillPathSpec(spec)) {
    const file = path.resolve(ctx.project ?? process.cwd(), spec);
    assertWritableTarget(file, ctx);
    const existing = discoverSkills(ctx).find((t) => t.path === file);
    if (existing) return existing;
    const name = path.basename(file) === 'SKILL.md' ? path.basename(path.dirname(file)) : instructionName(file, ctx);
    return { agent: null, path: file, name, kind: path.basename(file) === 'SKILL.md' ? 'skill' : 'instructions', readBy: readBy(file, ctx), project: ctx.project };
  }
  if (spec === MANAGED_SKILL_NAME && ctx.project) return managedSkillTarget({ ...ctx, project: ctx.project });
  if (spec === MANAGED_SKILL_NAME) {
    // no project: the personal managed skill, wherever a night put it (else where it would go)
    const found = discoverSkills(ctx).find((t) => t.name === MANAGED_SKILL_NAME && t.project === null);
    return found ?? personalManagedSkillTarget(ctx);
  }
  const matches = discoverSkills(ctx).filter((t) => t.name === spec);
  const distinct = [...new Set(matches.map((m) => m.path))];
  if (distinct.length === 0) {
    throw new SleepError('NOT_FOUND', `no skill named "${spec}" in the skill folders of ${ctx.project ?? 'your home'}`, {
      hint: '`skillopt-sleep skills` lists them; or pass the path of the SKILL.md',
    });
  }
  if (distinct.length > 1) {
    throw new SleepError('INVALID_INPUT', `skill name "${spec}" is ambiguous: ${distinct.join(', ')}`, { hint: 'pass the path of the SKILL.md instead' });
  }
  return matches[0];
}

function escape(file: string, why: string): SleepError {
  return new SleepError('PATH_ESCAPE', `refusing to write ${file}: ${why}`, {
    hint: 'skills are written only as <skill root>/<name>/SKILL.md or a known instruction file; see `skillopt-sleep paths`',
  });
}

/** Nearest existing ancestor's realpath, with the non-existing tail re-appended. */
function realpathLoose(p: string): string {
  const tail: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...tail.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      tail.push(path.basename(cur));
      cur = parent;
    }
  }
}

/**
 * The write guard: `file` must be `<root>/<name>/SKILL.md` under a resolved skill root (valid
 * single-segment name, not a reserved folder such as Codex's `.system`) or a known instruction
 * file; and no symlink may redirect it elsewhere (the skill folder's real path must be the root's
 * real path + name, and the file itself must not be a symlink). Throws PATH_ESCAPE otherwise.
 * Returns the root (or instruction file) that admits it.
 */
export function assertWritableTarget(file: string, ctx: SkillLocationContext): { kind: 'skill'; root: MergedRoot } | { kind: 'instructions' } {
  if (!path.isAbsolute(file)) throw escape(file, 'not an absolute path');
  if (file.split(/[\\/]/).includes('..')) throw escape(file, 'the path contains ".."');
  const abs = path.normalize(file);
  let verdict: { kind: 'skill'; root: MergedRoot } | { kind: 'instructions' } | undefined;
  if (path.basename(abs) === 'SKILL.md') {
    const skillDir = path.dirname(abs);
    const name = path.basename(skillDir);
    const root = skillRoots(ctx).find((r) => r.dir === path.dirname(skillDir));
    if (!root) throw escape(abs, 'it is not inside a skill folder the agents read');
    if (root.reserved.includes(name)) throw escape(abs, `"${name}" belongs to the agent itself`);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw escape(abs, `"${name}" is not a safe skill name`);
    const expected = path.join(realpathLoose(root.dir), name);
    if (realpathLoose(skillDir) !== expected) throw escape(abs, 'a symlink in the path leads outside the skill root');
    verdict = { kind: 'skill', root };
  } else {
    const known = instructionFiles(ctx).some((f) => f.path === abs) || patternInstructionReaders(ctx.project, abs).length > 0;
    if (!known) throw escape(abs, 'it is neither a SKILL.md in a skill folder nor a known instruction file');
    const parentReal = realpathLoose(path.dirname(abs));
    const projectReal = ctx.project ? realpathLoose(ctx.project) : null;
    const lexicalRel = ctx.project ? path.relative(ctx.project, path.dirname(abs)) : null;
    if (projectReal && lexicalRel !== null && !lexicalRel.startsWith('..') && parentReal !== path.join(projectReal, lexicalRel)) {
      throw escape(abs, 'a symlink in the path leads outside the project');
    }
    verdict = { kind: 'instructions' };
  }
  try {
    if (fs.lstatSync(abs).isSymbolicLink()) throw escape(abs, 'the file is a symlink');
  } catch (err) {
    if (err instanceof SleepError) throw err;
  }
  return verdict;
}

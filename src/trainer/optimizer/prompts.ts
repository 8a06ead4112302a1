/**
 * Optimizer prompt templates live in `skills/prompts/<name>.md` and are read at run time, so they
 * can be tuned without a rebuild. A template is the system prompt, then a line `<!-- user -->`,
 * then the user prompt; `{{name}}` placeholders are filled from a map (unknown ones are an error,
 * so a renamed variable cannot silently produce an empty section).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SleepError } from '../../core/errors.js';
import { packageRoot } from '../../core/version.js';

export type PromptName =
  | 'reflect_failures'
  | 'reflect_successes'
  | 'merge'
  | 'merge_final'
  | 'rank'
  | 'lr_budget'
  | 'slow_update'
  | 'meta_skill';

export interface RenderedPrompt {
  system: string;
  prompt: string;
}

/** `<pkg>/skills/prompts`: found from the package root, so it holds from src/ (tests), dist/ (the CLI) and dist-bench/ (the bench). */
export function promptsDir(): string {
  const root = packageRoot();
  if (!root) throw new SleepError('INTERNAL', 'cannot find the package root (no package.json above the trainer)', { hint: 'reinstall skillopt-sleep; the package ships skills/prompts/*.md' });
  return path.join(root, 'skills', 'prompts');
}

const cache = new Map<string, { system: string; user: string }>();

export function loadTemplate(name: PromptName, dir = promptsDir()): { system: string; user: string } {
  const file = path.join(dir, `${name}.md`);
  const hit = cache.get(file);
  if (hit) return hit;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SleepError('INTERNAL', `optimizer prompt template ${file} is missing`, {
      hint: 'reinstall skillopt-sleep; the package ships skills/prompts/*.md',
      cause: err,
    });
  }
  const [system, user = ''] = text.split(/^<!-- user -->\s*$/m);
  const t = { system: system.trim(), user: user.replace(/^\n/, '') };
  cache.set(file, t);
  return t;
}

export function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in vars)) throw new SleepError('INTERNAL', `prompt placeholder {{${key}}} has no value`);
    return String(vars[key]);
  });
}

export function renderPrompt(name: PromptName, vars: Record<string, string | number>, dir?: string): RenderedPrompt {
  const t = loadTemplate(name, dir);
  return { system: fill(t.system, vars), prompt: fill(t.user, vars) };
}

/** Caps a text for a prompt, marking the cut (upstream removed every cap and overflowed contexts). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n…[${text.length - max} more characters]`;
}

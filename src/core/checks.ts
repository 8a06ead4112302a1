/**
 * Rule checks: validation of a check definition and evaluation of a response against it.
 *
 * Every op in `CheckOp` is handled here and nowhere else, so mining (which synthesizes checks),
 * replay (which scores responses) and the sim backend (which writes responses that must really
 * pass or fail these checks) share one definition of what a check means.
 *
 * Sealed checks count in the score but their feedback is always empty: their text must never
 * reach the optimizer.
 */
import type { Check, CheckResult } from './records.js';
import { SleepError } from './errors.js';
import { findSection, normalizeHeading } from './markdown.js';
import { isCommandTool } from './tool-kinds.js';

const REGEX_FLAGS = /^[dgimsuyv]*$/;

/** Throws INVALID_INPUT naming the check and the problem when the definition cannot be evaluated. */
export function validateCheck(check: Check): void {
  const id = typeof check.id === 'string' ? check.id.trim() : '';
  const fail = (problem: string): never => {
    throw new SleepError('INVALID_INPUT', `check ${id ? `"${id}"` : '(no id)'} (${check.op}): ${problem}`, {
      hint: 'fix the check definition in the task file, or disable the task with `skillopt-sleep tasks`',
    });
  };
  if (!id) fail('missing id');
  if (check.target !== undefined && !(typeof check.target === 'string' && /^(reply|diff|file:.+)$/.test(check.target))) {
    fail(`target must be reply, diff or file:<path>, got ${JSON.stringify(check.target)}`);
  }
  if (check.weight !== undefined && !(typeof check.weight === 'number' && check.weight > 0 && Number.isFinite(check.weight))) {
    fail(`weight must be a positive number, got ${String(check.weight)}`);
  }
  const text = (what: string): string => {
    if (typeof check.value !== 'string' || check.value.length === 0) fail(`missing ${what} (value must be a non-empty string)`);
    return check.value as string;
  };
  switch (check.op) {
    case 'contains':
    case 'not_contains':
    case 'starts_with':
      text('text operand');
      return;
    case 'tool_called':
      text('tool name');
      return;
    case 'ran_command':
      if (!normalizeCommand(text('command'))) fail('command is empty');
      return;
    case 'section_present':
      if (!normalizeHeading(text('section heading'))) fail('section heading is empty');
      return;
    case 'section_contains':
      if (!normalizeHeading(text('section heading'))) fail('section heading is empty');
      if (typeof check.needle !== 'string' || check.needle.length === 0) fail('missing needle (the text expected inside the section)');
      return;
    case 'regex': {
      const pattern = text('pattern');
      const flags = check.flags ?? '';
      if (!REGEX_FLAGS.test(flags) || new Set(flags).size !== flags.length) fail(`invalid regex flags "${flags}"`);
      try {
        new RegExp(pattern, flags);
      } catch (err) {
        fail(`invalid regex /${pattern}/: ${(err as Error).message}`);
      }
      return;
    }
    case 'min_chars':
    case 'max_chars': {
      const n = typeof check.value === 'string' && check.value.trim() !== '' ? Number(check.value) : check.value;
      if (n === undefined) fail('missing length (value must be a number of characters)');
      if (typeof n !== 'number' || !Number.isFinite(n)) fail(`length must be a number, got ${JSON.stringify(check.value)}`);
      if ((n as number) < 0) fail(`length must not be negative, got ${String(n)}`);
      if (!Number.isInteger(n)) fail(`length must be a whole number, got ${String(n)}`);
      return;
    }
    case 'json_valid':
    case 'no_refusal':
      return;
    default:
      fail(`unknown op "${String((check as { op: unknown }).op)}"`);
  }
}

/**
 * Evaluates one check. The check must be valid (see validateCheck); an invalid one throws.
 * `response` is the text the check's target names (the reply, a changed file, the diff);
 * `subject` names it in feedback.
 */
export function evaluateCheck(check: Check, response: string, toolsCalled: string[], subject = 'the response', commandsRun: readonly string[] = []): CheckResult {
  validateCheck(check);
  const outcome = runOp(check, response, toolsCalled, commandsRun);
  const sealed = check.sealed === true;
  return {
    checkId: check.id,
    passed: outcome.passed,
    score: outcome.passed ? 1 : 0,
    sealed,
    feedback: sealed || outcome.passed ? '' : failureFeedback(check, outcome.why, subject),
  };
}

/** Evaluates every check of a judge; results in the same order. */
export function evaluateChecks(checks: Check[], response: string, toolsCalled: string[], commandsRun: readonly string[] = []): CheckResult[] {
  return checks.map((c) => evaluateCheck(c, response, toolsCalled, 'the response', commandsRun));
}

/** A command line compared as a user reads it: whitespace runs folded, ends trimmed. */
export function normalizeCommand(command: string): string {
  return command.trim().replace(/\s+/g, ' ');
}

/** A short human statement of what the check requires (used in feedback and by the sim). */
export function describeCheck(check: Check): string {
  const v = check.value;
  switch (check.op) {
    case 'contains':
      return `include "${String(v)}"`;
    case 'not_contains':
      return `never include "${String(v)}"`;
    case 'regex':
      return `match the pattern /${String(v)}/${check.flags ?? ''}`;
    case 'section_present':
      return `have a "${String(v)}" section (a Markdown heading)`;
    case 'section_contains':
      return `mention "${check.needle ?? ''}" inside the "${String(v)}" section`;
    case 'min_chars':
      return `be at least ${String(v)} characters long`;
    case 'max_chars':
      return `be at most ${String(v)} characters long`;
    case 'json_valid':
      return 'contain valid JSON (the whole reply or a fenced json block)';
    case 'starts_with':
      return `start with "${String(v)}"`;
    case 'no_refusal':
      return 'do the task instead of refusing';
    case 'tool_called':
      return `use the ${String(v)} tool`;
    case 'ran_command':
      return `run \`${String(v)}\``;
  }
}

interface OpOutcome {
  passed: boolean;
  /** what was observed when it failed */
  why: string;
}

function runOp(check: Check, response: string, toolsCalled: string[], commandsRun: readonly string[]): OpOutcome {
  const cs = check.caseSensitive === true;
  const fold = (s: string): string => (cs ? s : s.toLowerCase());
  const value = check.value;
  switch (check.op) {
    case 'contains': {
      const ok = fold(response).includes(fold(String(value)));
      return { passed: ok, why: 'the text is missing' };
    }
    case 'not_contains': {
      const ok = !fold(response).includes(fold(String(value)));
      return { passed: ok, why: 'the forbidden text is present' };
    }
    case 'starts_with': {
      const ok = fold(response.trimStart()).startsWith(fold(String(value)));
      const head = response.trimStart().slice(0, 40).replace(/\s+/g, ' ');
      return { passed: ok, why: `it starts with "${head}"` };
    }
    case 'regex': {
      let flags = check.flags ?? '';
      if (check.caseSensitive === false && !flags.includes('i')) flags += 'i';
      const ok = new RegExp(String(value), flags.replace('g', '').replace('y', '')).test(response);
      return { passed: ok, why: 'no match' };
    }
    case 'section_present': {
      const ok = findSection(response, String(value)) !== null;
      return { passed: ok, why: 'no such heading' };
    }
    case 'section_contains': {
      const section = findSection(response, String(value));
      if (section === null) return { passed: false, why: 'the section is missing' };
      const ok = fold(section.body).includes(fold(check.needle ?? ''));
      return { passed: ok, why: 'the section does not mention it' };
    }
    case 'min_chars': {
      const n = charCount(response);
      return { passed: n >= Number(value), why: `it has ${n} characters` };
    }
    case 'max_chars': {
      const n = charCount(response);
      return { passed: n <= Number(value), why: `it has ${n} characters` };
    }
    case 'json_valid': {
      return { passed: containsValidJson(response), why: 'no parsable JSON found' };
    }
    case 'no_refusal': {
      if (response.trim() === '') return { passed: false, why: 'the response is empty' };
      const refusal = detectRefusal(response);
      return { passed: refusal === null, why: `it refused ("${refusal ?? ''}")` };
    }
    case 'tool_called': {
      const want = String(value).toLowerCase();
      // a command tool stands for "ran a command": any agent's one counts, since a task mined from
      // Claude (`Bash`) may be replayed on Codex (`shell`) or Copilot (`bash`, `run_in_terminal`)
      const command = isCommandTool(want);
      const ok = toolsCalled.some((t) => t.toLowerCase() === want || (command && isCommandTool(t)));
      const used = toolsCalled.length ? toolsCalled.join(', ') : 'none';
      return { passed: ok, why: `tools used: ${used}` };
    }
    case 'ran_command': {
      // a substring of any command run (`pnpm vitest run` is run by `cd app && pnpm vitest run --reporter dot`), whitespace folded
      const want = fold(normalizeCommand(String(value)));
      const ok = commandsRun.some((c) => fold(normalizeCommand(c)).includes(want));
      const ran = commandsRun.length ? commandsRun.slice(0, 5).map((c) => `\`${normalizeCommand(c).slice(0, 80)}\``).join(', ') : 'none';
      return { passed: ok, why: `commands run: ${ran}` };
    }
  }
}

function failureFeedback(check: Check, why: string, subject: string): string {
  const desc = check.description?.trim();
  const rule = `${subject} must ${describeCheck(check)}`;
  return `Failed check "${check.id}": ${desc ? `${desc} — ` : ''}${rule}; ${why}.`;
}

/** Characters as the user sees them (code points), ignoring leading/trailing whitespace. */
export function charCount(text: string): number {
  return [...text.trim()].length;
}

const FENCE = /(^|\n)[ \t]*(```|~~~)[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)\n[ \t]*\2[ \t]*(?=\n|$)/g;

/** The whole reply parses as JSON, or a fenced block labelled json (or unlabelled) does. */
export function containsValidJson(text: string): boolean {
  if (parses(text.trim())) return true;
  for (const m of text.matchAll(FENCE)) {
    const lang = m[3].toLowerCase();
    if ((lang === 'json' || lang === '') && parses(m[4].trim())) return true;
  }
  return false;
}

function parses(s: string): boolean {
  if (!s) return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

// Refusals are recognised near the start of a reply (where models put them), so code or prose
// that merely quotes such a phrase further down does not count.
const REFUSAL_PATTERNS: RegExp[] = [
  /\bI\s+(?:can(?:no|')t|cannot|won'?t|will\s+not|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable))\s+(?:to\s+)?(?:help|assist|do\s+that|comply|provide|complete|fulfil+)/i,
  /\bI(?:'m|\s+am)\s+sorry,?\s+but\s+I\s+(?:can(?:no|')t|cannot|won'?t|am\s+unable|'m\s+unable)/i,
  /\bI\s+must\s+(?:decline|refuse)/i,
  /\bas\s+an\s+AI(?:\s+language\s+model)?,?\s+I\s+(?:can(?:no|')t|cannot|am\s+not|don'?t)/i,
  /\b(?:unfortunately,?\s+)?I(?:'m|\s+am)\s+(?:not\s+able|unable)\s+to\b/i,
];
const REFUSAL_WINDOW = 300;

/** The refusal phrase found at the start of the response, or null. */
export function detectRefusal(response: string): string | null {
  const head = response.trimStart().slice(0, REFUSAL_WINDOW).replace(/[\u2018\u2019]/g, "'");
  for (const re of REFUSAL_PATTERNS) {
    const m = re.exec(head);
    if (m) return m[0];
  }
  return null;
}

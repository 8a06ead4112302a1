/**
 * Checks a command's `--json` output against its documentation in docs/json/: the `$schema` tag
 * comes first and names a documented shape, every field name in the output is named in that
 * shape's file (or a file it links to), and every timestamp is an ISO 8601 string.
 * A doc marks fields whose contents are free-form maps or records documented elsewhere with
 * `<!-- open: a, b -->`: their own keys are not checked (their timestamps still are); `<!-- open: * -->`
 * says the record's own fields vary (a log line): only the tag and the timestamps are checked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './sandbox.js';
import { TIME_KEY, isEpochMs } from '../../src/cli/json-shape.js';

export const DOCS_DIR = path.join(REPO_ROOT, 'docs/json');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** The doc file with a heading naming `skillopt-sleep/<name>@N` (or, after the first, `` `<name>@N` ``), or undefined. */
export function docFileFor(name: string): string | undefined {
  const heading = new RegExp(`^#+ .*[\`/]${name}@\\d+\``, 'm');
  return fs.readdirSync(DOCS_DIR).find((f) => f.endsWith('.md') && f !== 'README.md' && heading.test(fs.readFileSync(path.join(DOCS_DIR, f), 'utf8')));
}

/** The text of a doc and of the docs it links to (one level: shared records live in their own file). */
function docText(file: string): string {
  const own = fs.readFileSync(path.join(DOCS_DIR, file), 'utf8');
  const linked = [...own.matchAll(/\]\(([a-z0-9-]+\.md)\)/g)].map((m) => m[1]!).filter((f) => f !== file && fs.existsSync(path.join(DOCS_DIR, f)));
  return [own, ...new Set(linked)].map((f) => (f === own ? f : fs.readFileSync(path.join(DOCS_DIR, f), 'utf8'))).join('\n');
}

function openKeys(text: string): Set<string> {
  return new Set([...text.matchAll(/<!-- open: ([^>]*) -->/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim()).filter(Boolean)));
}

/** Problems with one `--json` value; [] when it matches its documentation. */
export function shapeProblems(value: unknown, expectedName: string): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [`not a JSON object: ${JSON.stringify(value)?.slice(0, 80)}`];
  const problems: string[] = [];
  const obj = value as Record<string, unknown>;
  const tag = `skillopt-sleep/${expectedName}@1`;
  if (Object.keys(obj)[0] !== '$schema') problems.push('$schema is not the first field');
  if (obj.$schema !== tag) problems.push(`$schema is ${JSON.stringify(obj.$schema)}, expected ${tag}`);
  const file = docFileFor(expectedName);
  if (!file) return [...problems, `no docs/json/*.md has a heading naming \`${tag}\``];
  const text = docText(file);
  const open = openKeys(text);
  const undocumented = new Set<string>();
  const walk = (v: unknown, at: string, key: string, checkKeys: boolean) => {
    // one way of writing time: epoch ms anywhere, or a date string in another format under a time key, is a miss
    if (isEpochMs(v)) problems.push(`${at}: epoch milliseconds, not an ISO 8601 string: ${v}`);
    else if (typeof v === 'string' && TIME_KEY.test(key) && !ISO.test(v) && !Number.isNaN(Date.parse(v))) problems.push(`${at}: a date not in ISO 8601 UTC: ${v}`);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`, key, checkKeys));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (checkKeys && k !== '$schema' && !new RegExp(`(^|[^\\w$])${k.replace(/[$]/g, '\\$')}([^\\w$]|$)`).test(text)) undocumented.add(`${at}.${k}`.replace(/\[\d+\]/g, '[]'));
        walk(x, `${at}.${k}`, k, checkKeys && !open.has(k));
      }
    }
  };
  walk(obj, '', '', !open.has('*'));
  for (const u of undocumented) problems.push(`${u}: not documented in docs/json/${file}`);
  return problems;
}

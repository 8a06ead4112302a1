import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { REPO_ROOT } from '../helpers/sandbox.js';

// The README is for the people who use the tool: short, true on a fresh machine, and with the
// documents beside it (docs/*.md) it names every command and flag `--help` offers.
const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const docsDir = path.join(REPO_ROOT, 'docs');
const docs = fs
  .readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .map((f) => fs.readFileSync(path.join(docsDir, f), 'utf8'));
const everything = [readme, ...docs].join('\n');

async function program(): Promise<Command> {
  const COMMANDS = await (await import('../../src/cli/commands/index.js')).loadCommands();
  const root = new Command();
  for (const c of COMMANDS) c.register(root);
  return root;
}

describe('README', () => {
  it('is at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('has the two newcomer commands', () => {
    expect(readme).toContain('npm ci && npm link && skillopt-sleep start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('tells the user to type `skillopt-sleep`, the command `npm link` installs, never `npx skillopt-sleep`', () => {
    expect(readme).not.toMatch(/npx skillopt-sleep/);
  });

  it('lists every top-level command in its command table', async () => {
    const names = (await program()).commands.map((c) => c.name());
    expect(names.length).toBeGreaterThan(15);
    expect(names.filter((n) => !new RegExp('\\| `' + n + '[ `\\]]').test(readme))).toEqual([]);
  });

  it('links the documents the rest of the reference lives in', () => {
    for (const doc of ['docs/CONFIG.md', 'docs/REFERENCE.md', 'docs/BENCHMARKS.md', 'docs/ARCHITECTURE.md']) {
      expect(readme).toContain(`(${doc})`);
      expect(fs.existsSync(path.join(REPO_ROOT, doc)), doc).toBe(true);
    }
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `schedule remove` is named as itself or inside an alternation: `schedule install|remove|show` (pipes escaped in tables). */
function named(where: string[]): boolean {
  const sub = where.at(-1)!;
  const parent = where.slice(0, -1).map(escape).join(' ');
  const alternatives = `(?:[\\w-]+\\\\?\\|)*${escape(sub)}(?![\\w-])`;
  return new RegExp(parent ? `${parent} ${alternatives}` : `\\b${escape(sub)}(?![\\w-])`).test(everything);
}

describe('--help and the documents agree', () => {
  it('every command, subcommand and option of --help is in README.md or docs/*.md', async () => {
    const missing: string[] = [];
    const visit = (cmd: Command, where: string[]) => {
      if (where.length && !named(where)) missing.push(where.join(' '));
      for (const o of cmd.options) {
        if (!o.long || o.long === '--help') continue;
        if (!everything.includes(o.long)) missing.push(`${where.join(' ')} ${o.long}`);
      }
      for (const sub of cmd.commands) visit(sub, [...where, sub.name()]);
    };
    // the matcher finds a subcommand inside an alternation and misses one that is not written down
    expect(named(['schedule', 'remove'])).toBe(true);
    expect(named(['schedule', 'frobnicate'])).toBe(false);
    const root = await program();
    visit(root, []);
    expect(root.commands.length).toBeGreaterThan(15);
    expect(missing).toEqual([]);
  });
});

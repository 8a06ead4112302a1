/**
 * `skillopt-sleep --help` from a copy of its last text: the program's help lists every command; built
 * from the command registry (cli/program.ts) it loads commander and no command module (~0.04 s of
 * CPU over a bare node), the copy not even commander. The copy lives in the state folder, keyed by
 * everything the text depends on:
 * the package version, every command module's and the entry point's size and mtime (a new build),
 * and what commander adapts the text to (a terminal's width and colours, the colour env vars). Any
 * other key is a miss: the program is built, prints its help, and the copy is written for next time.
 * Written only into a state folder that exists (help on a fresh machine creates nothing).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256, writeFileAtomic } from '../core/fsutil.js';
import { resolvePaths } from '../core/paths.js';
import { packageVersion } from '../core/version.js';

const FORMAT = 1;

/** Only the program's own help: a command's help loads just that command's module already. */
export function wantsProgramHelp(argv: string[]): boolean {
  return argv.length === 3 && (argv[2] === '--help' || argv[2] === '-h');
}

function helpFile(env: NodeJS.ProcessEnv): string {
  return path.join(resolvePaths({ env }).stateDir, 'help.json');
}

/** Size and mtime of the entry point and of every file in the command registry's folder. */
function buildStamp(): string[] {
  const cli = path.dirname(fileURLToPath(import.meta.url));
  const commands = path.join(cli, 'commands');
  const files = [path.join(cli, 'main.js'), path.join(cli, 'main.ts'), ...fs.readdirSync(commands).sort().map((f) => path.join(commands, f))];
  return files.flatMap((f) => {
    try {
      const st = fs.statSync(f);
      return [`${path.basename(f)}:${st.size}:${st.mtimeMs}`];
    } catch {
      return [];
    }
  });
}

function helpKey(env: NodeJS.ProcessEnv, out: NodeJS.WriteStream): string {
  const terminal = out.isTTY ? `tty:${out.columns}:${out.hasColors?.() ?? false}` : 'pipe';
  const colourEnv = ['NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'].map((k) => `${k}=${env[k] ?? '\0'}`);
  return sha256(JSON.stringify([FORMAT, packageVersion(), buildStamp(), terminal, colourEnv]));
}

/** The kept help text when its key still holds; undefined on any miss (no copy, a damaged one, another build). */
export function readProgramHelp(env: NodeJS.ProcessEnv, out: NodeJS.WriteStream): string | undefined {
  try {
    const kept = JSON.parse(fs.readFileSync(helpFile(env), 'utf8')) as { format?: number; key?: string; text?: unknown };
    return kept.format === FORMAT && typeof kept.text === 'string' && kept.key === helpKey(env, out) ? kept.text : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the help text the program just printed; a folder we cannot write costs only speed. */
export function writeProgramHelp(env: NodeJS.ProcessEnv, out: NodeJS.WriteStream, text: string): void {
  const file = helpFile(env);
  if (!text || !fs.existsSync(path.dirname(file))) return;
  try {
    writeFileAtomic(file, JSON.stringify({ format: FORMAT, key: helpKey(env, out), text }) + '\n', { mode: 0o600 });
  } catch {
    // a read-only state folder: the next --help builds the program again
  }
}

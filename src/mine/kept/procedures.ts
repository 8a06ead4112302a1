/**
 * Project procedures learned the hard way (issue 41): in one ask's turn, a command failed and a
 * different command for the same purpose then worked — `npm test` failed, `pnpm vitest run`
 * passed; `eslint .` failed, `eslint --cache .` passed. Same purpose: the same verifying kind
 * (core/tool-kinds.ts: test, lint, typecheck, format) or the same program. A failure that the
 * very same command later passed is the code's fault, not the command's, and is no procedure.
 */
import type { Procedure } from '../../core/records.js';
import { verifyKindsOfCommand } from '../../core/tool-kinds.js';
import { redactSecrets } from '../../core/redact.js';
import type { AgentCommand } from './artifacts.js';

/** At most this many procedures per task (the most seen first). */
export const MAX_PROCEDURES = 8;

const norm = (c: string) => c.trim().replace(/\s+/g, ' ');

/** The command line's program, past `cd … &&`, env assignments and runners (`npx`, `bash -lc`). */
export function programOf(command: string): string {
  const last = norm(command).split(/\s*(?:&&|;|\|\|)\s*/).filter((p) => !/^cd\s/.test(p));
  let words = (last[last.length - 1] ?? '').replace(/^["']|["']$/g, '').split(' ');
  while (words.length > 1 && (/^\w+=\S*$/.test(words[0]) || /^(?:npx|bunx|env|sudo|time|exec)$/.test(words[0]))) words = words.slice(1);
  if (words[0] === 'bash' || words[0] === 'sh' || words[0] === 'zsh') return programOf(words.slice(2).join(' '));
  return words[0] ?? '';
}

function purposeOf(failed: string, worked: string): string | null {
  const kf = verifyKindsOfCommand(failed);
  const shared = verifyKindsOfCommand(worked).find((k) => kf.includes(k));
  if (shared) return shared;
  const p = programOf(failed);
  return p && p === programOf(worked) ? p : null;
}

/** The failed → worked pairs of one ask's commands, in order (each failure paired with the first later fix). */
export function proceduresOfCommands(commands: AgentCommand[]): Array<Omit<Procedure, 'sessions'>> {
  const out: Array<Omit<Procedure, 'sessions'>> = [];
  const seen = new Set<string>();
  commands.forEach((f, i) => {
    if (!f.failed) return;
    const later = commands.slice(i + 1);
    // the same command passing later: the code was fixed, the command was right
    if (later.some((c) => !c.failed && norm(c.command) === norm(f.command))) return;
    for (const w of later) {
      if (w.failed || norm(w.command) === norm(f.command)) continue;
      const purpose = purposeOf(f.command, w.command);
      if (!purpose) continue;
      const key = `${norm(f.command)}\u0000${norm(w.command)}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push({ failed: redactSecrets(norm(f.command)).text, worked: redactSecrets(norm(w.command)).text, purpose, at: w.ts ?? f.ts });
      }
      break;
    }
  });
  return out;
}

/** Merges the pairs seen in several sessions: one procedure per (failed, worked), counting distinct sessions. */
export function mergeProcedures(perSession: Array<{ session: string; pairs: Array<Omit<Procedure, 'sessions'>> }>): Procedure[] {
  const byKey = new Map<string, Procedure & { seenIn: Set<string> }>();
  for (const { session, pairs } of perSession) {
    for (const p of pairs) {
      const key = `${p.failed}\u0000${p.worked}`;
      const cur = byKey.get(key) ?? { ...p, sessions: 0, seenIn: new Set<string>() };
      cur.seenIn.add(session);
      cur.sessions = cur.seenIn.size;
      if (p.at !== null && (cur.at === null || p.at > cur.at)) cur.at = p.at;
      byKey.set(key, cur);
    }
  }
  return [...byKey.values()]
    .sort((a, b) => b.sessions - a.sessions || (b.at ?? 0) - (a.at ?? 0))
    .slice(0, MAX_PROCEDURES)
    .map(({ seenIn: _seenIn, ...p }) => (p.purpose ? p : { failed: p.failed, worked: p.worked, sessions: p.sessions, at: p.at }));
}

/**
 * `doctor`: Codex runs the user-level hooks in `$CODEX_HOME/hooks.json` only when its config.toml
 * turns them on (`codex_hooks = true` under `[features]`). When our morning-nudge hook is installed
 * but the flag is off, the nudge would silently never appear: say so, with the fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import type { AgentDoctorNote } from '../agent.js';
import type { RootEnv } from '../types.js';
import { HOOK_TAG } from '../kit/session-hook.js';
import { codexHomes } from './home.js';

/** Is `codex_hooks = true` set in the `[features]` table of this config.toml text? */
export function codexHooksEnabled(toml: string): boolean {
  const section = /^\s*\[features\]\s*$([\s\S]*?)(?=^\s*\[|(?![\s\S]))/m.exec(toml);
  const inline = /^\s*features\s*\.\s*codex_hooks\s*=\s*true\b/m.test(toml);
  return inline || (!!section && /^\s*codex_hooks\s*=\s*true\b/m.test(section[1] ?? ''));
}

export function codexHookNotes(config: Config, { env, homedir }: RootEnv): AgentDoctorNote[] {
  const home = codexHomes({ env, home: homedir, config })[0];
  if (!home) return [];
  let hooks = '';
  try {
    hooks = fs.readFileSync(path.join(home, 'hooks.json'), 'utf8');
  } catch {
    return [];
  }
  if (!hooks.includes(HOOK_TAG)) return [];
  let toml = '';
  try {
    toml = fs.readFileSync(path.join(home, 'config.toml'), 'utf8');
  } catch {
    // no config.toml: the flag is off
  }
  if (codexHooksEnabled(toml)) return [{ status: 'ok', detail: 'the morning-nudge hook is installed and Codex hooks are on' }];
  return [
    {
      status: 'warn',
      detail: `the morning-nudge hook is in ${path.join(home, 'hooks.json')}, but Codex runs hooks only with codex_hooks = true under [features] in config.toml`,
      fix: `add "[features]\\ncodex_hooks = true" to ${path.join(home, 'config.toml')} (and trust the hook once in Codex), or \`skillopt-sleep hooks remove --agent codex\``,
    },
  ];
}

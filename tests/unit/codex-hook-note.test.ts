/** doctor warns when the nudge hook is in Codex's hooks.json but config.toml leaves Codex hooks off. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { defaultConfig } from '../../src/core/config.js';
import { codexHookNotes, codexHooksEnabled } from '../../adapters/codex/hook-note.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('codexHooksEnabled', () => {
  it('reads the flag in [features] only', () => {
    expect(codexHooksEnabled('[features]\ncodex_hooks = true\n')).toBe(true);
    expect(codexHooksEnabled('model = "o4"\n[features]\nweb_search = true\ncodex_hooks = true\n[profiles.x]\nmodel = "y"\n')).toBe(true);
    expect(codexHooksEnabled('features.codex_hooks = true\n')).toBe(true);
    expect(codexHooksEnabled('[features]\ncodex_hooks = false\n')).toBe(false);
    expect(codexHooksEnabled('[profiles.x]\ncodex_hooks = true\n')).toBe(false);
    expect(codexHooksEnabled('')).toBe(false);
  });
});

describe('codexHookNotes', () => {
  const setup = (hooks: string | null, toml: string | null) => {
    const home = makeTempDir('sos-codex-');
    dirs.push(home);
    if (hooks !== null) fs.writeFileSync(path.join(home, 'hooks.json'), hooks);
    if (toml !== null) fs.writeFileSync(path.join(home, 'config.toml'), toml);
    return codexHookNotes(defaultConfig(), { env: { CODEX_HOME: home }, homedir: home, platform: 'linux' });
  };
  const ours = JSON.stringify({ hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'node main.js hooks nudge --agent codex --from-hook' }] }] } });

  it('says nothing when our hook is not installed', () => {
    expect(setup(null, null)).toEqual([]);
    expect(setup('{"hooks":{}}', null)).toEqual([]);
  });

  it('warns, with the fix, when the hook is installed and the flag is off', () => {
    const notes = setup(ours, 'model = "o4"\n');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.status).toBe('warn');
    expect(notes[0]!.fix).toMatch(/codex_hooks = true/);
  });

  it('is ok when the flag is on', () => {
    expect(setup(ours, '[features]\ncodex_hooks = true\n')[0]!.status).toBe('ok');
  });
});

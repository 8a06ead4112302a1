import { describe, expect, it } from 'vitest';
import { resolvePaths } from '../../src/core/paths.js';

describe('resolvePaths', () => {
  it('follows XDG when the variables are set', () => {
    const p = resolvePaths({ env: { XDG_CONFIG_HOME: '/x/cfg', XDG_STATE_HOME: '/x/state' }, platform: 'linux', homedir: '/home/u' });
    expect(p.configFile).toBe('/x/cfg/skillopt-sleep/config.json');
    expect(p.database).toBe('/x/state/skillopt-sleep/sleep.db');
    expect(p.logsDir).toBe('/x/state/skillopt-sleep/logs');
    expect(p.proposalsDir).toBe('/x/state/skillopt-sleep/proposals');
    expect(p.backupsDir).toBe('/x/state/skillopt-sleep/backups');
  });

  it('falls back to ~/.config and ~/.local/state when XDG is unset or relative', () => {
    const p = resolvePaths({ env: { XDG_CONFIG_HOME: 'relative/ignored' }, platform: 'linux', homedir: '/home/u' });
    expect(p.configFile).toBe('/home/u/.config/skillopt-sleep/config.json');
    expect(p.stateDir).toBe('/home/u/.local/state/skillopt-sleep');
  });

  it('uses Application Support on macOS unless XDG is set explicitly', () => {
    const mac = resolvePaths({ env: {}, platform: 'darwin', homedir: '/Users/u' });
    expect(mac.configFile).toBe('/Users/u/Library/Application Support/skillopt-sleep/config.json');
    expect(mac.database).toBe('/Users/u/Library/Application Support/skillopt-sleep/state/sleep.db');
    const macXdg = resolvePaths({ env: { XDG_CONFIG_HOME: '/c' }, platform: 'darwin', homedir: '/Users/u' });
    expect(macXdg.configFile).toBe('/c/skillopt-sleep/config.json');
  });

  it('uses APPDATA and LOCALAPPDATA on Windows', () => {
    const w = resolvePaths({ env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, platform: 'win32', homedir: 'C:\\Users\\u' });
    expect(w.configFile).toBe('C:\\Users\\u\\AppData\\Roaming\\skillopt-sleep\\config.json');
    expect(w.database).toBe('C:\\Users\\u\\AppData\\Local\\skillopt-sleep\\sleep.db');
  });

  it('SKILLOPT_SLEEP_HOME overrides everything', () => {
    const p = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: '/sand', XDG_CONFIG_HOME: '/x' }, platform: 'linux', homedir: '/home/u' });
    expect(p.configFile).toBe('/sand/config.json');
    expect(p.database).toBe('/sand/state/sleep.db');
    expect(p.backupsDir).toBe('/sand/state/backups');
  });
});

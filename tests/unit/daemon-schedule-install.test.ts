import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CRON_BEGIN,
  CRON_END,
  installSupervisor,
  mergeCrontab,
  removeSupervisor,
  renderCronLine,
  renderLaunchdPlist,
  renderSystemdUnit,
  showSupervisor,
  targetFor,
} from '../../src/daemon/schedule-install.js';
import { makeTempDir } from '../helpers/sandbox.js';

const spec = {
  argv: ['/usr/bin/node', '/opt/skill opt/dist/src/cli/main.js', 'start', '--foreground'],
  cronArgv: ['/usr/bin/node', '/opt/skill opt/dist/src/cli/main.js', 'start'],
  env: { SKILLOPT_SLEEP_HOME: '/home/dana/.sleep "x"', PATH: '/usr/bin:/bin' },
  logsDir: '/home/dana/.local/state/skillopt-sleep/logs',
};

describe('supervisor files', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('renders a systemd user unit that runs start --foreground with quoting and restart policy', () => {
    const unit = renderSystemdUnit(spec);
    expect(unit).toContain('[Service]');
    expect(unit).toContain('ExecStart="/usr/bin/node" "/opt/skill opt/dist/src/cli/main.js" "start" "--foreground"');
    expect(unit).toContain('Environment="SKILLOPT_SLEEP_HOME=/home/dana/.sleep \\"x\\""');
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('TimeoutStopSec=15');
    expect(unit).toContain('WantedBy=default.target');
  });

  it('renders a launchd agent with escaped XML, RunAtLoad and KeepAlive on failure', () => {
    const plist = renderLaunchdPlist({ ...spec, env: { SKILLOPT_SLEEP_HOME: '/a&b<c>' } });
    expect(plist).toContain('<string>dev.skillopt-sleep.daemon</string>');
    expect(plist).toContain('<string>/opt/skill opt/dist/src/cli/main.js</string>');
    expect(plist).toContain('<string>/a&amp;b&lt;c&gt;</string>');
    expect(plist).toMatch(/<key>RunAtLoad<\/key>\s*<true\/>/);
    expect(plist).toMatch(/<key>SuccessfulExit<\/key>\s*<false\/>/);
  });

  it('refuses control characters in values', () => {
    expect(() => renderSystemdUnit({ ...spec, argv: ['/bin/node\nExecStartPre=/bin/rm'] })).toThrow(/control character/);
  });

  it('renders an @reboot cron line (detached start) and merges it into a crontab without touching other lines', () => {
    const line = renderCronLine(spec);
    expect(line.startsWith('@reboot ')).toBe(true);
    expect(line).toContain("'/opt/skill opt/dist/src/cli/main.js' start");
    expect(line).not.toContain('--foreground');
    const existing = 'MAILTO=dana\n0 * * * * backup.sh\n';
    const merged = mergeCrontab(existing, line);
    expect(merged).toBe(`MAILTO=dana\n0 * * * * backup.sh\n${CRON_BEGIN}\n${line}\n${CRON_END}\n`);
    // idempotent, and removal restores the original
    expect(mergeCrontab(merged, line)).toBe(merged);
    expect(mergeCrontab(merged, undefined)).toBe(existing);
  });

  it('install/show/remove round-trips in SKILLOPT_SLEEP_UNIT_DIR without calling systemctl', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const env = { SKILLOPT_SLEEP_UNIT_DIR: dir };
    for (const kind of ['systemd', 'launchd', 'cron'] as const) {
      expect(showSupervisor(kind, env).installed).toBe(false);
      const res = installSupervisor(kind, spec, env);
      expect(res.activated).toBe(false);
      expect(res.target.file.startsWith(dir)).toBe(true);
      const shown = showSupervisor(kind, env);
      expect(shown.installed).toBe(true);
      expect(shown.content).toContain('main.js');
      expect(removeSupervisor(kind, env).removed).toBe(true);
      expect(showSupervisor(kind, env).installed).toBe(false);
      expect(removeSupervisor(kind, env).removed).toBe(false);
    }
    expect(targetFor('systemd', { XDG_CONFIG_HOME: '/x/cfg' }, '/home/d').file).toBe(path.join('/x/cfg', 'systemd', 'user', 'skillopt-sleep.service'));
    expect(targetFor('launchd', {}, '/Users/d').file).toBe('/Users/d/Library/LaunchAgents/dev.skillopt-sleep.daemon.plist');
  });
});

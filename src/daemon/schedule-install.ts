/**
 * `schedule install|remove|show`: keeps `start --foreground` running across logins and reboots
 * with the platform's own supervisor — a systemd user unit (Linux), a launchd agent (macOS), or
 * a crontab @reboot entry (anything else with cron). Rendering is pure; writing is atomic.
 *
 * SKILLOPT_SLEEP_UNIT_DIR redirects every file (unit, plist, crontab copy) into one directory and
 * skips systemctl/launchctl/crontab calls: tests and packagers use it.
 */
import { EXIT_ALREADY_RUNNING } from './lifecycle.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeFileAtomic } from '../core/fsutil.js';
import { SleepError } from '../core/errors.js';

export type SupervisorKind = 'systemd' | 'launchd' | 'cron';

export const UNIT_NAME = 'skillopt-sleep.service';
export const LAUNCHD_LABEL = 'dev.skillopt-sleep.daemon';
export const CRON_BEGIN = '# >>> skillopt-sleep (managed) >>>';
export const CRON_END = '# <<< skillopt-sleep (managed) <<<';

export interface InstallSpec {
  /** argv that runs the daemon in the foreground */
  argv: string[];
  /** argv that starts it detached (for crontab @reboot); defaults to argv */
  cronArgv?: string[];
  /** env vars the daemon needs (SKILLOPT_SLEEP_HOME, PATH for agent CLIs, ...) */
  env: Record<string, string>;
  logsDir: string;
}

export function defaultKind(platform: NodeJS.Platform = process.platform, hasSystemd = systemdAvailable()): SupervisorKind {
  if (platform === 'darwin') return 'launchd';
  if (platform === 'linux' && hasSystemd) return 'systemd';
  return 'cron';
}

function systemdAvailable(): boolean {
  if (process.platform !== 'linux') return false;
  return fs.existsSync('/run/systemd/system');
}

/** systemd's quoting: double quotes, backslash-escape \ and ", `%` doubled. */
function sdQuote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
}

function refuseControlChars(values: string[]): void {
  for (const v of values) {
    if (/[\u0000-\u001f\u007f]/.test(v)) {
      throw new SleepError('INVALID_INPUT', `refusing to write a service file: a value contains a control character (${JSON.stringify(v)})`);
    }
  }
}

export function renderSystemdUnit(spec: InstallSpec): string {
  refuseControlChars([...spec.argv, ...Object.entries(spec.env).flat()]);
  const env = Object.entries(spec.env).map(([k, v]) => `Environment=${sdQuote(`${k}=${v}`)}`);
  return [
    '# Installed by `skillopt-sleep schedule install`; `skillopt-sleep schedule remove` removes it.',
    '[Unit]',
    'Description=skillopt-sleep: watches coding-agent transcripts and trains skills at night',
    'After=default.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${spec.argv.map(sdQuote).join(' ')}`,
    ...env,
    'Restart=on-failure',
    'RestartSec=30',
    // `start --foreground` exits 3 when a daemon already runs: not a failure to retry
    `RestartPreventExitStatus=${EXIT_ALREADY_RUNNING}`,
    'KillSignal=SIGTERM',
    'TimeoutStopSec=15',
    'Nice=10',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderLaunchdPlist(spec: InstallSpec): string {
  refuseControlChars([...spec.argv, ...Object.entries(spec.env).flat()]);
  const args = spec.argv.map((a) => `    <string>${xml(a)}</string>`).join('\n');
  const env = Object.entries(spec.env)
    .map(([k, v]) => `    <key>${xml(k)}</key>\n    <string>${xml(v)}</string>`)
    .join('\n');
  const log = path.join(spec.logsDir, 'daemon.out');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Installed by \`skillopt-sleep schedule install\`; \`skillopt-sleep schedule remove\` removes it. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
${env}
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>30</integer>
  <key>ProcessType</key>
  <string>Background</string>
  <key>StandardOutPath</key>
  <string>${xml(log)}</string>
  <key>StandardErrorPath</key>
  <string>${xml(log)}</string>
</dict>
</plist>
`;
}

function shQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The managed crontab block: start at boot (the detached `start`, which returns). */
export function renderCronLine(spec: InstallSpec): string {
  refuseControlChars([...spec.argv, ...Object.entries(spec.env).flat()]);
  // @reboot runs once: the detached `start` (the foreground argv would hold cron's job open)
  const argv = spec.cronArgv ?? spec.argv;
  const env = Object.entries(spec.env).map(([k, v]) => `${k}=${shQuote(v)}`);
  return `@reboot ${[...env, ...argv.map(shQuote)].join(' ')} >> ${shQuote(path.join(spec.logsDir, 'daemon.out'))} 2>&1`;
}

/** Replaces (or adds) our managed block; text outside it is preserved. */
export function mergeCrontab(existing: string, line: string | undefined): string {
  const lines = existing.split('\n');
  const out: string[] = [];
  let inBlock = false;
  for (const l of lines) {
    if (l.trim() === CRON_BEGIN) inBlock = true;
    else if (l.trim() === CRON_END) inBlock = false;
    else if (!inBlock) out.push(l);
  }
  while (out.length && out[out.length - 1].trim() === '') out.pop();
  if (line !== undefined) out.push(CRON_BEGIN, line, CRON_END);
  return out.length ? out.join('\n') + '\n' : '';
}

export interface SupervisorTarget {
  kind: SupervisorKind;
  file: string;
  /** true when SKILLOPT_SLEEP_UNIT_DIR redirected the files: no system commands are run */
  redirected: boolean;
}

export function targetFor(kind: SupervisorKind, env: NodeJS.ProcessEnv, home = os.homedir()): SupervisorTarget {
  const dir = env.SKILLOPT_SLEEP_UNIT_DIR;
  if (dir) {
    const name = kind === 'systemd' ? UNIT_NAME : kind === 'launchd' ? `${LAUNCHD_LABEL}.plist` : 'crontab';
    return { kind, file: path.join(dir, name), redirected: true };
  }
  if (kind === 'systemd') {
    const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config');
    return { kind, file: path.join(base, 'systemd', 'user', UNIT_NAME), redirected: false };
  }
  if (kind === 'launchd') return { kind, file: path.join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`), redirected: false };
  return { kind, file: 'user crontab', redirected: false };
}

export interface InstallResult {
  target: SupervisorTarget;
  content: string;
  /** commands run (or to run by hand when redirected) */
  commands: string[];
  activated: boolean;
}

function run(cmd: string, args: string[], input?: string): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input, timeout: 15_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() || (r.error?.message ?? '') };
}

function readCrontab(t: SupervisorTarget): string {
  if (t.redirected) return fs.existsSync(t.file) ? fs.readFileSync(t.file, 'utf8') : '';
  const r = spawnSync('crontab', ['-l'], { encoding: 'utf8', timeout: 15_000 });
  if (r.error) throw new SleepError('NOT_FOUND', 'crontab is not available on this system', { hint: 'run `skillopt-sleep start` from your login script instead' });
  return r.status === 0 ? r.stdout : ''; // "no crontab for user" exits 1
}

function writeCrontab(t: SupervisorTarget, text: string): void {
  if (t.redirected) {
    writeFileAtomic(t.file, text, { mode: 0o600 });
    return;
  }
  const r = run('crontab', ['-'], text);
  if (!r.ok) throw new SleepError('INTERNAL', `crontab refused the new table: ${r.out}`, { hint: 'check `crontab -l`; nothing was changed' });
}

export function installSupervisor(kind: SupervisorKind, spec: InstallSpec, env: NodeJS.ProcessEnv): InstallResult {
  const t = targetFor(kind, env);
  if (kind === 'cron') {
    const line = renderCronLine(spec);
    const next = mergeCrontab(readCrontab(t), line);
    writeCrontab(t, next);
    return { target: t, content: line, commands: t.redirected ? [] : ['crontab -'], activated: !t.redirected };
  }
  const content = kind === 'systemd' ? renderSystemdUnit(spec) : renderLaunchdPlist(spec);
  fs.mkdirSync(path.dirname(t.file), { recursive: true });
  writeFileAtomic(t.file, content, { mode: 0o644 });
  const commands =
    kind === 'systemd'
      ? ['systemctl --user daemon-reload', `systemctl --user enable --now ${UNIT_NAME}`]
      : [`launchctl bootstrap gui/${process.getuid?.() ?? 501} ${t.file}`];
  if (t.redirected) return { target: t, content, commands, activated: false };
  let activated = true;
  for (const c of commands) {
    const [cmd, ...args] = c.split(' ');
    const r = run(cmd, args);
    if (!r.ok) {
      activated = false;
      break;
    }
  }
  return { target: t, content, commands, activated };
}

export interface RemoveResult {
  target: SupervisorTarget;
  removed: boolean;
  commands: string[];
}

export function removeSupervisor(kind: SupervisorKind, env: NodeJS.ProcessEnv): RemoveResult {
  const t = targetFor(kind, env);
  if (kind === 'cron') {
    const cur = readCrontab(t);
    const next = mergeCrontab(cur, undefined);
    if (next === cur) return { target: t, removed: false, commands: [] };
    writeCrontab(t, next);
    return { target: t, removed: true, commands: t.redirected ? [] : ['crontab -'] };
  }
  const exists = fs.existsSync(t.file);
  const commands =
    kind === 'systemd'
      ? [`systemctl --user disable --now ${UNIT_NAME}`, 'systemctl --user daemon-reload']
      : [`launchctl bootout gui/${process.getuid?.() ?? 501}/${LAUNCHD_LABEL}`];
  const runAll = (cs: string[]) => {
    if (t.redirected || !exists) return;
    for (const c of cs) {
      const [cmd, ...args] = c.split(' ');
      run(cmd, args); // failing (already stopped, never enabled) is fine
    }
  };
  runAll(commands.slice(0, 1)); // stop and disable before the file goes
  fs.rmSync(t.file, { force: true });
  runAll(commands.slice(1));
  return { target: t, removed: exists, commands };
}

export interface ShowResult {
  kind: SupervisorKind;
  target: SupervisorTarget;
  installed: boolean;
  content?: string;
}

export function showSupervisor(kind: SupervisorKind, env: NodeJS.ProcessEnv): ShowResult {
  const t = targetFor(kind, env);
  if (kind === 'cron') {
    let tab = '';
    try {
      tab = readCrontab(t);
    } catch {
      tab = '';
    }
    const m = new RegExp(`${escapeRe(CRON_BEGIN)}\\n([\\s\\S]*?)\\n${escapeRe(CRON_END)}`).exec(tab);
    return { kind, target: t, installed: !!m, content: m?.[1] };
  }
  const installed = fs.existsSync(t.file);
  return { kind, target: t, installed, content: installed ? fs.readFileSync(t.file, 'utf8') : undefined };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A small real git repository standing for the user's project, and a hash of a folder tree to prove it unchanged. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

export interface UserRepo {
  dir: string;
  firstCommit: string;
  /** a time after the first commit and before the second: the session started then */
  sessionStart: number;
  changelogAtSession: string;
}

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' };

export function gitIn(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync('git', args, { cwd: dir, env: { ...GIT_ENV, ...env }, encoding: 'utf8' }).trim();
}

export const CHANGELOG_AT_SESSION = '# Changelog\n\n## 1.2.0\n- Added: export command (PR 401)\n';

/** Two commits on `main` (2026-01-01 and 2026-03-01) and an uncommitted file in the working tree. */
export function makeUserRepo(dir: string, extraFiles: Record<string, string> = {}): UserRepo {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  gitIn(dir, ['init', '-q', '-b', 'main']);
  fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), CHANGELOG_AT_SESSION);
  fs.writeFileSync(path.join(dir, 'src', 'routes.ts'), 'export const routes = [];\n');
  fs.writeFileSync(path.join(dir, 'README.md'), '# app\n');
  for (const [rel, content] of Object.entries(extraFiles)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  gitIn(dir, ['add', '-A']);
  const d1 = '2026-01-01T00:00:00Z';
  gitIn(dir, ['commit', '-qm', 'first'], { GIT_AUTHOR_DATE: d1, GIT_COMMITTER_DATE: d1 });
  const firstCommit = gitIn(dir, ['rev-parse', 'HEAD']);
  fs.appendFileSync(path.join(dir, 'CHANGELOG.md'), '\n## 1.3.0\n- Later work the session never saw\n');
  const d2 = '2026-03-01T00:00:00Z';
  gitIn(dir, ['commit', '-qam', 'second'], { GIT_AUTHOR_DATE: d2, GIT_COMMITTER_DATE: d2 });
  fs.writeFileSync(path.join(dir, 'UNCOMMITTED.txt'), 'work in progress\n');
  return { dir, firstCommit, sessionStart: Date.parse('2026-02-01T00:00:00Z'), changelogAtSession: CHANGELOG_AT_SESSION };
}

/** Every file under `dir` (relative path → sha256 of content), sorted: equal before/after = untouched. */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(dir)) return out;
  for (const rel of (fs.readdirSync(dir, { recursive: true }) as string[]).map(String).sort()) {
    const abs = path.join(dir, rel);
    const st = fs.lstatSync(abs);
    if (st.isFile()) out[rel] = crypto.createHash('sha256').update(fs.readFileSync(abs)).digest('hex');
    else if (st.isDirectory()) out[rel + '/'] = 'dir';
  }
  return out;
}

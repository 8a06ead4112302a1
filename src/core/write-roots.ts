/**
 * Which folders the product may ever write a user's file under, judged on real paths.
 *
 * A project folder named by a transcript's `cwd`, a task file or a proposal record is untrusted
 * input: anyone who can drop one file into an agent's transcript folder picks it. So a project
 * root is accepted only when its real path (symlinks resolved) is an existing folder that
 *  - is not a system folder (`/`, `/etc`, `/usr`, `/var`, `/bin`, `/lib*`, `/opt`, `/proc`…, or
 *    anything under one; the temp folder is the one exception, as macOS keeps it under /var),
 *  - is not the home folder or one of its ancestors,
 *  - is owned by the user running the product, and
 *  - is inside a git work tree (the nearest ancestor with a `.git` entry, as the harvester finds
 *    it) that is itself neither a system folder nor the home folder, and is owned by the user.
 * Running as root does not widen this: root owns `/etc`, so ownership alone would admit it.
 * The checks return a sentence saying what is wrong (or null); the callers turn it into their error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Folders no skill belongs in, nor anything under them (POSIX; the macOS ones included). */
const SYSTEM_TREES = ['/etc', '/usr', '/var', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/proc', '/sys', '/dev', '/boot', '/run', '/snap', '/System', '/Library', '/private/etc', '/private/var', '/cores'];
/** Folders that are refused themselves, though user folders live below them. */
const SHARED_PARENTS = ['/', '/tmp', '/private/tmp', '/home', '/Users', '/root', '/mnt', '/media', '/srv', '/Volumes'];

/** `child` is `parent` or lies inside it (both absolute, normalised). */
export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Realpath that tolerates a missing tail: the nearest existing ancestor resolved, the rest re-appended. */
export function realpathLoose(p: string): string {
  const tail: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...tail.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return path.resolve(p);
      tail.push(path.basename(cur));
      cur = parent;
    }
  }
}

/** The nearest ancestor of `p` (itself included) that exists. */
export function nearestExisting(p: string): string {
  let cur = path.resolve(p);
  while (!fs.existsSync(cur)) {
    const parent = path.dirname(cur);
    if (parent === cur) break;
    cur = parent;
  }
  return cur;
}

/** Why `p` is not a plain absolute path (relative, `..` segments, NUL or other control characters), or null. */
export function plainPathProblem(p: string): string | null {
  if (typeof p !== 'string' || p === '') return 'it is empty';
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'it contains a control character (NUL, newline…)';
  if (!path.isAbsolute(p)) return 'it is not an absolute path';
  if (p.split(/[\\/]/).includes('..')) return 'it contains ".." segments';
  return null;
}

function tempRoot(): string | null {
  try {
    return fs.realpathSync(os.tmpdir());
  } catch {
    return null;
  }
}

/** Why the real path `real` is a system location, or null. */
export function systemPathProblem(real: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (process.platform === 'win32') {
    const sys = [env.SystemRoot, env.ProgramFiles, env['ProgramFiles(x86)'], env.ProgramData].filter((x): x is string => !!x);
    if (real === path.parse(real).root) return `${real} is the root of a drive`;
    const hit = sys.find((s) => isInside(real.toLowerCase(), s.toLowerCase()));
    return hit ? `${real} is inside the system folder ${hit}` : null;
  }
  if (SHARED_PARENTS.includes(real)) return `${real} is a shared system folder, not a project`;
  const tmp = tempRoot();
  if (tmp && isInside(real, tmp)) return real === tmp ? `${real} is the temp folder itself` : null;
  const hit = SYSTEM_TREES.find((s) => isInside(real, s));
  return hit ? `${real} is ${real === hit ? 'the system folder' : 'inside the system folder'} ${hit}` : null;
}

/** Why the existing `p` is not owned by the user running this process, or null (always null where uids do not exist). */
export function ownerProblem(p: string): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return `${p} cannot be read`;
  }
  return st.uid === uid ? null : `${p} belongs to another user (uid ${st.uid}, you are ${uid})`;
}

/** The nearest ancestor of the real path `real` (itself included) holding a `.git` entry (dir or worktree file). */
export function gitWorkTreeOf(real: string): string | null {
  let cur = real;
  for (;;) {
    try {
      fs.lstatSync(path.join(cur, '.git'));
      return cur;
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return null;
      cur = parent;
    }
  }
}

function homeProblem(real: string, env: NodeJS.ProcessEnv): string | null {
  const home = realpathLoose(env.HOME ?? os.homedir());
  if (real === home) return `${real} is your home folder`;
  if (isInside(home, real)) return `${real} holds your home folder`;
  return null;
}

/**
 * Why `project` cannot be a write root, or null when it can (see the module comment). The real
 * path is judged, so a `..` chain or a symlink that lands on `/etc` is refused like `/etc` itself.
 */
export function projectRootProblem(project: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const plain = plainPathProblem(project);
  if (plain) return `project "${project}": ${plain}`;
  let real: string;
  try {
    real = fs.realpathSync(project);
  } catch {
    return `project ${project} does not exist`;
  }
  if (!fs.statSync(real).isDirectory()) return `project ${project} is not a folder`;
  const where = real === path.resolve(project) ? project : `${project} (really ${real})`;
  const sys = systemPathProblem(real, env) ?? homeProblem(real, env);
  if (sys) return `project ${where}: ${sys}`;
  const owner = ownerProblem(real);
  if (owner) return `project ${where}: ${owner}`;
  const tree = gitWorkTreeOf(real);
  if (!tree) return `project ${where} is not inside a git work tree`;
  const treeSys = systemPathProblem(tree, env) ?? homeProblem(tree, env);
  if (treeSys) return `project ${where} belongs to the git work tree ${tree}, and ${treeSys}`;
  const treeOwner = ownerProblem(tree);
  if (treeOwner) return `project ${where} belongs to the git work tree ${tree}, and ${treeOwner}`;
  return null;
}

/**
 * Why a folder whose real path is `real` (it may not exist yet) cannot hold a file the product
 * writes outside any project (an agent's own skills home): a system folder, or another user's.
 */
export function personalDirProblem(real: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const sys = systemPathProblem(real, env);
  if (sys) return sys;
  return ownerProblem(nearestExisting(real));
}

/**
 * The symlinks met walking from `from` (exclusive) down to `to` (inclusive), lexically: each with
 * the real path it leads to. `to` must lie lexically inside `from`.
 */
export function symlinksBetween(from: string, to: string): Array<{ link: string; real: string }> {
  const rel = path.relative(from, to);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return [];
  const out: Array<{ link: string; real: string }> = [];
  let cur = from;
  for (const part of rel.split(path.sep)) {
    cur = path.join(cur, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(cur);
    } catch {
      break; // nothing below a missing folder exists
    }
    if (st.isSymbolicLink()) out.push({ link: cur, real: realpathLoose(cur) });
  }
  return out;
}

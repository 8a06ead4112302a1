/**
 * `privacy.excludeProjects`: which project folders the user never wants stored. A pattern with a
 * slash is a glob over the whole project path (`~` is the home folder; `*` stays inside one folder
 * name, `**` crosses folders, `?` is one character); a pattern without a slash matches the folder
 * name alone. A match also covers every folder inside it, so excluding `~/work/acme` excludes a
 * session started in `~/work/acme/api`. Node 20 has no stable `path.matchesGlob`, hence this.
 */
import os from 'node:os';
import path from 'node:path';

function escapeRegExp(ch: string): string {
  return /[.+^${}()|[\]\\]/.test(ch) ? `\\${ch}` : ch;
}

/** A glob as an anchored regular expression over a `/`-separated path. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more whole folders; a trailing `**` anything below
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (ch === '?') re += '[^/]';
    else re += escapeRegExp(ch);
  }
  return new RegExp(`^${re}$`);
}

export interface ProjectMatcher {
  /** the pattern that excludes this folder, or null */
  (project: string | null | undefined): string | null;
}

export function projectMatcher(patterns: readonly string[], home = os.homedir()): ProjectMatcher {
  const rules = patterns
    .map((p) => p.trim())
    .filter(Boolean)
    .map((pattern) => {
      const expanded = pattern.startsWith('~') ? path.join(home, pattern.slice(1)) : pattern;
      const byName = !expanded.includes('/') && !expanded.includes('\\');
      const normal = byName ? expanded : expanded.replace(/\\/g, '/').replace(/\/+$/, '');
      return { pattern, byName, re: globToRegExp(normal) };
    });
  return (project) => {
    if (!project || !rules.length) return null;
    const full = path.resolve(project).replace(/\\/g, '/');
    const parts = full.split('/');
    for (const r of rules) {
      if (r.byName) {
        if (parts.some((name) => name && r.re.test(name))) return r.pattern;
        continue;
      }
      // the folder itself or any folder above it (a folder inside an excluded one is excluded)
      for (let n = parts.length; n > 1; n--) if (r.re.test(parts.slice(0, n).join('/'))) return r.pattern;
    }
    return null;
  };
}

/** privacy.excludeProjects patterns: globs over the path (with ~), folder names, and folders inside a match. */
import { describe, expect, it } from 'vitest';
import { globToRegExp, projectMatcher } from '../../src/core/project-glob.js';

describe('projectMatcher', () => {
  const home = '/home/dana';
  it('matches a path, the folders inside it, and nothing beside it', () => {
    const m = projectMatcher(['/home/dana/work/acme'], home);
    expect(m('/home/dana/work/acme')).toBe('/home/dana/work/acme');
    expect(m('/home/dana/work/acme/api')).toBe('/home/dana/work/acme');
    expect(m('/home/dana/work/acme-2')).toBeNull();
    expect(m('/home/dana/work')).toBeNull();
    expect(m(null)).toBeNull();
  });

  it('expands ~, keeps * inside one folder name and lets ** cross folders', () => {
    expect(projectMatcher(['~/work/client-*'], home)('/home/dana/work/client-x')).toBe('~/work/client-*');
    expect(projectMatcher(['~/work/client-*'], home)('/home/dana/work/client-x/sub')).toBe('~/work/client-*');
    expect(projectMatcher(['~/work/client-*'], home)('/home/dana/work/other/client-x')).toBeNull();
    expect(projectMatcher(['**/secret'], home)('/srv/a/b/secret')).toBe('**/secret');
    expect(projectMatcher(['/srv/**/secret'], home)('/srv/secret')).toBe('/srv/**/secret');
    expect(projectMatcher(['/srv/?ecret'], home)('/srv/secret')).toBe('/srv/?ecret');
  });

  it('a pattern without a slash is a folder name (any folder of the path)', () => {
    const m = projectMatcher(['secret-*'], home);
    expect(m('/home/dana/src/secret-notes')).toBe('secret-*');
    expect(m('/home/dana/src/secret-notes/app')).toBe('secret-*');
    expect(m('/home/dana/src/notes')).toBeNull();
  });

  it('treats regex characters literally and ignores blank patterns', () => {
    expect(globToRegExp('/a/b+c.(d)').test('/a/b+c.(d)')).toBe(true);
    expect(globToRegExp('/a/b+c.(d)').test('/a/bbc.(d)')).toBe(false);
    expect(projectMatcher(['', '  '], home)('/x')).toBeNull();
  });
});

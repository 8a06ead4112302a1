import { describe, expect, it } from 'vitest';
import { describeHealth, sessionsLabel } from '../../src/daemon/lifecycle.js';
import { resolvePaths } from '../../src/core/paths.js';
import type { DaemonHealth } from '../../src/daemon/health.js';

describe('what start and status say about a watched folder', () => {
  it('counts sessions in the singular and plural, and says "none harvested yet" for none', () => {
    expect(sessionsLabel(1)).toBe('1 session');
    expect(sessionsLabel(2)).toBe('2 sessions');
    expect(sessionsLabel(0)).toBe('no sessions harvested yet');
  });

  it('after a wipe, a folder that holds transcripts is not shown as "(0 sessions)"', () => {
    const h = {
      roots: [
        { agent: 'claude-code', path: '/h/.claude/projects', exists: true, sessions: 0 },
        { agent: 'codex', path: '/h/.codex/sessions', exists: true, sessions: 1 },
      ],
      backend: { name: null, detail: 'none' },
    } as unknown as DaemonHealth;
    const lines = describeHealth(h, resolvePaths({ env: { HOME: '/h', SKILLOPT_SLEEP_HOME: '/h/s' } }));
    expect(lines).toContain('  claude-code  /h/.claude/projects  (no sessions harvested yet)');
    expect(lines).toContain('  codex        /h/.codex/sessions  (1 session)');
    expect(lines.join('\n')).not.toMatch(/\(0 sessions\)|\(1 sessions\)/);
  });
});

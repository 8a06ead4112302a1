import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import { upsertSession } from '../../src/store/repos/sessions.js';
import { claudeRetention } from '../../adapters/claude-code/retention.js';
import { AGENTS, rootEnvFrom } from '../../adapters/index.js';
import { RETAINING_AGENTS } from '../../adapters/retention.js';
import { retentionChecks, retentionStatus } from '../../src/harvest/doctor-probe.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox | null = null;
afterEach(() => {
  sb?.cleanup();
  sb = null;
});

describe("Claude Code's cleanupPeriodDays", () => {
  it('is read from settings.json; unset means the 30-day default, and doctor warns about it', () => {
    sb = makeSandbox();
    const config = ConfigSchema.parse({});
    expect(claudeRetention(config, rootEnvFrom(sb.env, 'linux'))).toMatchObject({ days: 30, isDefault: true, source: null });
    const checks = retentionChecks({ config, env: sb.env, paths: resolvePaths({ env: sb.env }) });
    const claude = checks.find((c) => c.name === 'retention:claude-code')!;
    expect(claude.status).toBe('warn');
    expect(claude.detail).toContain('deletes transcripts older than 30 days');
    expect(claude.detail).toContain('nothing harvested yet');

    const dir = sb.env.CLAUDE_CONFIG_DIR!;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ cleanupPeriodDays: 365 }));
    expect(claudeRetention(config, rootEnvFrom(sb.env, 'linux'))).toMatchObject({ days: 365, isDefault: false, source: path.join(dir, 'settings.json') });
  });

  it('says what our store keeps beyond the window', () => {
    sb = makeSandbox();
    const paths = resolvePaths({ env: sb.env });
    const db = openDb(paths.database);
    const now = Date.UTC(2026, 11, 1);
    const old = now - 60 * 86_400_000;
    upsertSession(db, { id: 'claude-code:old', agent: 'claude-code', vendorId: 'old', project: null, cwd: null, gitBranch: null, startedAt: old, endedAt: old, title: null, kind: 'interactive', parentId: null, file: '/gone/old.jsonl', promptCount: 1, toolErrorCount: 0, updatedAt: old } as never);
    db.close();
    const checks = retentionChecks({ config: ConfigSchema.parse({}), env: sb.env, paths }, now);
    expect(checks.find((c) => c.name === 'retention:claude-code')?.detail).toContain('keeps all 1 harvested session (1 older than that, 1 whose transcript is already gone)');
    // the same facts as data, for `status --json`
    const claude = retentionStatus({ config: ConfigSchema.parse({}), env: sb.env, paths }, now).find((r) => r.agent === 'claude-code');
    expect(claude).toEqual({
      agent: 'claude-code',
      days: 30,
      isDefault: true,
      setting: 'cleanupPeriodDays',
      source: null,
      stored: { sessions: 1, olderThanWindow: 1, transcriptGone: 1 },
    });
  });
});

describe('the light list of agents that delete their transcripts (adapters/retention.ts)', () => {
  it('holds exactly the registry agents with a retention reader, in order, with the same names, section and reader', () => {
    const fromRegistry = AGENTS.filter((a) => a.transcriptRetention).map((a) => ({ id: a.id, displayName: a.displayName, configKey: a.configKey, read: a.transcriptRetention }));
    expect(fromRegistry.length).toBeGreaterThan(0);
    expect(RETAINING_AGENTS.map((a) => ({ id: a.id, displayName: a.displayName, configKey: a.configKey, read: a.transcriptRetention }))).toEqual(fromRegistry);
  });
});

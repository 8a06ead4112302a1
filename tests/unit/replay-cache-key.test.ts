import { describe, expect, it } from 'vitest';
import { rolloutCacheKey } from '../../src/replay/index.js';
import { CliBackend, DEFAULT_CLI_REPLAY, type CliReplayOptions } from '../../src/llm/cli.js';
import { simPersonaTasks } from '../../bench/persona.js';
import { claudeExec } from '../../adapters/claude-code/exec.js';

const task = { ...simPersonaTasks(3, 2, { ruleOnly: true })[0], project: '/repos/app' };
const skill = { name: 'conventions', content: '# rules\n' };

function cli(replay: Partial<CliReplayOptions>): CliBackend {
  return new CliBackend({ adapter: claudeExec, binaryPath: '/usr/bin/claude', workspacesDir: '/tmp/none', replay: { ...DEFAULT_CLI_REPLAY, ...replay } });
}

describe('the rollout cache key covers the replay settings that change a result', () => {
  const key = (target: CliBackend, seed?: { repo: string; branch?: string; before?: number }) => rolloutCacheKey({ skill, task, target, sample: 0, seed });

  it('differs by workspace seeding, skill delivery, home isolation and the project outcome command', () => {
    const base = key(cli({}));
    expect(key(cli({}))).toBe(base);
    expect(key(cli({ seedWorkspace: false }))).not.toBe(base);
    expect(key(cli({ skillDelivery: 'system-prompt' }))).not.toBe(base);
    expect(key(cli({ isolateAgentHomes: false }))).not.toBe(base);
    const lint = key(cli({ outcomeCommands: { '/repos/app': { command: 'npm run lint', timeoutMs: 60_000 } } }));
    expect(lint).not.toBe(base);
    expect(key(cli({ outcomeCommands: { '/repos/app': { command: 'npx tsc --noEmit', timeoutMs: 60_000 } } }))).not.toBe(lint);
    // another project's outcome command does not invalidate this task's rollouts
    expect(key(cli({ outcomeCommands: { '/repos/other': { command: 'npm test', timeoutMs: 60_000 } } }))).toBe(base);
  });

  it('differs by the repository state a workspace backend starts from', () => {
    const t = cli({});
    const a = key(t, { repo: '/repos/app', branch: 'main', before: 1_000 });
    expect(key(t, { repo: '/repos/app', branch: 'main', before: 1_000 })).toBe(a);
    expect(key(t, { repo: '/repos/app', branch: 'main', before: 2_000 })).not.toBe(a);
    expect(key(t)).not.toBe(a);
  });

  it('is unchanged for backends without a workspace (the sim keeps its cached rollouts)', () => {
    const plain = { name: 'sim', model: 'sim-1' };
    expect(rolloutCacheKey({ skill, task, target: plain, sample: 0, seed: { repo: '/repos/app' } })).toBe(rolloutCacheKey({ skill, task, target: plain, sample: 0 }));
  });
});

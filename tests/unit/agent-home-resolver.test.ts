import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../adapters/index.js';

/**
 * A replay carries the login from the user's agent home: that home must be the one the harvest and
 * the skill side resolve (one resolver per agent), whatever the env var holds.
 */
describe("a replay's user home is the agent record's own home resolver", () => {
  const withExec = AGENTS.filter((a) => a.exec !== null);

  it('covers every agent with an exec adapter', () => {
    expect(withExec.length).toBeGreaterThanOrEqual(4);
  });

  for (const agent of withExec) {
    describe(agent.displayName, () => {
      const envVar = agent.exec!.home.envVar;
      const cases: Array<[string, NodeJS.ProcessEnv]> = [
        ['default', { HOME: '/home/u' }],
        ['env var set', { HOME: '/home/u', [envVar]: '/custom/one' }],
        ['comma list', { HOME: '/home/u', [envVar]: ' /a , /b ' }],
        ['relative entry', { HOME: '/home/u', [envVar]: 'rel/dir' }],
      ];
      for (const [label, env] of cases) {
        it(label, () => {
          const resolved = agent.homes({ env, home: '/home/u' })[0];
          expect(agent.exec!.home.userHome(env)).toBe(resolved);
          expect(path.isAbsolute(agent.exec!.home.userHome(env))).toBe(true);
        });
      }
      it('the env var that moves the home is one the record names', () => {
        expect(agent.homeEnv).toContain(envVar);
      });
    });
  }
});

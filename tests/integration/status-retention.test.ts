/** `status --json` carries each agent's transcript retention and what our store keeps of it (issue 18). */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

describe('status --json retention', () => {
  let sb: Sandbox;
  beforeAll(() => {
    if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
    sb = makeSandbox();
  });
  afterAll(() => sb?.cleanup());

  it('lists the retention window per agent, its source, and the store figures', () => {
    const dir = sb.env.CLAUDE_CONFIG_DIR!;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ cleanupPeriodDays: 90 }));
    const r = runCli(['status', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { retention: Array<Record<string, unknown>> };
    const claude = s.retention.find((x) => x.agent === 'claude-code');
    expect(claude).toEqual({ agent: 'claude-code', days: 90, isDefault: false, setting: 'cleanupPeriodDays', source: path.join(dir, 'settings.json'), stored: null });
  });
});

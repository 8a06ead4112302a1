/**
 * One default per key: nested objects are `.prefault({})`, so a missing or partial object gets each
 * field's own default, and no object repeats its fields' defaults (the JSON Schema shows `{}`).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigSchema, configJsonSchema, configSchemaFile, defaultConfig } from '../../src/core/config.js';

describe('config schema', () => {
  it('zod 4: .prefault({}) applies the inner defaults where .default({}) would not', () => {
    const inner = z.object({ x: z.number().default(3), y: z.boolean().default(true) });
    expect(z.object({ a: inner.prefault({}) }).parse({})).toEqual({ a: { x: 3, y: true } });
    expect(z.object({ a: inner.default({} as never) }).parse({})).toEqual({ a: {} });
  });

  it('a missing object, an empty one and a partial one all get every field default', () => {
    const d = defaultConfig();
    expect(d.training.epochs).toBe(2);
    expect(d.roles.miner).toEqual({ backend: 'auto' });
    expect(d.agents.copilot).toEqual({ enabled: true, vscodeUserDirs: [], cliRoots: [] });
    expect(ConfigSchema.parse({ training: {} }).training).toEqual(d.training);
    const partial = ConfigSchema.parse({ training: { epochs: 5 }, roles: { judge: { model: 'm' } } });
    expect(partial.training).toEqual({ ...d.training, epochs: 5 });
    expect(partial.roles.judge).toEqual({ backend: 'auto', model: 'm' });
    expect(partial.backends.sim).toEqual(d.backends.sim);
  });

  it('no object in the JSON Schema repeats its fields’ defaults, and the shipped file is the generated one', () => {
    const objectDefaults: string[] = [];
    const walk = (node: Record<string, unknown>, at: string) => {
      if (node.type === 'object' && node.default !== undefined && JSON.stringify(node.default) !== '{}') objectDefaults.push(at);
      for (const [k, v] of Object.entries((node.properties as Record<string, Record<string, unknown>>) ?? {})) walk(v, `${at}.${k}`);
    };
    const schema = configJsonSchema() as Record<string, unknown>;
    walk(schema, '$');
    expect(objectDefaults).toEqual([]);
    // leaves keep their defaults and descriptions for editors
    const cron = ((schema.properties as Record<string, { properties: Record<string, { default: unknown; description: string }> }>).schedule.properties.cron);
    expect(cron).toMatchObject({ default: '0 3 * * *', description: expect.stringContaining('cron') });
    expect(JSON.parse(fs.readFileSync(configSchemaFile(), 'utf8'))).toEqual(JSON.parse(JSON.stringify(schema)));
  });
});

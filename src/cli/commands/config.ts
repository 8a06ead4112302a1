/**
 * `config show|get|set|path|schema|doc`. None reads the store or `ctx.config` (they load the file
 * themselves, to show where each value came from), so each is a light action; the schema library
 * and the daemon's modules load inside the subcommand that uses them, and `config path` prints its
 * one line without them (issue 40).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { lightAction } from '../run.js';

const configModule = () => import('../../core/config.js');

export function register(program: Command): void {
  const config = program.command('config').description('show, read and change configuration (config.json; env vars override)');

  config
    .command('show')
    .description('print the effective configuration (file + env overrides + defaults)')
    .action(
      lightAction(async (ctx) => {
        const { getPath, listLeafKeys, loadConfig } = await configModule();
        const loaded = loadConfig(ctx.paths, ctx.env);
        ctx.emit('config', { file: ctx.paths.configFile, exists: loaded.fileExists, envOverrides: loaded.envOverrides, config: loaded.config }, () => {
          ctx.print(`# ${ctx.paths.configFile}${loaded.fileExists ? '' : ' (not created yet: defaults)'}`);
          if (loaded.envOverrides.length) ctx.print(`# env overrides: ${loaded.envOverrides.join(', ')}`);
          for (const leaf of listLeafKeys()) {
            const v = getPath(loaded.config, leaf.path);
            ctx.print(`${leaf.path} = ${v === undefined ? '(unset)' : JSON.stringify(v)}`);
          }
        });
      }),
    );

  config
    .command('get <key>')
    .description('print one key of the effective configuration')
    .action(
      lightAction(async (ctx, key: string) => {
        const [{ getPath, listLeafKeys, loadConfig }, { UsageError }] = await Promise.all([configModule(), import('../../core/errors.js')]);
        const value = getPath(loadConfig(ctx.paths, ctx.env).config, key);
        if (value === undefined && !listLeafKeys().some((l) => l.path === key || l.path.startsWith(key + '.'))) {
          throw new UsageError(`unknown config key "${key}"`, '`skillopt-sleep config show` lists every key');
        }
        ctx.emit('config-get', { key, value: value ?? null }, () => ctx.print(typeof value === 'string' ? value : JSON.stringify(value, null, 2)));
      }),
    );

  config
    .command('set <key> <value>')
    .description('validate and write one key to config.json (arrays: comma-separated or JSON)')
    .action(
      lightAction(async (ctx, key: string, value: string) => {
        const [{ getPath, setConfigValue }, { assertConfigValue }, { liveDaemon }, { keyNeedsRestart }] = await Promise.all([
          configModule(),
          import('../../core/config-validate.js'),
          import('../../daemon/lifecycle.js'),
          import('../../daemon/preflight.js'),
        ]);
        assertConfigValue(key, value);
        const next = setConfigValue(ctx.paths, key, value);
        // a running daemon read some keys at its start: say so only then, and only for those
        const daemon = liveDaemon(ctx.paths);
        const restartNeeded = !!daemon && keyNeedsRestart(key);
        ctx.emit('config-set', { key, value: getPath(next, key), file: ctx.paths.configFile, restartNeeded }, () => {
          ctx.print(`${key} = ${JSON.stringify(getPath(next, key))}  (${ctx.paths.configFile})`);
          if (restartNeeded) ctx.print(`the daemon (pid ${daemon.pid}) read ${key} when it started: \`skillopt-sleep restart\` applies the change`);
          else if (daemon) ctx.print('the next night uses it (no restart needed)');
        });
      }),
    );

  config
    .command('path')
    .description('print the path of config.json')
    .action(lightAction((ctx) => ctx.emit('config-path', { path: ctx.paths.configFile }, () => ctx.print(ctx.paths.configFile))));

  config
    .command('schema')
    .description('print the JSON Schema of config.json (or --write FILE)')
    .option('--write <file>', 'write it to a file instead')
    .action(
      lightAction(async (ctx, opts: { write?: string }) => {
        const [{ configJsonSchema }, { writeFileAtomic }] = await Promise.all([configModule(), import('../../core/fsutil.js')]);
        const text = JSON.stringify(configJsonSchema(), null, 2) + '\n';
        if (opts.write) {
          fs.mkdirSync(path.dirname(path.resolve(opts.write)), { recursive: true });
          writeFileAtomic(path.resolve(opts.write), text);
          ctx.emit('config-schema', { written: path.resolve(opts.write) }, () => ctx.print(`wrote ${path.resolve(opts.write!)}`));
        } else {
          ctx.out.write(text);
        }
      }),
    );

  config
    .command('doc')
    .description('print the configuration reference as markdown (every key, its env var, default and meaning: docs/CONFIG.md)')
    .action(lightAction(async (ctx) => void ctx.out.write((await import('../../core/config-doc.js')).renderConfigDoc())));
}

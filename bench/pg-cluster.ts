/**
 * A throwaway PostgreSQL cluster for the team-mode tests and bench (issue 42; tests/helpers/pg-cluster.ts,
 * bench/team-load.ts): `initdb` in a temp folder, started
 * with `pg_ctl` on a free loopback port, stopped and removed after. No mock stands in for the server.
 *
 * `initdb` refuses to run as root, and CI runs as root: there the cluster belongs to the `postgres`
 * user (`runuser -u postgres --`), its folder chowned to it. The superuser has a real password and TCP
 * connections authenticate with scram-sha-256, so a URL's password is really used (and a test can grep
 * every file a run wrote for it).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';

export interface PgCluster {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres */
  url: string;
  /** a URL for another database of the same cluster (created by `createDatabase`) */
  urlFor(database: string): string;
  password: string;
  port: number;
  dir: string;
  createDatabase(name: string): Promise<void>;
  /** `pg_ctl restart -m fast`: every open connection is cut, the data stays */
  restart(): void;
  /** the same, without blocking this process's event loop (a restart while a push is in flight) */
  restartAsync(): Promise<void>;
  stop(): void;
}

const BIN_DIRS = () => {
  const debian = '/usr/lib/postgresql';
  const versions = fs.existsSync(debian)
    ? fs
        .readdirSync(debian)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => path.join(debian, v, 'bin'))
    : [];
  return [...versions, ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean)];
};

/** The folder holding both `initdb` and `pg_ctl` (Debian keeps them off PATH), or null. */
export function findPgBin(): string | null {
  for (const dir of BIN_DIRS()) {
    if (fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const asRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
function pgCommand(bin: string, tool: string, args: string[]): [string, string[]] {
  return asRoot() ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
}

function runPg(bin: string, tool: string, args: string[]): void {
  const [cmd, argv] = pgCommand(bin, tool, args);
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
}

function runPgAsync(bin: string, tool: string, args: string[]): Promise<void> {
  const [cmd, argv] = pgCommand(bin, tool, args);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${tool} ${args.join(' ')} failed (${code}): ${err}`))));
  });
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error('initdb/pg_ctl not found (install postgresql)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-pg-'));
  const data = path.join(dir, 'data');
  const password = `pw-${crypto.randomBytes(12).toString('hex')}`;
  fs.writeFileSync(path.join(dir, 'pwfile'), password + '\n');
  if (asRoot()) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  runPg(bin, 'initdb', ['-D', data, '-U', 'postgres', '--pwfile', path.join(dir, 'pwfile'), '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync', '-E', 'UTF8', '--locale=C']);
  fs.rmSync(path.join(dir, 'pwfile'));
  let port = 0;
  const start = () =>
    runPg(bin, 'pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      start();
      break;
    } catch (err) {
      // another process took the port between our probe and the server's bind: try another
      if (attempt >= 2) throw err;
    }
  }
  const restartArgs = () => ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-m', 'fast', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'restart'];
  const urlFor = (db: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
  const cluster: PgCluster = {
    url: urlFor('postgres'),
    urlFor,
    password,
    port,
    dir,
    async createDatabase(name: string) {
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: urlFor('postgres') });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await c.end();
      }
    },
    restart() {
      runPg(bin, 'pg_ctl', restartArgs());
    },
    restartAsync: () => runPgAsync(bin, 'pg_ctl', restartArgs()),
    stop() {
      try {
        runPg(bin, 'pg_ctl', ['-D', data, '-w', '-t', '60', '-m', 'immediate', 'stop']);
      } catch {
        // already stopped: the folder is removed below either way
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

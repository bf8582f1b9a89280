// A real PostgreSQL server for tests (Debian's postgresql binaries, the newest
// major version installed; `.ci/run` installs them when missing): initdb into a temp dir, listening on a free
// loopback port with its unix socket in that dir, stopped and removed on
// cleanup. PostgreSQL refuses to run as root, so under root (CI) every server
// command runs as the `postgres` OS user over a data dir chowned to it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { patient } from './patience.js';

/** The newest major version under Debian's /usr/lib/postgresql (15 on bookworm, 17 on trixie). */
function debianPgBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres'))) : [];
  majors.sort((a, b) => Number(b) - Number(a));
  return join(root, majors[0] ?? '15', 'bin');
}

export const PG_BIN = process.env.TOOLHOST_PG_BIN ?? debianPgBin();
/** Why the PostgreSQL tests are skipped, or undefined when they can run. */
export const PG_SKIP = existsSync(join(PG_BIN, 'postgres')) ? undefined : `PostgreSQL binaries not found in ${PG_BIN} (apt-get install postgresql, or set TOOLHOST_PG_BIN)`;

const PASSWORD = 'pg-test-secret-7f3a';

export interface PgServerOptions {
  /** fsync=off and friends: fine for speed, not for the durability test (default false). */
  fast?: boolean;
}

export interface PgServer {
  /** postgres://toolhost:<password>@127.0.0.1:<port>/toolhost */
  url: string;
  password: string;
  port: number;
  /** A new empty database owned by the test role; returns its URL (isolates one test from another on one server). */
  newDatabase(): Promise<string>;
  /** Stops the server now (`pg_ctl stop -m immediate`: like a crash, no shutdown checkpoint). */
  crash(): Promise<void>;
  /** Starts it again on the same port and data dir. */
  restart(): Promise<void>;
  /** Stops the server and removes its temp dir. Idempotent. */
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary as the right OS user. */
function command(bin: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, bin);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

function run(bin: string, args: string[]): string {
  const [cmd, argv] = command(bin, args);
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Waits until the server answers over its unix socket (as the superuser: the test role may not exist yet). */
async function waitReady(config: pg.ClientConfig, child: ChildProcess, deadlineMs = 30_000): Promise<void> {
  const until = Date.now() + patient(deadlineMs);
  let last: unknown;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`postgres exited with code ${child.exitCode} before it was ready`);
    const client = new pg.Client({ ...config, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (err) {
      last = err;
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`postgres did not become ready: ${String(last)}`);
}

export async function startPostgres(options: PgServerOptions = {}): Promise<PgServer> {
  if (PG_SKIP) throw new Error(PG_SKIP);
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PASSWORD}\n`);
  chmodSync(dir, 0o700);
  if (asRoot) {
    const { uid, gid } = { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) };
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  let child: ChildProcess | undefined;
  let closed = false;
  const port = await freePort();
  const url = `postgres://toolhost:${PASSWORD}@127.0.0.1:${port}/toolhost`;
  const admin: pg.ClientConfig = { host: dir, port, user: 'postgres', database: 'postgres' };
  const settings = ['-c', `port=${port}`, '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'max_connections=200'];
  if (options.fast) settings.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');

  const start = async () => {
    const [cmd, argv] = command('postgres', ['-D', data, ...settings]);
    const proc = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 20_000) stderr += d.toString();
    });
    child = proc;
    try {
      await waitReady(admin, proc);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${stderr.slice(-2000)}`);
    }
  };
  const stop = async (mode: 'immediate' | 'fast') => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    try {
      run('pg_ctl', ['stop', '-D', data, '-m', mode, '-w']);
    } catch {
      proc.kill('SIGQUIT');
    }
    await exited;
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await stop('fast').catch(() => child?.kill('SIGKILL'));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8', '--pwfile', pwfile]);
    await start();
    const client = new pg.Client(admin);
    await client.connect();
    try {
      await client.query(`CREATE ROLE toolhost LOGIN PASSWORD '${PASSWORD}'`);
      await client.query('CREATE DATABASE toolhost OWNER toolhost');
    } finally {
      await client.end();
    }
  } catch (err) {
    await close();
    throw err;
  }
  let databases = 0;
  const newDatabase = async () => {
    const name = `toolhost_${++databases}`;
    const client = new pg.Client(admin);
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name} OWNER toolhost`);
    } finally {
      await client.end();
    }
    return `postgres://toolhost:${PASSWORD}@127.0.0.1:${port}/${name}`;
  };
  return {
    url,
    newDatabase,
    password: PASSWORD,
    port,
    crash: () => stop('immediate'),
    restart: start,
    close,
  };
}

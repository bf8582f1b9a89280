// Test helper: a real redis-server (Debian's, /usr/bin/redis-server) on a
// free loopback port, without persistence, in its own temp dir. It can be
// killed and started again on the same port (a Redis outage and its end).
// Stopped and its dir removed on `stop()`, and at process exit whatever
// happened.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { patient } from './patience.js';

export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export interface RedisServer {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: an outage, not a shutdown). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open, nothing is answered (a slow Redis). */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function launch(port: number, dir: string, password: string | undefined): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'];
  if (password !== undefined) args.push('--requirepass', password);
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const deadline = Date.now() + patient(10_000);
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start within ${patient(10_000)} ms`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || (child.signalCode !== null && child.signalCode !== 'SIGSTOP')) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Starts redis-server; `password` makes it require one (the URL then carries it). */
export async function startRedis(options: { password?: string } = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port, dir, options.password);
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    async kill() {
      if (child) await killed(child);
      child = undefined;
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async restart() {
      if (child) await killed(child);
      child = await launch(port, dir, options.password);
    },
    async stop() {
      if (child) await killed(child);
      child = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

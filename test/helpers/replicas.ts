// Several real toolhost processes (`bin/toolhost.js serve`, the built dist/:
// run `npm run build` first) on one config, as replicas behind a load
// balancer would run: each on its own loopback port (server.port 0), its URL
// read from the line `serve` prints, all killed on cleanup.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { patient } from './patience.js';

const BIN = fileURLToPath(new URL('../../bin/toolhost.js', import.meta.url));

export interface Replica {
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far (its pino log lines). */
  output(): string;
}

export interface Replicas {
  list: Replica[];
  close(): Promise<void>;
}

async function startOne(configFile: string, env: NodeJS.ProcessEnv): Promise<Replica> {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', configFile], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const collect = (d: Buffer) => {
    if (out.length < 2_000_000) out += d.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica did not start in time:\n${out.slice(-3000)}`)), patient(60_000));
    const look = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', look);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica exited with ${code} before listening:\n${out.slice(-3000)}`));
    });
  });
  return { url, child, output: () => out };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Starts `n` replicas of one config; if one fails to start, the others are stopped. */
export async function startReplicas(n: number, configFile: string, env: NodeJS.ProcessEnv = {}): Promise<Replicas> {
  const started = await Promise.allSettled(Array.from({ length: n }, () => startOne(configFile, env)));
  const list = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const close = async () => {
    await Promise.all(list.map((r) => kill(r.child)));
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await close();
    throw (failed as PromiseRejectedResult).reason;
  }
  return { list, close };
}

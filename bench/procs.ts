// Child-process plumbing for the bench orchestrator: forked TypeScript (or
// compiled) children with an IPC channel, CPU time read from /proc, and a raw HTTP
// client (no decompression, keep-alive) for collecting exact response bytes.
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

type Message = { type: string; [k: string]: unknown };

const children = new Set<ChildProcess>();
// A failed run must not leave its children behind (each killed by its own pid).
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

export class Child {
  readonly proc: ChildProcess;
  private readonly waiting: Array<{ type: string; resolve: (m: Message) => void }> = [];
  private readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    script: string,
    args: string[] = [],
    execArgv: string[] = [],
    stdout: 'inherit' | 'ignore' | 'pipe' = process.env.BENCH_CHILD_STDOUT === 'inherit' ? 'inherit' : 'ignore',
    /** Variables added to this process's environment for the child. */
    env: Record<string, string> = {},
  ) {
    // TypeScript through tsx; compiled JavaScript (the toolhost child, bench/compiled-child.ts) on plain node.
    const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
    this.proc = fork(script, args, { execArgv: [...loader, ...execArgv], stdio: ['ignore', stdout, 'inherit', 'ipc'], env: { ...process.env, ...env } });
    this.proc.on('message', (m: Message) => {
      const i = this.waiting.findIndex((w) => w.type === m.type);
      if (i >= 0) this.waiting.splice(i, 1)[0].resolve(m);
    });
    children.add(this.proc);
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
  }

  /** The next message of this type (e.g. 'ready'); rejects if the child exits first. */
  next<T extends Message>(type: string, timeoutMs = 300_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no ${type} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.push({
        type,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as T);
        },
      });
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited (${code}) before ${type}`));
      });
    });
  }

  async ask<T extends Message>(msg: Message, replyType = msg.type, timeoutMs?: number): Promise<T> {
    const reply = this.next<T>(replyType, timeoutMs);
    this.proc.send(msg);
    return reply;
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.send({ type: 'stop' });
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User and system CPU seconds (all threads) a process has used so far; NaN for a process that is gone. */
export function cpuSplit(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
  } catch {
    return { user: NaN, system: NaN };
  }
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuSplit(pid);
  return user + system;
}

/** A process's resident memory now, in MB, from the kernel. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/**
 * RSS after `ms` of idleness: V8 keeps the heap a start grew committed
 * until its memory reducer runs, on V8's own timers (seen here 20 to 45 s
 * after a busy start), and then gives most of it back. Read from /proc
 * without asking the process anything (a forced collection would be
 * activity of its own, and a different collection from the reducer's).
 */
export async function rssAfterIdle(pid: number, ms: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return rssMb(pid);
}

/**
 * CPU seconds used so far by the processes `pid` started that are still
 * running (and theirs): an upstream a server spawned. One that exits between
 * two readings takes its time with it, so a server whose upstreams come and
 * go mid-measurement is undercounted (none of the bench's servers does).
 */
export function descendantsCpuSeconds(pid: number): number {
  let total = 0;
  for (const child of childPids(pid)) {
    const own = cpuSeconds(child);
    // Gone between the listing and the read.
    if (!Number.isNaN(own)) total += own + descendantsCpuSeconds(child);
  }
  return total;
}

function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
        .split(' ')
        .filter((x) => x.trim() !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** GET with the exact bytes on the wire (no decompression). */
export function get(url: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method: 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export function closeAgent(): void {
  agent.destroy();
}

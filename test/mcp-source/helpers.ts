// Shared helpers for the MCP source adapter tests: real fixture servers over
// real transports, a pino logger captured into memory, and polling.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { createMetrics, type HostMetrics } from '../../src/observability/metrics.js';
import type { SourceContext } from '../../src/sources/source-context.js';
import type { McpHttpConfig, McpStdioConfig, McpToolSource } from '../../src/sources/mcp/index.js';
import { patient } from '../helpers/patience.js';
import { programArgs } from '../helpers/fixture-command.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/mcp-fixture/server.ts');
/** Tools the fixture always serves. */
export const BASE_TOOLS = ['fixture_control', 'env_check', 'echo', 'slow', 'pid', 'delete_everything'];

export interface CapturedLog {
  logger: Logger;
  /** Every line written so far, raw. */
  text(): string;
  entries(): Array<Record<string, unknown>>;
}

export function captureLogger(level: pino.Level = 'trace'): CapturedLog {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const logger = pino({ level }, stream);
  return {
    logger,
    text: () => chunks.join(''),
    entries: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

export interface TestCtx extends SourceContext {
  log: CapturedLog;
  metrics: HostMetrics;
}

export function makeCtx(env: NodeJS.ProcessEnv = {}): TestCtx {
  const log = captureLogger();
  return { logger: log.logger, log, metrics: createMetrics(), configDir: REPO_ROOT, env: { PATH: process.env.PATH, ...env } };
}

/** Options that keep tests fast. */
export const FAST = {
  connectTimeoutMs: patient(8000),
  pageTimeoutMs: 2000,
  refreshIntervalMs: 0,
  pingIntervalMs: 0,
  backoff: { initialMs: 100, maxMs: 400 },
} as const;

export function stdioConfig(id: string, fixtureArgs: string[] = [], extra: Partial<McpStdioConfig> = {}): McpStdioConfig {
  return {
    id,
    transport: 'stdio',
    command: process.execPath,
    args: [...programArgs(FIXTURE), '--transport', 'stdio', ...fixtureArgs],
    ...FAST,
    ...extra,
  };
}

export function httpConfig(id: string, url: string, extra: Partial<McpHttpConfig> = {}): McpHttpConfig {
  return { id, transport: 'http', url, ...FAST, pingIntervalMs: 200, ...extra };
}

export interface HttpFixture {
  url: string;
  port: number;
  proc: ChildProcess;
  /** SIGKILL, resolves once the process is gone. */
  kill(): Promise<void>;
}

export async function startHttpFixture(args: string[] = [], port = 0): Promise<HttpFixture> {
  const proc = spawn(process.execPath, [...programArgs(FIXTURE), '--transport', 'http', '--port', String(port), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('http fixture did not start')), patient(15_000));
    proc.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl).trim());
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`http fixture exited with ${code}`));
    });
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    url,
    port: Number(new URL(url).port),
    proc,
    kill: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export { waitFor } from '../helpers/patience.js';

export function toolNames(source: McpToolSource): string[] {
  return source.tools().map((t) => t.toolId.slice(`mcp:${source.serverId}.`.length));
}

/** Starts a source and counts onChange calls. */
export async function startCounting(source: McpToolSource): Promise<{ changes: () => number; next: () => Promise<void> }> {
  let count = 0;
  let waiters: Array<() => void> = [];
  await source.start(() => {
    count++;
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  });
  return {
    changes: () => count,
    next: () => new Promise<void>((r) => waiters.push(r)),
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function messages(log: CapturedLog, level?: number): string[] {
  return log
    .entries()
    .filter((e) => level === undefined || e.level === level)
    .map((e) => String(e.msg));
}

export const WARN = 40;

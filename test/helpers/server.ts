// Test helpers: start the real host on an ephemeral loopback port with its
// log lines captured, and speak HTTP to it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { serve, type RunningServer, type ServeOptions } from '../../src/host/serve.js';

export const DEMO_CONFIG = new URL('../../examples/demo/toolhost.yaml', import.meta.url).pathname;
export const ACME_KEY = 'acme-demo-key';
export const GLOBEX_KEY = 'globex-demo-key';

export interface TestServer {
  url: string;
  running: RunningServer;
  /** Every log line the host wrote, as raw JSON text. */
  logs: string[];
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: NodeJS.ProcessEnv;
  startDeadlineMs?: number;
  /** Turns tracing on, exporting spans here. */
  spanExporter?: ServeOptions['spanExporter'];
}

export async function startTestServer(configFile: string, options: TestServerOptions = {}): Promise<TestServer> {
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const running = await serve(configFile, { host: '127.0.0.1', port: 0, logger, env: options.env, startDeadlineMs: options.startDeadlineMs, spanExporter: options.spanExporter });
  return { url: running.url, running, logs, close: () => running.close() };
}

const made: string[] = [];
process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

export function tempDir(prefix = 'toolhost-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes a config object (or raw text) as YAML into a fresh temp dir; returns the file path. */
export function writeConfig(config: unknown, dir = tempDir(), name = 'toolhost.yaml'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof config === 'string' ? config : stringify(config));
  return file;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json(): any;
}

export async function request(url: string, path: string, init: { token?: string; headers?: Record<string, string>; method?: string } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url + path, { method: init.method ?? 'GET', headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

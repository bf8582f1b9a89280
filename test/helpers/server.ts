// Test helpers: start the real host on an ephemeral loopback port with its
// log lines captured, and speak HTTP to it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pino from 'pino';
import { parse, stringify } from 'yaml';
import { serve, type RunningServer, type ServeOptions } from '../../src/host/serve.js';
import { patient } from './patience.js';

// Not exported: a host started on the demo config as it is (by `serve` or by
// `validate`) writes its event log into the repository (examples/demo/data/);
// tests use demoConfig().
const DEMO_CONFIG = new URL('../../examples/demo/toolhost.yaml', import.meta.url).pathname;
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
  /** How long the host waits for its sources before serving; the host's own 10 s, stretched by the machine's load, unless set. */
  startDeadlineMs?: number;
  /** Turns tracing on, exporting spans here. */
  spanExporter?: ServeOptions['spanExporter'];
}

export async function startTestServer(configFile: string, options: TestServerOptions = {}): Promise<TestServer> {
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const running = await serve(configFile, { host: '127.0.0.1', port: 0, logger, env: options.env, startDeadlineMs: options.startDeadlineMs ?? patient(10_000), spanExporter: options.spanExporter });
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

/**
 * Writes a config object (or raw text) as YAML into a fresh temp dir; returns
 * the file path. A stdio MCP source that sets no `connectTimeoutMs` gets the
 * host's 10 s stretched by the machine's load: the upstream is a child
 * process, which on a busy machine can take longer than that to answer its
 * initialize, and a test that means to time a connect out sets its own.
 */
export function writeConfig(config: unknown, dir = tempDir(), name = 'toolhost.yaml'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof config === 'string' ? config : stringify(patientUpstreams(config)));
  return file;
}

function patientUpstreams(config: unknown): unknown {
  const mcp = (config as { sources?: { mcp?: unknown } } | null)?.sources?.mcp;
  if (!Array.isArray(mcp)) return config;
  const patientOne = (s: Record<string, unknown>) => (s.transport === 'stdio' && s.connectTimeoutMs === undefined ? { ...s, connectTimeoutMs: patient(10_000) } : s);
  const c = config as { sources: Record<string, unknown> };
  return { ...c, sources: { ...c.sources, mcp: mcp.map(patientOne) } };
}

/**
 * The demo config copied into a fresh temp dir, its relative paths made
 * absolute and its event log in that dir: tests write nothing into the
 * repository. Returns the copy's path.
 */
export function demoConfig(): string {
  const demoDir = dirname(DEMO_CONFIG);
  const config = parse(readFileSync(DEMO_CONFIG, 'utf8'));
  const dir = tempDir();
  config.events.file = join(dir, 'events.sqlite');
  for (const p of config.sources.nodePacks) p.path = resolve(demoDir, p.path);
  for (const w of config.sources.workflows) w.path = resolve(demoDir, w.path);
  for (const c of config.sources.connectors) {
    c.document = resolve(demoDir, c.document);
    if (c.auth?.secret?.file) c.auth.secret.file = resolve(demoDir, c.auth.secret.file);
  }
  for (const m of config.sources.mcp) m.cwd = demoDir;
  return writeConfig(config, dir);
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

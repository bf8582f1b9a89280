// What an open, idle MCP session costs toolhost (docs/benchmarks.md "Idle MCP
// sessions"): memory per session and whether each holds a timer. A toolhost
// child (compiled, as users run it; bench/call-hosts.ts) gets N sessions
// opened (initialize, notifications/initialized), each on a connection of its
// own that is closed afterwards, so what stays is the session and nothing of
// its socket; the child reports its memory after a full collection and its
// active resources by kind (node's `process.getActiveResourcesInfo()`: a
// timer is a 'Timeout') before and after, in steps.
//
//   npm run build && npx tsx bench/idle-sessions.ts [--sessions N] [--steps N]
//   BENCH_HEAP_SNAPSHOT=FILE also writes the child's heap snapshot with every session open.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHost, type Host } from './call-hosts.js';
import { LoadSampler } from './targets.js';

type Resources = {
  type: 'resources';
  timers: number;
  memory: { rss: number; heapUsed: number; external: number; arrayBuffers: number };
  resources: Record<string, number>;
};

/** One JSON-RPC POST to /mcp on a connection of its own, closed after the answer. */
function post(host: Host, body: unknown, sessionId?: string): Promise<{ status: number; sessionId?: string }> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    authorization: host.authorization,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  return new Promise((resolve, reject) => {
    const req = request(new URL('/mcp', host.url), { method: 'POST', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, sessionId: res.headers['mcp-session-id'] as string | undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

async function openSession(host: Host): Promise<void> {
  const init = await post(host, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'idle-bench', version: '1.0.0' } } });
  if (init.status !== 200 || init.sessionId === undefined) throw new Error(`initialize: HTTP ${init.status}`);
  const done = await post(host, { jsonrpc: '2.0', method: 'notifications/initialized' }, init.sessionId);
  if (done.status !== 202) throw new Error(`notifications/initialized: HTTP ${done.status}`);
}

export interface IdleResult {
  sessions: number;
  /** Heap used per session (after a full collection), KiB, one per step. */
  heapKiBPerSession: number[];
  /** RSS per session, KiB, one per step. */
  rssKiBPerSession: number[];
  /** Timers ('Timeout' resources) added per session, one per step. */
  timersPerSession: number[];
  timersBefore: number;
  timersAfter: number;
  load: number[];
}

export async function runIdleSessions(sessions: number, steps: number, log: (line: string) => void = () => undefined): Promise<IdleResult> {
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolhost-bench-idle-'));
  const load = new LoadSampler(2000);
  // Sessions far under their caps and idle limit: nothing is closed while measuring.
  const host = await startHost(mkdtempSync(join(tmp, 'host-')), { events: true, fastCalls: true, mcp: { maxSessionsPerPrincipal: sessions + 10, sessionSoftCap: sessions + 10 }, nodeFlags: ['--expose-gc'], env: { BENCH_COUNT_TIMERS: '1' } }, join(tmp, 'compiled'));
  try {
    // One session first: the code paths a session takes are loaded and compiled before the baseline.
    await openSession(host);
    const base = await host.child.ask<Resources>({ type: 'resources' });
    const result: IdleResult = { sessions, heapKiBPerSession: [], rssKiBPerSession: [], timersPerSession: [], timersBefore: base.timers, timersAfter: 0, load: [] };
    const per = Math.ceil(sessions / steps);
    let opened = 0;
    for (let step = 0; step < steps; step++) {
      // A few at a time, as clients arrive.
      for (let i = 0; i < per && opened < sessions; i += 8) {
        const n = Math.min(8, per - i, sessions - opened);
        await Promise.all(Array.from({ length: n }, () => openSession(host)));
        opened += n;
      }
      const now = await host.child.ask<Resources>({ type: 'resources' });
      const kib = (bytes: number) => bytes / 1024 / opened;
      result.heapKiBPerSession.push(kib(now.memory.heapUsed - base.memory.heapUsed));
      result.rssKiBPerSession.push(kib(now.memory.rss - base.memory.rss));
      result.timersPerSession.push((now.timers - result.timersBefore) / opened);
      result.timersAfter = now.timers;
      log(`${opened} idle sessions: heap +${(now.memory.heapUsed / 2 ** 20 - base.memory.heapUsed / 2 ** 20).toFixed(1)} MB (${result.heapKiBPerSession.at(-1)!.toFixed(1)} KiB each), RSS ${result.rssKiBPerSession.at(-1)!.toFixed(1)} KiB each, timers ${result.timersBefore} -> ${result.timersAfter}, resources ${JSON.stringify(now.resources)}`);
    }
    if (process.env.BENCH_HEAP_SNAPSHOT) await host.child.ask({ type: 'heap-snapshot', file: process.env.BENCH_HEAP_SNAPSHOT }, 'heap-snapshot', 600_000);
    load.stop();
    result.load = load.within();
    return result;
  } finally {
    await host.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name: string, d: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : d);
  const r = await runIdleSessions(opt('sessions', 2000), opt('steps', 4), (line) => process.stderr.write(`[idle] ${line}\n`));
  const f = (xs: number[], d = 1) => xs.map((x) => x.toFixed(d)).join(' / ');
  process.stdout.write(
    `${r.sessions} idle MCP sessions, in ${r.heapKiBPerSession.length} steps: heap ${f(r.heapKiBPerSession)} KiB per session, RSS ${f(r.rssKiBPerSession)} KiB per session, timers added per session ${f(r.timersPerSession, 3)} (${r.timersBefore} -> ${r.timersAfter}); load ${Math.min(...r.load).toFixed(2)}–${Math.max(...r.load).toFixed(2)}\n`,
  );
}

// The two proxies people put in front of a stdio MCP server to reach it over
// Streamable HTTP, for the call benchmark (bench/calls.ts; docs/benchmarks.md
// "Against the proxies"): supergateway and mcp-proxy, the versions pinned in
// package.json's devDependencies, each spawned with plain node on a loopback
// port in front of the same upstream command toolhost spawns, and called by
// the same clients.
//
// How each runs its upstream: mcp-proxy spawns one upstream at start and
// relays every session to it (as toolhost does); supergateway (`--stateful`)
// spawns one upstream per MCP session. Each runs with its defaults but for
// supergateway's per-message log lines, turned off (`--logLevel none`), so
// the proxies are measured at their best.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../test/helpers/redis.js';
import { join } from 'node:path';
import { RawHttpClient } from './call-clients.js';
import { REPO_ROOT } from './config.js';

export type ProxyName = 'supergateway' | 'mcp-proxy';
export const PROXIES: readonly ProxyName[] = ['mcp-proxy', 'supergateway'];

export interface Proxy {
  name: ProxyName;
  /** Base URL; the MCP endpoint is `/mcp`, as on toolhost. */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const BIN: Record<ProxyName, string> = {
  supergateway: join(REPO_ROOT, 'node_modules/supergateway/dist/index.js'),
  'mcp-proxy': join(REPO_ROOT, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs'),
};


/** The proxy's arguments: the upstream `command args...` behind it on `port`. */
function argsOf(name: ProxyName, port: number, command: string, args: string[]): string[] {
  if (name === 'mcp-proxy') return [BIN[name], '--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--', command, ...args];
  // supergateway runs its upstream through a shell: one command line.
  const line = [command, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  return [BIN[name], '--stdio', line, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none'];
}

/** Starts the proxy and resolves once an MCP session can be opened through it. */
export async function startProxy(name: ProxyName, command: string, args: string[], cwd: string): Promise<Proxy> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, argsOf(name, port, command, args), { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A failed bench run must not leave a proxy behind (killed by its own pid).
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', onExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    // SIGTERM: each proxy stops its upstreams before it exits.
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) before it answered: ${stderr}`);
    try {
      const probe = await RawHttpClient.open(url, '');
      await probe.close();
      return { name, url, pid: child.pid ?? -1, stop };
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${name} did not answer an initialize within 60 s: ${err instanceof Error ? err.message : String(err)} ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

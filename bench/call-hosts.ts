// The toolhost children of the call benchmark (bench/calls.ts): one config
// each (rate limits off, the audit line on as by default, events in a SQLite
// file of their own, the demo's text pack and server-everything over stdio),
// run compiled on dist/ as users run it (bench/compiled-child.ts), and the
// count of the events one of them recorded, read back through GET /events.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { compiledChild } from './compiled-child.js';
import { REPO_ROOT } from './config.js';
import { Child, get } from './procs.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TENANT = 'bench';

export interface HostOptions {
  events: boolean;
  fastCalls: boolean;
  /** `events.synchronous`; unset: the default, `full`. */
  synchronous?: 'normal';
  /** `events.writeAhead`; unset: the default, `all`. */
  writeAhead?: 'changes';
  /** More of the `mcp` section (session caps). */
  mcp?: Record<string, unknown>;
  /** Node flags and environment variables for the child, besides BENCH_NODE_FLAGS. */
  nodeFlags?: string[];
  env?: Record<string, string>;
}

export interface Host {
  child: Child;
  url: string;
  authorization: string;
  stop(): Promise<void>;
}

export async function startHost(dir: string, v: HostOptions, compiledDir: string): Promise<Host> {
  const key = `bench-calls-${randomBytes(16).toString('hex')}`;
  const config = {
    mcp: { enabled: true, fastCalls: v.fastCalls, ...v.mcp },
    ...(v.events ? { events: { file: join(dir, 'events.sqlite'), ...(v.synchronous ? { synchronous: v.synchronous } : {}), ...(v.writeAhead ? { writeAhead: v.writeAhead } : {}) } } : {}),
    tenants: { [TENANT]: { description: 'call bench', tools: ['*'], rateLimit: false } },
    principals: [{ id: 'bench-caller', tenant: TENANT, scopes: [], keyHash: hashApiKey(key) }],
    policy: {
      rules: [
        { match: ['mcp:everything.echo', 'openwop:text.*'], safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
        // Everything else server-everything lists stays as the default (write): not called here.
      ],
    },
    sources: {
      nodePacks: [{ path: join(REPO_ROOT, 'examples/demo/packs/text') }],
      mcp: [{ id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], cwd: REPO_ROOT, refreshIntervalMs: 0 }],
    },
  };
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify(config));
  // As users run it: compiled, on dist/; BENCH_CHILD_TSX=1: the sources through tsx.
  const script = process.env.BENCH_CHILD_TSX ? join(HERE, 'toolhost-child.ts') : compiledChild(join(HERE, 'toolhost-child.ts'), compiledDir);
  const name = `toolhost(calls${v.events ? `${v.synchronous ? `, events ${v.synchronous}` : ''}${v.writeAhead ? `, writeAhead ${v.writeAhead}` : ''}` : ', no events'})`;
  const flags = [...(v.nodeFlags ?? []), ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
  const child = new Child(name, script, [file, join(dir, 'toolhost.log')], flags, 'ignore', v.env);
  const ready = await child.next<{ type: 'ready'; url: string }>('ready');
  return { child, url: ready.url, authorization: `Bearer ${key}`, stop: () => child.stop() };
}

/** Every event of the tenant's stream, counted page by page. */
export async function countEvents(host: Host): Promise<number> {
  let count = 0;
  // Sequences start at 0; -1 reads from the first event.
  let after = -1;
  for (;;) {
    const res = await get(host.url, `/events?after=${after}&limit=1000`, { authorization: host.authorization });
    if (res.status !== 200) throw new Error(`GET /events: HTTP ${res.status}`);
    const page = JSON.parse(res.body.toString('utf8')) as { events: unknown[]; next: number };
    if (page.events.length === 0) return count;
    count += page.events.length;
    after = page.next;
  }
}

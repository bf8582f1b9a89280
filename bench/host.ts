// The toolhost child the bench measures (bench/toolhost-child.ts, compiled
// on dist/ unless BENCH_CHILD_TSX=1) and the list_changed round it is put
// through, shared by the full run (bench/run.ts) and the run of only start,
// memory and list_changed (bench/memory.ts).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { compiledChild } from './compiled-child.js';
import { benchConfig, TENANTS, type TenantName } from './config.js';
import { Child, get } from './procs.js';
import { toolPath } from './scenarios.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export interface Toolhost {
  child: Child;
  url: string;
  controlFile: string;
  ready: { tools: number; buildMs: number; startMs: number; processMs: number; atNs: string };
  /** Process start to both views served (the compact view made). */
  compacted: Promise<number>;
  /** The upstream's first `tools/list` page answered to the standard view and to both views served, in ms. */
  fromFirstPage: Promise<{ standard: number; both: number }>;
}

/** Nanoseconds (CLOCK_MONOTONIC, as text) from `from` to `to`, in ms. */
const spanMs = (from: string, to: string) => Number(BigInt(to) - BigInt(from)) / 1e6;

export interface HostOptions {
  /** The run's temp dir: the host's config, log and compiled child go under it. */
  tmp: string;
  tools: number;
  pageSize: number;
  keys: Record<TenantName, string>;
  audit: boolean;
}

/** toolhost as users run it: the child compiled, on dist/ with plain node; BENCH_CHILD_TSX=1: the sources through tsx. */
const toolhostChild = (tmp: string) => (process.env.BENCH_CHILD_TSX ? join(HERE, 'toolhost-child.ts') : compiledChild(join(HERE, 'toolhost-child.ts'), join(tmp, 'compiled')));

export async function startToolhost(o: HostOptions): Promise<Toolhost> {
  const dir = mkdtempSync(join(o.tmp, o.audit ? 'audit-' : 'host-'));
  const controlFile = join(dir, 'control-port');
  const config = benchConfig({
    tools: o.tools,
    pageSize: o.pageSize,
    controlFile,
    keyHashes: Object.fromEntries(TENANTS.map((t) => [t, hashApiKey(o.keys[t])])) as Record<TenantName, string>,
    audit: o.audit,
  });
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify(config));
  const child = new Child(o.audit ? 'toolhost(audit)' : 'toolhost', toolhostChild(o.tmp), [file, join(dir, 'toolhost.log')], ['--expose-gc', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)]);
  // Awaited for the first host only: a host stopped before it says so gives NaN, not an unhandled rejection.
  const compactedMessage = child.next<{ type: 'compacted'; processMs: number; atNs: string }>('compacted');
  const compacted = compactedMessage.then((m) => m.processMs, () => NaN);
  const ready = await child.next<{ type: 'ready'; url: string; tools: number; buildMs: number; startMs: number; processMs: number; atNs: string }>('ready');
  if (ready.tools !== o.tools) throw new Error(`toolhost serves ${ready.tools} tools, expected ${o.tools}`);
  const fromFirstPage = compactedMessage.then(
    (both) => {
      const firstPage = readFileSync(`${controlFile}.first-page`, 'utf8');
      return { standard: spanMs(firstPage, ready.atNs), both: spanMs(firstPage, both.atNs) };
    },
    () => ({ standard: NaN, both: NaN }),
  );
  return { child, url: ready.url, controlFile, ready, compacted, fromFirstPage };
}

export interface ChangeResult {
  /** list_changed sent (upstream clock) to the new content answered over HTTP. */
  servedMs: number;
  /** The store's rebuild for that change (scheduleRebuild to swap). */
  buildMs: number;
}

/** One tool of the upstream changed (round `round` picks which), and the time until toolhost serves it. */
export async function listChanged(host: Toolhost, round: number, tools: number, authorization: string): Promise<ChangeResult> {
  const port = Number(readFileSync(host.controlFile, 'utf8'));
  const index = (round * 7919 + 17) % tools;
  const before = (await host.child.ask<{ type: 'builds'; builds: { ms: number }[] }>({ type: 'builds' })).builds.length;
  const res = await fetch(`http://127.0.0.1:${port}/change?index=${index}`, { method: 'POST' });
  const { revision, notifiedAtNs } = (await res.json()) as { name: string; revision: number; notifiedAtNs: string };
  const path = toolPath(index, tools);
  const marker = `(revision ${revision})`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await get(host.url, path, { authorization });
    if (r.status === 200 && r.body.includes(marker)) break;
    if (Date.now() > deadline) throw new Error(`revision ${revision} of tool ${index} not served within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const servedMs = Number(process.hrtime.bigint() - BigInt(notifiedAtNs)) / 1e6;
  // The swap has happened; its build record arrives just after.
  let builds: { ms: number }[] = [];
  for (let i = 0; i < 100 && builds.length <= before; i++) {
    builds = (await host.child.ask<{ type: 'builds'; builds: { ms: number }[] }>({ type: 'builds' })).builds;
    if (builds.length <= before) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { servedMs, buildMs: builds.at(-1)?.ms ?? NaN };
}

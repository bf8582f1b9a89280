// The call benchmark's rows (bench/calls.ts) and their Markdown table, as
// bench/run.ts and bench/calls.ts print them (docs/benchmarks.md "A call
// through the front door"), and the targets held against the proxies
// (docs/benchmarks.md "Against the proxies").
import { median } from './shared.js';
import type { TargetRow } from './targets.js';

/** One measured row: per-round figures, and its target when it has one. */
export interface CallRow {
  name: string;
  p50Ms: number[];
  p99Ms: number[];
  callsPerSecond: number[];
  /** The server's CPU time (all threads of its process) per call, when the row went through one. */
  cpuMsPerCall?: number[];
  /** Per call: the CPU of the processes the server spawned (its upstreams), and of the bench's own clients. */
  upstreamCpuMsPerCall?: number[];
  clientCpuMsPerCall?: number[];
  /** Events in the log per call made (4: opened, called, returned, closed), when the row recorded events. */
  eventsPerCall?: number;
  target?: string;
  met?: boolean;
  note?: string;
}

const range = (xs: number[], digits: number) => {
  const f = (n: number) => n.toFixed(digits);
  return `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
};

/** The rows as a Markdown table: medians with (min–max) over rounds. */
export function callTable(rows: CallRow[]): string {
  const lines = [
    '| call | p50 ms | p99 ms | calls/s | server CPU ms per call | events per call | target | |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) =>
      [
        r.name,
        range(r.p50Ms, 2),
        range(r.p99Ms, 2),
        range(r.callsPerSecond, 0),
        r.cpuMsPerCall === undefined || r.cpuMsPerCall.length === 0 ? '—' : range(r.cpuMsPerCall, 2),
        r.eventsPerCall === undefined ? '—' : r.eventsPerCall.toFixed(2),
        r.target === undefined ? '—' : `${r.target}${r.note ? `: ${r.note}` : ''}`,
        r.met === undefined ? '' : r.met ? 'met' : 'missed',
      ].join(' | '),
    ),
  ];
  return lines.map((l) => (l.startsWith('|') ? l : `| ${l} |`)).join('\n');
}

/**
 * Where the machine's CPU went per call, by process, for the rows that went
 * through a server: the server, what it spawned (the upstream, or one per
 * session), and the bench's clients. On a machine the three share, a
 * server's calls/s is bounded by their sum, not by its own share.
 */
export function cpuShareTable(rows: CallRow[]): string {
  const measured = rows.filter((r) => (r.cpuMsPerCall?.length ?? 0) > 0 && (r.upstreamCpuMsPerCall?.length ?? 0) > 0);
  const sum = (r: CallRow) => r.cpuMsPerCall!.map((x, i) => x + r.upstreamCpuMsPerCall![i] + r.clientCpuMsPerCall![i]);
  return [
    '| call | server CPU ms per call | its upstreams | the bench\'s clients | all three |',
    '| --- | --- | --- | --- | --- |',
    ...measured.map((r) => `| ${[r.name, range(r.cpuMsPerCall!, 2), range(r.upstreamCpuMsPerCall!, 2), range(r.clientCpuMsPerCall!, 2), range(sum(r), 2)].join(' | ')} |`),
  ].join('\n');
}

/** The proxies' names as the call rows spell them (bench/proxies.ts). */
export const PROXY_NAMES = ['mcp-proxy', 'supergateway'] as const;

/** Row names shared by bench/calls.ts (which makes the rows) and the targets below (which read them). */
export const ROW = {
  direct: 'echo, direct over stdio (SDK client)',
  raw: 'echo through /mcp, raw keep-alive HTTP client',
  rawNormal: 'echo through /mcp, raw keep-alive HTTP client, events.synchronous: normal',
  sdk: 'echo through /mcp, SDK client (Streamable HTTP)',
  viaProxy: (proxy: string) => `echo through ${proxy}, raw keep-alive HTTP client`,
  many: (clients: number) => `echo through /mcp, ${clients} raw clients`,
  manyViaProxy: (proxy: string, clients: number) => `echo through ${proxy}, ${clients} raw clients`,
  pack: 'node-pack tool through /mcp, 1 raw client',
  packMany: (clients: number) => `node-pack tool through /mcp, ${clients} raw clients`,
};

/**
 * The targets against the proxies, per round: toolhost's figure over the
 * better proxy's of the same round (the higher calls/s, the lower p99).
 * Empty values (a run without the proxies) report "not measured".
 */
export function proxyTargets(rows: readonly CallRow[], clients: number, span?: { from: number; to: number }): TargetRow[] {
  const find = (name: string) => rows.find((r) => r.name === name);
  const proxies = (name: (p: string) => string) => PROXY_NAMES.map((p) => find(name(p))).filter((r): r is CallRow => r !== undefined);
  /** Per round: mine ÷ the best proxy's, where best is the max (or min) of that round. */
  const against = (mine: number[] | undefined, theirs: number[][], best: (...xs: number[]) => number) =>
    theirs.length === 0 || mine === undefined ? [] : mine.map((x, i) => x / best(...theirs.map((t) => t[i] ?? NaN)));
  const one = proxies(ROW.viaProxy);
  const many = proxies((p) => ROW.manyViaProxy(p, clients));
  const rate = (xs: CallRow[]) => xs.map((r) => r.callsPerSecond);
  return [
    { target: 'echo, 1 raw client, events.synchronous: full: calls/s ÷ the faster proxy\'s', threshold: 1, unit: '×', better: 'higher', values: against(find(ROW.raw)?.callsPerSecond, rate(one), Math.max), span },
    { target: 'echo, 1 raw client, events.synchronous: normal: calls/s ÷ the faster proxy\'s', threshold: 1.3, unit: '×', better: 'higher', values: against(find(ROW.rawNormal)?.callsPerSecond, rate(one), Math.max), span },
    { target: `echo, ${clients} raw clients (events.synchronous: full): calls/s ÷ the faster proxy's`, threshold: 1.5, unit: '×', better: 'higher', values: against(find(ROW.many(clients))?.callsPerSecond, rate(many), Math.max), span },
    { target: 'echo, 1 raw client (events.synchronous: full): p99 ÷ the lower of the proxies\' p99', threshold: 1, unit: '×', better: 'lower', values: against(find(ROW.raw)?.p99Ms, one.map((r) => r.p99Ms), Math.min), span },
  ];
}

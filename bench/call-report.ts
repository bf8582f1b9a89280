// The call benchmark's rows (bench/calls.ts) and their Markdown table, as
// bench/run.ts and bench/calls.ts print them (docs/benchmarks.md "A call
// through the front door").
import { median } from './shared.js';

/** One measured row: per-round figures, and its target when it has one. */
export interface CallRow {
  name: string;
  p50Ms: number[];
  p99Ms: number[];
  callsPerSecond: number[];
  /** Toolhost's CPU time (all threads) per call, when the row went through it. */
  cpuMsPerCall?: number[];
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
    '| call | p50 ms | p99 ms | calls/s | toolhost CPU ms per call | events per call | target | |',
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

// The targets as one table (docs/benchmarks.md "Figures"): every
// scenario module adds its rows, each with what was measured in every round,
// and one formatter reports min–median–max, the 1-minute load average while
// that row was measured, and met or missed. A row is decided by its median,
// or by its worst round where the target is about the worst case.
import os from 'node:os';
import { median } from './shared.js';

export interface TargetRow {
  /** What is measured, as the issue words it (e.g. "GET /tools/{id} standard, audit on, ÷ baseline"). */
  target: string;
  threshold: number;
  /** Printed after figures: '×' for ratios to the baseline, 'ms', 'MB', 'calls/s'. */
  unit: string;
  better: 'higher' | 'lower';
  /** One value per round (or per sample); empty: not measured in this run. */
  values: number[];
  /** Which value decides: the median (default), or the worst one ("< 1 s worst of 20"). */
  decidedBy?: 'median' | 'worst';
  /** Digits after the decimal point (default: 2 for ×, else 0). */
  digits?: number;
  /** When the row's measurement ran (Date.now()), for its load average; absent: the whole run. */
  span?: { from: number; to: number };
}

/** The 1-minute load average, sampled every few seconds from creation on. */
export class LoadSampler {
  readonly samples: { at: number; load: number }[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 5000) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  sample(): void {
    this.samples.push({ at: Date.now(), load: os.loadavg()[0] });
  }

  /** Samples taken within the span (and the last one before it, so a short span has one). */
  within(span?: { from: number; to: number }): number[] {
    if (span === undefined) return this.samples.map((s) => s.load);
    const before = this.samples.filter((s) => s.at <= span.from).at(-1);
    const inside = this.samples.filter((s) => s.at > span.from && s.at <= span.to);
    return [...(before ? [before] : []), ...inside].map((s) => s.load);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

const num = (n: number, digits: number) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');

/** The value that decides a row, or undefined when nothing was measured. */
export function decidingValue(row: TargetRow): number | undefined {
  const xs = row.values.filter(Number.isFinite);
  if (xs.length === 0) return undefined;
  if (row.decidedBy === 'worst') return row.better === 'higher' ? Math.min(...xs) : Math.max(...xs);
  return median(xs);
}

export function isMet(row: TargetRow): boolean | undefined {
  const v = decidingValue(row);
  if (v === undefined) return undefined;
  return row.better === 'higher' ? v >= row.threshold : v < row.threshold;
}

/** The Markdown table of the targets. */
export function targetsTable(rows: readonly TargetRow[], load: LoadSampler): string {
  const lines = [
    '| target | wanted | measured: min – median – max (rounds) | load average (1 min) while measured: min – median – max | |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const digits = row.digits ?? (row.unit === '×' ? 2 : 0);
    const unit = row.unit === '×' ? '×' : ` ${row.unit}`;
    const xs = row.values.filter(Number.isFinite);
    const wanted = `${row.better === 'higher' ? '≥' : '<'} ${num(row.threshold, row.unit === '×' || !Number.isInteger(row.threshold) ? 2 : 0)}${unit}${row.decidedBy === 'worst' ? ' (worst)' : ' (median)'}`;
    const measured = xs.length === 0 ? 'not measured' : `${num(Math.min(...xs), digits)} – ${num(median(xs), digits)} – ${num(Math.max(...xs), digits)}${unit} (${xs.length})`;
    const loads = load.within(row.span);
    const loadText = loads.length === 0 ? 'n/a' : `${num(Math.min(...loads), 2)} – ${num(median(loads), 2)} – ${num(Math.max(...loads), 2)}`;
    const met = isMet(row);
    lines.push(`| ${row.target} | ${wanted} | ${measured} | ${loadText} | ${met === undefined ? '' : met ? 'met' : '**missed**'} |`);
  }
  return lines.join('\n');
}

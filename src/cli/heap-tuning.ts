// V8's heap growing factor for a serving process (docs/deploy.md "Memory";
// docs/benchmarks.md "list_changed: what the garbage collector counts"). With
// about 100 MB live at 10,000 tools, V8's own factor left the old generation
// some 26 MB of headroom, less than the young generation's 32 MB, and V8
// then starts an incremental marking of the whole heap: three or four per
// catalog change, most of a change's CPU. A fixed factor of 1.6 lets a
// change's garbage wait for one collection. Set from the command line's
// `serve` (and the bench's host, which mirrors it), never by the library:
// an embedding process keeps its own. An operator's own
// `--heap-growing-percent` on node's command line wins.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 60;

/** Sets the factor unless node was started with one; returns whether it did. */
export function tuneHeapForServing(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

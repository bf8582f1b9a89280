// `toolhost serve` sets V8's heap growing factor (src/cli/heap-tuning.ts)
// unless node was started with one: an operator's choice on node's command
// line, in either spelling, is left alone. What the factor buys is measured
// in docs/benchmarks.md ("list_changed: what the garbage collector counts").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tuneHeapForServing } from '../../src/cli/heap-tuning.js';

test('an operator\'s own --heap-growing-percent wins; otherwise the serving factor is set', () => {
  for (const own of ['--heap-growing-percent=0', '--heap_growing_percent=25', '--heap-growing-percent']) {
    assert.equal(tuneHeapForServing(['--enable-source-maps', own]), false, own);
  }
  assert.equal(tuneHeapForServing(['--enable-source-maps', '--heap-growing-percentage-is-not-a-flag=1']), true);
  assert.equal(tuneHeapForServing([]), true);
});

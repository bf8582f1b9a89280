// The ids of events and tool sessions (src/events/time-ordered-id.ts): UUID
// version 7, each greater than the one made before it in this process, also
// within one millisecond and when the clock steps back, so the log's indexes
// on them grow at their end; the millisecond they were made in is readable
// from their first 48 bits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { timeOrderedId } from '../../src/events/time-ordered-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

test('an id is a UUID version 7 (RFC 9562) carrying the millisecond it was made in', () => {
  const before = Date.now();
  const id = timeOrderedId();
  assert.match(id, V7);
  assert.ok(msOf(id) >= before && msOf(id) <= Date.now() + 1, `${id}: ${msOf(id)}`);
});

test('ids sort in the order they were made: many in one millisecond, across milliseconds, and when the clock goes back', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 3000 }), (steps) => {
      // A clock that mostly stays, sometimes moves on and sometimes steps back.
      let now = Date.now() + 10_000;
      let last = timeOrderedId(now);
      for (const step of steps) {
        now += step;
        const id = timeOrderedId(now);
        assert.match(id, V7);
        assert.ok(id > last, `${id} after ${last}`);
        last = id;
      }
    }),
    { numRuns: 50 },
  );
});

test('5,000 ids in one millisecond are all different and still in order', () => {
  const now = Date.now() + 100_000;
  const ids = Array.from({ length: 5000 }, () => timeOrderedId(now));
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual(ids, [...ids].sort());
  // The counter runs over into the next milliseconds rather than out of order.
  assert.ok(msOf(ids.at(-1)!) >= now);
});

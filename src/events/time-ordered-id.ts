// Identifiers of events and tool sessions as UUID version 7 (RFC 9562 §5.7):
// a millisecond timestamp first, then a counter and random bits. The event
// log indexes both ids (eventId unique, sessionId for reading a session back),
// and a random key puts each insert on another page of those indexes, every
// one written to the WAL at commit: a group commit of 20 events wrote about
// 50 pages with random ids and about 16 with these, whose keys grow with time
// and land on the indexes' last pages (docs/benchmarks.md "The event log
// inside a call"). Ids made in the same millisecond keep their order through
// the 12-bit counter (`rand_a`), which starts at a random value each
// millisecond; the last 62 bits are random.
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 8 * 1024;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

const hex: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

let lastMs = -1;
let counter = 0;

function randomBytes(n: number): number {
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += n;
  return at;
}

/** A new UUID version 7, greater than every one this process made before (while the clock does not go back). */
export function timeOrderedId(now = Date.now()): string {
  let ms = now;
  if (ms > lastMs) {
    lastMs = ms;
    // A random start in the lower half leaves room for 2,048 ids in the millisecond.
    const at = randomBytes(2);
    counter = ((pool[at] << 8) | pool[at + 1]) & 0x7ff;
  } else {
    // The same millisecond, or a clock that went back: count on from the last id.
    ms = lastMs;
    counter++;
    if (counter > 0xfff) {
      lastMs = ++ms;
      counter = 0;
    }
  }
  const r = randomBytes(8);
  const t = ms.toString(16).padStart(12, '0');
  const b8 = (pool[r] & 0x3f) | 0x80;
  return (
    `${t.slice(0, 8)}-${t.slice(8, 12)}-${hex[0x70 | (counter >> 8)]}${hex[counter & 0xff]}-` +
    `${hex[b8]}${hex[pool[r + 1]]}-${hex[pool[r + 2]]}${hex[pool[r + 3]]}${hex[pool[r + 4]]}${hex[pool[r + 5]]}${hex[pool[r + 6]]}${hex[pool[r + 7]]}`
  );
}

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

const hex2: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const hex3: string[] = Array.from({ length: 4096 }, (_, i) => i.toString(16).padStart(3, '0'));

let lastMs = -1;
let counter = 0;
/** `tttttttt-tttt-7` of lastMs: an id is made on every event, a millisecond's prefix once. */
let prefix = '';

/** The offset of `n` random bytes in the pool, refilled when used up. */
function random(n: number): number {
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += n;
  return at;
}

function enter(ms: number): void {
  lastMs = ms;
  const t = ms.toString(16).padStart(12, '0');
  prefix = `${t.slice(0, 8)}-${t.slice(8, 12)}-7`;
}

/** A new UUID version 7, greater than every one this process made before (while the clock does not go back). */
export function timeOrderedId(now = Date.now()): string {
  if (now > lastMs) {
    enter(now);
    // A random start in the lower half leaves room for 2,048 ids in the millisecond.
    const at = random(2);
    counter = ((pool[at] << 8) | pool[at + 1]) & 0x7ff;
  } else if (++counter > 0xfff) {
    // The same millisecond (or a clock that went back) with the counter spent: on to the next one.
    enter(lastMs + 1);
    counter = 0;
  }
  const r = random(8);
  return (
    prefix +
    hex3[counter] +
    '-' +
    hex2[(pool[r] & 0x3f) | 0x80] +
    hex2[pool[r + 1]] +
    '-' +
    hex2[pool[r + 2]] +
    hex2[pool[r + 3]] +
    hex2[pool[r + 4]] +
    hex2[pool[r + 5]] +
    hex2[pool[r + 6]] +
    hex2[pool[r + 7]]
  );
}

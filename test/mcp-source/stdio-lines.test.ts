// The stdio line reader with its page cache (src/sources/mcp/stdio-lines.ts)
// against the SDK's own ReadBuffer: for any stream of messages, however the
// bytes are chunked, it must yield exactly the messages the SDK would, while
// answering repeated large pages from its cache, with a stand-in (the name and
// the entry's key) for each named tool entry of such a page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { entryKeyOf, isEntryStub, splitId } from '../../src/sources/mcp/page-key.js';
import { CACHE_MIN_BYTES, CachingLineReader, JsonLineReader } from '../../src/sources/mcp/stdio-lines.js';

const counts = (reader: CachingLineReader) => ({ hits: reader.stats.hits, misses: reader.stats.misses });

type Shape = 'sdk' | 'python' | 'id-first' | 'spaced';

/** A response line as different servers write it: the SDK (id last), Python (jsonrpc, id, result), others. */
function line(result: unknown, id: number, shape: Shape): string {
  switch (shape) {
    case 'sdk':
      return serializeMessage({ result, jsonrpc: '2.0', id } as JSONRPCMessage);
    case 'python':
      return `${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`;
    case 'id-first':
      return `${JSON.stringify({ id, jsonrpc: '2.0', result })}\n`;
    case 'spaced':
      return `${JSON.stringify({ result, jsonrpc: '2.0', id }, null, 1).replace(/\n/g, ' ')}\r\n`;
  }
}

/** Pages of tools: some large enough to be cached, some holding nested `"id":` members meant to mislead. */
const pageArb = fc.record({
  tools: fc.array(
    fc.record({
      name: fc.string({ maxLength: 12 }),
      description: fc.oneof(fc.string({ maxLength: 20 }), fc.nat({ max: 3 * CACHE_MIN_BYTES }).map((n) => 'd'.repeat(n))),
      inputSchema: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.nat({ max: 99 }).map((id) => ({ type: 'object', const: { id } }))),
    }),
    { maxLength: 4 },
  ),
  tail: fc.option(fc.nat({ max: 99 }).map((id) => ({ id })), { nil: undefined }),
});

/** A message with each stand-in entry, and the SDK's entry in its place, reduced to the name both must share. */
function standIns(got: JSONRPCMessage[], expected: JSONRPCMessage[]): [unknown[], unknown[]] {
  const toolsOf = (m: JSONRPCMessage) => (m as { result?: { tools?: unknown } }).result?.tools;
  const g: unknown[] = [];
  const e: unknown[] = [];
  got.forEach((m, i) => {
    const tools = toolsOf(m);
    const theirs = expected[i] === undefined ? undefined : toolsOf(expected[i]);
    if (!Array.isArray(tools) || !Array.isArray(theirs) || !tools.some((t) => isEntryStub(t as object))) {
      g.push(m);
      e.push(expected[i]);
      return;
    }
    const name = (t: unknown) => ({ name: (t as { name?: unknown }).name });
    g.push({ ...m, result: { ...(m as { result: object }).result, tools: tools.map((t) => (isEntryStub(t as object) ? name(t) : t)) } });
    e.push({ ...expected[i], result: { ...(expected[i] as { result: object }).result, tools: theirs.map((t, j) => (isEntryStub(tools[j] as object) ? name(t) : t)) } });
  });
  return [g, e];
}

/** The `tools/list` request of this id, as the transport tells the reader it was sent. */
const listRequest = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' }) as JSONRPCMessage;

/** The messages read from `bytes` cut at `cuts`; `asked`: the ids of the `tools/list` requests they answer. */
function feed(reader: { append(b: Buffer): void; readMessage(): JSONRPCMessage | null }, bytes: Buffer, cuts: number[], asked: number[] = []): JSONRPCMessage[] {
  if (reader instanceof CachingLineReader) for (const id of asked) reader.sent(listRequest(id));
  const out: JSONRPCMessage[] = [];
  let from = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (cut <= from) continue;
    reader.append(bytes.subarray(from, cut));
    from = cut;
    for (let m = reader.readMessage(); m !== null; m = reader.readMessage()) out.push(m);
  }
  return out;
}

test('yields what the SDK ReadBuffer yields, for any messages and any chunking (property)', () => {
  fc.assert(
    fc.property(
      fc.array(pageArb, { minLength: 1, maxLength: 3 }),
      fc.array(fc.record({ page: fc.nat(), id: fc.nat({ max: 10_000_000 }), shape: fc.constantFrom<Shape>('sdk', 'python', 'id-first', 'spaced') }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (pages, sends, cutSeeds) => {
        const text = sends.map((s) => line(pages[s.page % pages.length], s.id, s.shape)).join('') + `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n`;
        const bytes = Buffer.from(text);
        const cuts = cutSeeds.map((c) => c % bytes.length);
        const expected = feed(new ReadBuffer({ maxBufferSize: 64 * 2 ** 20 }), bytes, cuts);
        const reader = new CachingLineReader(64 * 2 ** 20);
        const got = feed(reader, bytes, cuts, sends.map((s) => s.id));
        const [g, e] = standIns(got, expected);
        assert.deepStrictEqual(g, e);
        assert.equal(got.length, sends.length + 1);
      },
    ),
    { numRuns: 150 },
  );
});

const toolsIn = (m: JSONRPCMessage) => (m as unknown as { result: { tools: object[] } }).result.tools;

test('a repeated large page is parsed once: later copies come from the cache with their own id, a stand-in for each tool', () => {
  const result = { tools: [{ name: 'big', description: 'x'.repeat(CACHE_MIN_BYTES), inputSchema: { type: 'object' } }], nextCursor: '2' };
  const reader = new CachingLineReader();
  const first = feed(reader, Buffer.from(line(result, 7, 'sdk')), [], [7]);
  const second = feed(reader, Buffer.from(line(result, 12345, 'sdk')), [100, 5000], [12345]);
  assert.deepEqual(counts(reader), { hits: 1, misses: 1 });
  assert.equal((first[0] as { id: number }).id, 7);
  assert.equal((second[0] as { id: number }).id, 12345);
  // The first read hands on the parsed entry, marked with its key; the cache answers with a stand-in of the same key.
  const [parsed] = toolsIn(first[0]);
  const [standIn] = toolsIn(second[0]);
  assert.deepEqual(parsed, result.tools[0]);
  assert.equal(isEntryStub(parsed), false);
  assert.equal(isEntryStub(standIn), true);
  assert.deepEqual(standIn, { name: 'big' });
  assert.ok(entryKeyOf(parsed)?.endsWith('#0'));
  assert.equal(entryKeyOf(standIn), entryKeyOf(parsed));
  assert.equal((second[0] as unknown as { result: { nextCursor: string } }).result.nextCursor, '2');

  // One byte different: parsed again, under another key.
  const changed = { ...result, nextCursor: '3' };
  const third = feed(reader, Buffer.from(line(changed, 8, 'sdk')), [], [8]);
  assert.equal((third[0] as unknown as { result: { nextCursor: string } }).result.nextCursor, '3');
  assert.deepEqual(counts(reader), { hits: 1, misses: 2 });
  assert.notEqual(entryKeyOf(toolsIn(third[0])[0]), entryKeyOf(parsed));

  // After a complete read that saw only the changed page, the old one is forgotten.
  reader.startRead();
  feed(reader, Buffer.from(line(changed, 9, 'sdk')), [], [9]);
  reader.endRead();
  feed(reader, Buffer.from(line(result, 10, 'sdk')), [], [10]);
  assert.deepEqual(counts(reader), { hits: 2, misses: 3 });
  // forget() drops every page.
  reader.forget();
  feed(reader, Buffer.from(line(result, 11, 'sdk')), [], [11]);
  assert.deepEqual(counts(reader), { hits: 2, misses: 4 });
});

test('the cache keeps no parsed entry: once the reader of a page lets it go, its objects are collected', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const tool = (name: string) => ({ name, description: 'x'.repeat(CACHE_MIN_BYTES), inputSchema: { type: 'object', properties: { a: { type: 'string' } } } });
  const reader = new CachingLineReader();
  const refs = (() => {
    reader.startRead();
    const [m] = feed(reader, Buffer.from(line({ tools: [tool('a'), tool('b')] }, 1, 'sdk')), [], [1]);
    reader.endRead();
    return toolsIn(m).map((t) => new WeakRef((t as { inputSchema: object }).inputSchema));
  })();
  // Collected on a later turn (a WeakRef's target is kept to the end of the turn that made it).
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.deepEqual(
    refs.map((r) => r.deref()),
    [undefined, undefined],
  );
  // The page is still answered from the cache.
  reader.startRead();
  const [again] = feed(reader, Buffer.from(line({ tools: [tool('a'), tool('b')] }, 2, 'sdk')), [], [2]);
  reader.endRead();
  assert.deepEqual(counts(reader), { hits: 1, misses: 1 });
  assert.deepEqual(toolsIn(again), [{ name: 'a' }, { name: 'b' }]);
});

test('a page with an entry that is not an object with a string name is not cached: parsed on every read, as sent', () => {
  const page = { tools: [{ name: 'ok', description: 'x'.repeat(CACHE_MIN_BYTES) }, 'text', { name: 7 }, null] };
  const reader = new CachingLineReader();
  feed(reader, Buffer.from(line(page, 1, 'sdk')), [], [1]);
  const [again] = feed(reader, Buffer.from(line(page, 2, 'sdk')), [], [2]);
  assert.deepEqual(toolsIn(again), page.tools);
  assert.equal(isEntryStub(toolsIn(again)[0]), false);
  assert.deepEqual({ ...counts(reader), entries: reader.stats.entries }, { hits: 0, misses: 2, entries: 0 });
});

test('a trailing number that is not the id is never substituted', () => {
  // `n` is the last member and equals the id in the first line: only the id's
  // own place may vary. (The SDK refuses such messages; so must the reader.)
  const big = { tools: [{ name: 'big', description: 'x'.repeat(CACHE_MIN_BYTES) }] };
  const text = (id: number, n: number) => `${JSON.stringify({ jsonrpc: '2.0', id, result: big, n })}\n`;
  const outcome = (reader: { append(b: Buffer): void; readMessage(): JSONRPCMessage | null }, t: string) => {
    try {
      return feed(reader, Buffer.from(t), []);
    } catch (err) {
      return `throws ${(err as Error).name}`;
    }
  };
  const sdk = new ReadBuffer();
  const ours = new CachingLineReader();
  for (const [id, n] of [[5, 5], [5, 6], [6, 5]]) {
    ours.sent(listRequest(id));
    assert.deepStrictEqual(outcome(ours, text(id, n)), outcome(sdk, text(id, n)));
  }
});

test('splitId finds only a top-level id', () => {
  const nested = Buffer.from('{"result":{"tools":[],"x":{"id":5}},"jsonrpc":"2.0"}');
  assert.equal(splitId(nested), undefined);
  const last = splitId(Buffer.from('{"result":{"tools":[{"id":5}]},"jsonrpc":"2.0","id":42}'));
  assert.equal(last?.id, 42);
  const head = splitId(Buffer.from('{"jsonrpc":"2.0","id":3,"result":{"x":{"id":9}}}'));
  assert.equal(head?.id, 3);
  assert.equal(splitId(Buffer.from('{"result":{},"id":"abc"}')), undefined, 'string ids are not substituted');
  assert.equal(splitId(Buffer.from('{"result":{},"jsonrpc":"2.0","id":007}')), undefined, 'not a JSON number');
});

test('the size limit of the SDK reader holds', () => {
  const reader = new CachingLineReader(1000);
  assert.throws(() => reader.append(Buffer.alloc(1001, 0x20)), /maximum size of 1000 bytes/);
});

test('the page cache is capped by bytes: oldest pages go first, a page larger than the cap is never kept', () => {
  const page = (i: number, size = CACHE_MIN_BYTES) => ({ tools: [{ name: `t${i}`, description: 'x'.repeat(size) }], nextCursor: `c${i + 1}` });
  const lineBytes = Buffer.byteLength(line(page(0), 1, 'sdk')) - 1;
  const cap = 3 * lineBytes + 10;
  const reader = new CachingLineReader(64 * 2 ** 20, cap);
  reader.startRead();
  for (let i = 0; i < 10; i++) {
    feed(reader, Buffer.from(line(page(i), i + 1, 'sdk')), [], [i + 1]);
    assert.ok(reader.stats.bytes <= cap, `${reader.stats.bytes} bytes cached after page ${i}, cap ${cap}`);
  }
  assert.equal(reader.stats.entries, 3);
  // The newest three are kept (a hit), the oldest were dropped (parsed again).
  feed(reader, Buffer.from(line(page(9), 50, 'sdk')), [], [50]);
  assert.equal(reader.stats.hits, 1);
  feed(reader, Buffer.from(line(page(0), 51, 'sdk')), [], [51]);
  assert.equal(reader.stats.hits, 1);

  const huge = new CachingLineReader(64 * 2 ** 20, cap);
  feed(huge, Buffer.from(line(page(0, 4 * CACHE_MIN_BYTES), 1, 'sdk')), [], [1]);
  assert.deepEqual({ entries: huge.stats.entries, bytes: huge.stats.bytes }, { entries: 0, bytes: 0 });
});

test('lines that span chunks are joined in one buffer, reused from line to line and let go at the end of a read', () => {
  const reader = new CachingLineReader();
  const pages = Array.from({ length: 20 }, (_, i) => ({ tools: [{ name: `t${i}`, description: `${i % 10}`.repeat(CACHE_MIN_BYTES), inputSchema: { type: 'object' } }], nextCursor: `${i + 1}` }));
  const bytes = Buffer.from(pages.map((p, i) => line(p, i, 'sdk')).join(''));
  const cuts = Array.from({ length: Math.floor(bytes.length / 4096) }, (_, i) => (i + 1) * 4096);
  reader.startRead();
  const got = feed(reader, bytes, cuts, pages.map((_, i) => i));
  assert.deepEqual(got, feed(new ReadBuffer(), bytes, cuts));
  const joinBuffers = reader.joinBuffers;
  assert.ok(joinBuffers >= 1 && joinBuffers <= 2, `${joinBuffers} buffers for 20 lines (one more when a longer line comes)`);
  reader.endRead();
  feed(reader, Buffer.from(line(pages[0], 99, 'sdk')), [4096], [99]);
  assert.equal(reader.joinBuffers, joinBuffers + 1, 'the buffer was let go at the end of the read');
});

test('outside a read of the list, a line over 1 MiB is joined into a buffer of its own, not kept', () => {
  const reader = new JsonLineReader();
  const big = Buffer.from(line({ tools: [{ name: 'big', description: 'b'.repeat(1.5 * 2 ** 20), inputSchema: { type: 'object' } }] }, 1, 'sdk'));
  const cuts = Array.from({ length: Math.floor(big.length / 65536) }, (_, i) => (i + 1) * 65536);
  feed(reader, big, cuts);
  feed(reader, big, cuts);
  assert.equal(reader.joinBuffers, 2);
});

test('only the answer to a tools/list request is cached or answered from the cache', () => {
  const result = { tools: [{ name: 'big', description: 'x'.repeat(CACHE_MIN_BYTES) }] };
  const reader = new CachingLineReader();
  // A tools/call result of the same shape, twice: parsed both times, the server's entries as sent.
  for (const id of [3, 4]) {
    const [m] = feed(reader, Buffer.from(line(result, id, 'sdk')), []);
    assert.deepEqual(toolsIn(m), result.tools);
    assert.equal(isEntryStub(toolsIn(m)[0]), false);
  }
  assert.deepEqual({ ...counts(reader), entries: reader.stats.entries }, { hits: 0, misses: 0, entries: 0 });
  // Asked for as a tools/list page: cached, and the next such answer comes from the cache.
  feed(reader, Buffer.from(line(result, 5, 'sdk')), [], [5]);
  const [hit] = feed(reader, Buffer.from(line(result, 6, 'sdk')), [], [6]);
  assert.equal(isEntryStub(toolsIn(hit)[0]), true);
  // The same bytes again as the answer to something else: the server's entries.
  const [other] = feed(reader, Buffer.from(line(result, 7, 'sdk')), []);
  assert.equal(isEntryStub(toolsIn(other)[0]), false);
  assert.deepEqual(counts(reader), { hits: 1, misses: 1 });
});

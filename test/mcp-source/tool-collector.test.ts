// The tool collector over the stdio reader's page cache
// (src/sources/mcp/tool-filter.ts, stdio-lines.ts): a re-read whose pages
// come back as stand-ins reuses the previous read's tools by their entry
// keys, a changed page is compared by what its entries make, a stand-in the
// previous read did not make is refused (the source then reads again without
// the cache), and the tools hold their schemas as text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CACHE_MIN_BYTES, CachingLineReader } from '../../src/sources/mcp/stdio-lines.js';
import { Redactor } from '../../src/sources/mcp/redact.js';
import { type PreviousRead, StaleEntryError, ToolCollector, type ToolLimits } from '../../src/sources/mcp/tool-filter.js';
import { scrubSecrets } from '../../src/sources/mcp/tool-list-read.js';
import { jsonTextOf } from '../../src/util/json-text.js';

const LIMITS: ToolLimits = { maxDescriptionLength: 2 * CACHE_MIN_BYTES, maxSchemaBytes: 1_000_000, maxSchemaDepth: 20 };
const PAD = 'x'.repeat(CACHE_MIN_BYTES / 2);

const tool = (name: unknown, revision = 1) => ({ name, description: `${String(name)} r${revision} ${PAD}`, inputSchema: { type: 'object', properties: { a: { type: 'string', description: `r${revision}` } } } });

let id = 0;
/** The server's answer to a `tools/list` request the reader was told of. */
function answer(reader: CachingLineReader, entries: unknown[]): void {
  const n = ++id;
  reader.sent({ jsonrpc: '2.0', id: n, method: 'tools/list' } as JSONRPCMessage);
  reader.append(Buffer.from(serializeMessage({ jsonrpc: '2.0', id: n, result: { tools: entries } } as JSONRPCMessage)));
}
/** One read of one page through the reader, into a collector given the previous read. */
function read(reader: CachingLineReader, entries: unknown[], previous?: PreviousRead): ToolCollector {
  const collector = new ToolCollector('srv', LIMITS, previous);
  reader.startRead();
  try {
    answer(reader, entries);
    const message = reader.readMessage() as unknown as { result: { tools: unknown[] } };
    message.result.tools.forEach((e, i) => collector.add(e, i));
  } finally {
    reader.endRead();
  }
  return collector;
}

const after = (c: ToolCollector): PreviousRead => ({ collected: c.collected, skipped: c.skipped });

test('an unchanged page comes back as stand-ins and every tool is the previous read\'s object', () => {
  const reader = new CachingLineReader();
  const first = read(reader, [tool('a'), tool('b'), tool('c')]);
  assert.equal(first.reused.size, 0);
  const second = read(reader, [tool('a'), tool('b'), tool('c')], after(first));
  assert.deepEqual(reader.stats.hits, 1);
  assert.equal(second.reused.size, 3);
  second.tools.forEach((t, i) => assert.equal(t, first.tools[i]));
});

test('a changed page: the entries that make the same tool give back the previous objects, the changed one is new', () => {
  const reader = new CachingLineReader();
  const first = read(reader, [tool('a'), tool('b'), tool('c')]);
  const second = read(reader, [tool('a'), tool('b', 2), tool('c')], after(first));
  assert.equal(reader.stats.hits, 0);
  assert.equal(second.tools[0], first.tools[0]);
  assert.notEqual(second.tools[1], first.tools[1]);
  assert.equal(second.tools[2], first.tools[2]);
  assert.deepEqual([...second.reused].sort(), [0, 2]);
  assert.match(second.tools[1].description ?? '', /^b r2/);
  // The next read of the changed page, now cached, finds every tool by its key.
  const third = read(reader, [tool('a'), tool('b', 2), tool('c')], after(second));
  assert.equal(reader.stats.hits, 1);
  third.tools.forEach((t, i) => assert.equal(t, second.tools[i]));
});

test('a RawTool holds its schemas as text, not as the parsed entry\'s objects', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const reader = new CachingLineReader();
  const [t] = read(reader, [tool('a')]).tools;
  assert.equal(jsonTextOf(t, 'inputSchema'), JSON.stringify(tool('a').inputSchema));
  assert.deepEqual(t.inputSchema, tool('a').inputSchema);
  assert.equal(t.inputSchema, t.inputSchema, 'readers close in time share one parse');
  // ...which the tool does not keep: once no reader holds it, it is collected.
  const parse = new WeakRef(t.inputSchema as object);
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.equal(parse.deref(), undefined);
  assert.deepEqual(t.inputSchema, tool('a').inputSchema);
  assert.equal(JSON.stringify(t), JSON.stringify({ source: 'mcp', toolId: t.toolId, origin: t.origin, description: t.description, inputSchema: tool('a').inputSchema }));
});

test('a stand-in the previous read did not make is refused: the read must parse its pages again', () => {
  const reader = new CachingLineReader();
  const applied = read(reader, [tool('a'), tool('b')]);
  // A read that caches a changed page but is never applied (it failed later on).
  read(reader, [tool('a'), tool('b', 2)], after(applied));
  assert.throws(() => read(reader, [tool('a'), tool('b', 2)], after(applied)), StaleEntryError);
  // Without the cache, the same read is made from the parsed page.
  reader.forget();
  const again = read(reader, [tool('a'), tool('b', 2)], after(applied));
  assert.equal(again.tools[0], applied.tools[0]);
  assert.match(again.tools[1].description ?? '', /^b r2/);
});

test('skipped entries are skipped again from their stand-ins, with the same warnings', () => {
  const reader = new CachingLineReader();
  const page = [tool('ok'), tool('bad name!'), tool('ok', 2), tool('n'.repeat(200))];
  const first = read(reader, page);
  assert.deepEqual(first.names, ['ok']);
  assert.equal(first.issues.length, 3);
  const second = read(reader, page, after(first));
  assert.equal(reader.stats.hits, 1);
  assert.deepEqual(second.names, ['ok']);
  assert.equal(second.tools[0], first.tools[0]);
  assert.deepEqual(second.issues, first.issues);
});

test('a read stopped at the maxTools bound (before the entry past it) places every stand-in of the next read that stops there too', () => {
  const reader = new CachingLineReader();
  const collectUpTo = (max: number, previous?: PreviousRead) => {
    const c = new ToolCollector('srv', LIMITS, previous);
    reader.startRead();
    answer(reader, [tool('a'), tool('b'), tool('c')]);
    const entries = (reader.readMessage() as unknown as { result: { tools: unknown[] } }).result.tools;
    for (const [i, e] of entries.entries()) {
      if (c.size >= max) break; // as readToolPages does
      c.add(e, i);
    }
    reader.endRead();
    return c;
  };
  const first = collectUpTo(1);
  assert.deepEqual(first.names, ['a']);
  const second = collectUpTo(1, after(first));
  assert.equal(reader.stats.hits, 1);
  assert.deepEqual(second.names, ['a']);
  assert.equal(second.tools[0], first.tools[0]);
  // A larger bound reaches entries no read made: refused, and made from the parsed page once the cache is dropped.
  assert.throws(() => collectUpTo(3, after(second)), StaleEntryError);
  reader.forget();
  assert.deepEqual(collectUpTo(3, after(second)).names, ['a', 'b', 'c']);
});

test('a duplicate on an unchanged page is collected once the first of its name is gone from a changed one', () => {
  const reader = new CachingLineReader();
  const pageOne = (withX: boolean) => [tool('a'), ...(withX ? [tool('x')] : [])];
  const pageTwo = [tool('b'), tool('x', 2)];
  const readBoth = (withX: boolean, previous?: PreviousRead) => {
    const collector = new ToolCollector('srv', LIMITS, previous);
    reader.startRead();
    let i = 0;
    for (const entries of [pageOne(withX), pageTwo]) {
      answer(reader, entries);
      for (const e of (reader.readMessage() as unknown as { result: { tools: unknown[] } }).result.tools) collector.add(e, i++);
    }
    reader.endRead();
    return collector;
  };
  const first = readBoth(true);
  assert.deepEqual(first.names, ['a', 'x', 'b']);
  assert.match(first.issues.join('\n'), /duplicate name/);
  // Page one loses its x; page two comes back from the cache, its x now the
  // first of the name: a stand-in the last read did not make, so (as the
  // source does) the read is made again without the cache.
  assert.throws(() => readBoth(false, after(first)), StaleEntryError);
  reader.forget();
  const second = readBoth(false, after(first));
  assert.deepEqual(second.names, ['a', 'b', 'x']);
  assert.match(second.tools[2].description ?? '', /^x r2/);
});

test('a tool past the bound on a cached page is scrubbed of the source\'s secrets when a later read serves it', () => {
  const SECRET = 'SUPERSECRET123456';
  const redactor = new Redactor();
  redactor.add([SECRET]);
  const leaky = { ...tool('b'), description: `b ${'x'.repeat(CACHE_MIN_BYTES)}`, inputSchema: { type: 'object', properties: { t: { type: 'string', default: SECRET } } } };
  const reader = new CachingLineReader();
  /** One read of the pages (each its own line), stopped at `max` tools as readToolPages does, scrubbed as the source does. */
  const readPages = (pages: unknown[][], max: number, previous?: PreviousRead) => {
    const c = new ToolCollector('srv', LIMITS, previous);
    reader.startRead();
    try {
      let i = 0;
      outer: for (const entries of pages) {
        answer(reader, entries);
        for (const e of (reader.readMessage() as unknown as { result: { tools: unknown[] } }).result.tools) {
          if (c.size >= max) break outer;
          c.add(e, i++);
        }
      }
    } finally {
      reader.endRead();
    }
    scrubSecrets(redactor, c);
    return c;
  };
  const first = readPages([[tool('a')], [leaky, tool('d')]], 1);
  assert.deepEqual(first.names, ['a']);
  // The second page comes from the cache; its first tool is now within the bound, and no read made it.
  assert.throws(() => readPages([[tool('a')], [leaky, tool('d')]], 2, after(first)), StaleEntryError);
  reader.forget();
  const second = readPages([[tool('a')], [leaky, tool('d')]], 2, after(first));
  assert.deepEqual(second.names, ['a', 'b']);
  assert.ok(!JSON.stringify(second.tools).includes(SECRET), 'the secret is scrubbed');
  // The next read takes it from the cache as the scrubbed tool it served.
  const third = readPages([[tool('a')], [leaky, tool('d')]], 2, after(second));
  assert.ok(reader.stats.hits >= 1);
  assert.equal(third.tools[1], second.tools[1]);
  assert.ok(!JSON.stringify(third.tools).includes(SECRET));
});

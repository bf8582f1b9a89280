// Property tests of the catalog browser's logic that runs the same in Node as
// in the page (docs/ui.md): the SSE parser that reads /events/stream and /mcp
// answers, whatever the chunking of the bytes; and the comparison of the
// standard and compact schemas that marks what the compact view loosened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { readSse, type SseMessage } from '../../ui/src/sse.js';
import { loosenings } from '../../ui/src/schema-diff.js';

/** A field value as a server writes it: no line break, no NUL. */
const fieldText = fc.string({ unit: fc.constantFrom('a', 'é', '{', '"', ':', ' ', '0', '😀', '\t', 'x') });

const message = fc.record({
  id: fc.option(fc.integer({ min: 0, max: 1e9 }).map(String), { nil: undefined }),
  event: fc.constantFrom('message', 'tool.session.opened', 'agent.toolReturned'),
  data: fc.array(fieldText, { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n')),
});

function encode(messages: SseMessage[], newline: string, comments: boolean): string {
  return messages
    .map((m) => {
      const lines = [...(comments ? [': keep-alive'] : []), ...(m.id !== undefined ? [`id: ${m.id}`] : []), `event: ${m.event}`, ...m.data.split('\n').map((d) => `data: ${d}`)];
      return lines.join(newline) + newline + newline;
    })
    .join('');
}

/** The bytes cut at arbitrary places, inside multi-byte characters and between \r and \n included. */
function chunked(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const p of [...points, bytes.length]) {
    if (p > start) parts.push(bytes.slice(start, p));
    start = Math.max(start, p);
  }
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

test('readSse gives back every event as written, however the stream is cut', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(message, { maxLength: 8 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean(), fc.array(fc.nat(), { maxLength: 20 }), async (messages, newline, comments, cuts) => {
      const got: SseMessage[] = [];
      await readSse(chunked(new TextEncoder().encode(encode(messages, newline, comments)), cuts), (m) => void got.push(m));
      // An id carries over to later events until another is given (WHATWG "last event ID").
      let last: string | undefined;
      const want = messages.map((m) => {
        if (m.id !== undefined) last = m.id;
        return { id: last, event: m.event, data: m.data };
      });
      assert.deepEqual(got, want);
    }),
    { numRuns: 300 },
  );
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const leafSchema: fc.Arbitrary<Record<string, Json>> = fc.record(
  {
    type: fc.constantFrom('string', 'integer', 'boolean', 'number'),
    description: fc.string({ maxLength: 20 }),
    minimum: fc.integer(),
    maxLength: fc.nat(500),
    enum: fc.array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 4 }),
    examples: fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }),
  },
  { requiredKeys: ['type'] },
);

const schema: fc.Arbitrary<Record<string, Json>> = fc.letrec<{ node: Record<string, Json> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leafSchema,
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('node'), { maxKeys: 4 }),
        required: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 3 }),
        additionalProperties: fc.boolean(),
      },
      { requiredKeys: ['type', 'properties'] },
    ),
    fc.record({ type: fc.constant('array'), items: tie('node'), maxItems: fc.nat(10) }, { requiredKeys: ['type', 'items'] }),
    fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
  ),
})).node;

/** Every (pointer, keyword) place of a schema where a keyword could be dropped, as loosenings() names places. */
function places(s: Json, pointer = ''): { pointer: string; keyword: string; holder: Record<string, Json> }[] {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) return [];
  const out: { pointer: string; keyword: string; holder: Record<string, Json> }[] = [];
  const esc = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');
  for (const [k, v] of Object.entries(s)) {
    out.push({ pointer, keyword: k, holder: s });
    if (k === 'properties' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      for (const [name, sub] of Object.entries(v)) {
        out.push({ pointer: `${pointer}/properties`, keyword: name, holder: v });
        out.push(...places(sub, `${pointer}/properties/${esc(name)}`));
      }
    } else if (k === 'items') out.push(...places(v, `${pointer}/items`));
    else if (k === 'anyOf' && Array.isArray(v)) v.forEach((sub, i) => out.push(...places(sub, `${pointer}/anyOf/${i}`)));
  }
  return out;
}

test('loosenings: none between a schema and itself; a keyword dropped anywhere is named at its place', () => {
  fc.assert(
    fc.property(schema, fc.nat(), (standard, pick) => {
      assert.deepEqual(loosenings(standard, structuredClone(standard)), []);
      const compact = structuredClone(standard);
      const all = places(compact);
      const target = all[pick % all.length];
      delete target.holder[target.keyword];
      const found = loosenings(standard, compact);
      assert.deepEqual(found, [{ pointer: target.pointer, keyword: target.keyword, kind: 'removed' }]);
    }),
    { numRuns: 500 },
  );
});

// The one SSE writer (src/http/sse.ts; docs/architecture.md "Protocol pieces
// toolhost owns") against the event stream format it owns: the examples of
// the format's definition (the WHATWG HTML standard, "Server-sent events",
// quoted below) written back byte for byte where they are in the writer's
// form, and read the same by a conforming parser (eventsource-parser, the
// one the MCP SDK's client reads streams with) where they are not; any data,
// line breaks included, read back as written; field values that would break
// the framing refused; and an SseStream on a real response framed whole or
// chunked as asked.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { test } from 'node:test';
import fc from 'fast-check';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { sseComment, sseFrame, SseStream, type SseEvent } from '../../src/http/sse.js';

/** The events and comments a conforming reader gets from a stream's text. */
function read(text: string): { events: EventSourceMessage[]; comments: string[] } {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  parser.feed(text);
  return { events, comments };
}

const written = (events: SseEvent[]) => events.map(sseFrame).join('');

// The format's examples, each with the events the writer is given for it.
const EXAMPLES: { name: string; text: string; events: SseEvent[]; exact: boolean }[] = [
  {
    name: 'three messages, the second of two lines',
    text: 'data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\ndata: This is the third message.\n\n',
    events: [{ data: 'This is the first message.' }, { data: 'This is the second message, it\nhas two lines.' }, { data: 'This is the third message.' }],
    exact: true,
  },
  {
    name: 'typed events',
    text: 'event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n',
    events: [
      { event: 'add', data: '73857293' },
      { event: 'remove', data: '2153' },
      { event: 'add', data: '113411' },
    ],
    exact: true,
  },
  { name: 'one event of three data lines', text: 'data: YHOO\ndata: +2\ndata: 10\n\n', events: [{ data: 'YHOO\n+2\n10' }], exact: true },
  {
    name: 'ids, a missing space after the colon, a value that starts with a space',
    text: 'data: first event\nid: 1\n\ndata:second event\n\ndata:  third event\n\n',
    events: [{ id: 1, data: 'first event' }, { data: 'second event' }, { data: ' third event' }],
    exact: false,
  },
  { name: 'empty data, and data of one line break', text: 'data\n\ndata\ndata\n\n', events: [{ data: '' }, { data: '\n' }], exact: false },
  { name: 'with or without the space', text: 'data:test\n\ndata: test\n\n', events: [{ data: 'test' }, { data: 'test' }], exact: false },
];

test("the format's examples: written byte for byte in the writer's form, read the same otherwise", () => {
  for (const example of EXAMPLES) {
    const ours = written(example.events);
    if (example.exact) assert.equal(ours, example.text, example.name);
    assert.deepEqual(read(ours).events, read(example.text).events, example.name);
  }
  assert.equal(sseComment('test stream'), ': test stream\n\n', 'the example comment');
  assert.deepEqual(read(`${sseComment('test stream')}${sseFrame({ data: 'x' })}`), { events: [{ data: 'x', event: undefined, id: undefined }], comments: ['test stream'] });
});

test('any data, id and event type is read back as written (line breaks in data as the reader joins them)', () => {
  const field = fc.string({ unit: 'binary', maxLength: 20 }).filter((s) => !/[\r\n]/.test(s) && !s.startsWith(' '));
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.option(field.filter((s) => s !== '' && !s.includes('\0'))), fc.option(field.filter((s) => s !== '')), (data, id, event) => {
      const e: SseEvent = { data, ...(id !== null ? { id } : {}), ...(event !== null ? { event } : {}) };
      const [got] = read(sseFrame(e)).events;
      assert.deepEqual(got, { data: data.replace(/\r\n|\r/g, '\n'), id: id ?? undefined, event: event ?? undefined });
    }),
    { numRuns: 500 },
  );
});

test('an id, event type or comment holding a line break is refused, not written into the stream', () => {
  for (const bad of ['a\nb', 'a\r', '\r\nb']) {
    assert.throws(() => sseFrame({ id: bad, data: 'x' }), /line break/);
    assert.throws(() => sseFrame({ event: bad, data: 'x' }), /line break/);
    assert.throws(() => sseComment(bad), /line break/);
  }
});

/** One GET on a fresh socket, the response as it arrived, up to the server's end of it. */
function rawGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  });
}

/** The body of a chunked response. */
function dechunked(response: string): string {
  let rest = response.slice(response.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, line), 16);
    if (!(size > 0)) return body;
    body += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

test('an SseStream on a real response: headers with the first write; whole with Content-Length, or chunked, as asked', async () => {
  const plan: ((s: SseStream) => void)[] = [
    (s) => s.end(sseFrame({ event: 'message', data: '{"a":1}' }), true),
    (s) => {
      s.write(sseComment('hello'));
      s.end(sseFrame({ data: 'last' }), true);
    },
    (s) => s.end(sseFrame({ data: 'last' })),
  ];
  let next = 0;
  const server = createServer((_req, res) => plan[next++](new SseStream(res, { headers: { 'content-type': 'text/event-stream' }, keepAliveMs: 0, keepAliveComment: 'k' })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    const whole = await rawGet(port);
    assert.match(whole, /^HTTP\/1\.1 200 OK\r\ncontent-type: text\/event-stream\r\ncontent-length: 30\r\n/);
    assert.ok(whole.endsWith('\r\n\r\nevent: message\ndata: {"a":1}\n\n'), whole);
    const afterComment = await rawGet(port);
    assert.match(afterComment, /\r\nTransfer-Encoding: chunked\r\n/, 'something went out already: the end is chunked');
    assert.deepEqual(read(dechunked(afterComment)), { events: [{ data: 'last', event: undefined, id: undefined }], comments: ['hello'] });
    assert.match(await rawGet(port), /\r\nTransfer-Encoding: chunked\r\n\r\n[0-9a-f]+\r\ndata: last\n\n\r\n0\r\n\r\n$/);
  } finally {
    server.close();
  }
});

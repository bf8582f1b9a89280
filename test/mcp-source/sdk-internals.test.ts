// The MCP SDK internals the stdio page cache stands on
// (src/sources/mcp/stdio-lines.ts): StdioClientTransport keeps a ReadBuffer in
// its `_readBuffer` field, and reads every line of the child's stdout through
// that field's append / readMessage, at the time it reads (it never keeps the
// original reader elsewhere). None of it is public API. When an SDK upgrade
// moves it, the source runs on without the cache (and says so once at warn);
// these tests fail instead, saying what moved.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { attachLineCache, hasReplaceableReader } from '../../src/sources/mcp/stdio-lines.js';
import { FIXTURE, REPO_ROOT, WARN, captureLogger } from './helpers.js';

const SDK_VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as { version: string }).version;
const SDK = `@modelcontextprotocol/sdk ${SDK_VERSION}`;
const CACHE = 'the stdio page cache (src/sources/mcp/stdio-lines.ts, attachLineCache) cannot work with it';

function fixtureTransport(args: string[] = []): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', FIXTURE, '--transport', 'stdio', ...args], cwd: REPO_ROOT, stderr: 'pipe' });
}

test('StdioClientTransport keeps a ReadBuffer with append / readMessage / clear in _readBuffer', () => {
  const transport = fixtureTransport();
  const fields = transport as unknown as Record<string, unknown>;
  assert.ok('_readBuffer' in fields, `${SDK}: StdioClientTransport has no _readBuffer field any more; ${CACHE}`);
  const reader = fields._readBuffer;
  assert.ok(reader instanceof ReadBuffer, `${SDK}: StdioClientTransport._readBuffer is not the SDK's ReadBuffer any more (it is ${Object.prototype.toString.call(reader)}, ${(reader as object | null)?.constructor?.name}); ${CACHE}`);
  for (const method of ['append', 'readMessage', 'clear'] as const) {
    assert.equal(typeof reader[method], 'function', `${SDK}: ReadBuffer.${method}() is gone; ${CACHE}`);
  }
  assert.equal(typeof STDIO_DEFAULT_MAX_BUFFER_SIZE, 'number', `${SDK}: STDIO_DEFAULT_MAX_BUFFER_SIZE (the line size limit the cache repeats) is gone`);
  assert.ok(hasReplaceableReader(transport), `${SDK}: stdio-lines.ts does not recognize the transport's reader`);
  assert.ok(attachLineCache(transport, captureLogger().logger) !== undefined, `${SDK}: attachLineCache could not attach`);
});

test('the transport reads the lines of a real server through the reader put in _readBuffer', async () => {
  // 800 tools in pages of 400: each page over the size the cache keeps.
  const transport = fixtureTransport(['--tools', '794', '--page-size', '400']);
  const reader = attachLineCache(transport, captureLogger().logger);
  assert.ok(reader, `${SDK}: attachLineCache could not attach`);
  let appended = 0;
  const append = reader.append.bind(reader);
  reader.append = (chunk: Buffer) => {
    appended++;
    append(chunk);
  };
  let cleared = 0;
  const clear = reader.clear.bind(reader);
  reader.clear = () => {
    cleared++;
    clear();
  };
  const client = new Client({ name: 'sdk-internals-test', version: '0' });
  try {
    await client.connect(transport);
    assert.ok(appended > 0, `${SDK}: StdioClientTransport no longer hands the child's stdout to _readBuffer.append(); ${CACHE}`);
    const readAll = async () => {
      let pages = 0;
      let cursor: string | undefined;
      do {
        const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema);
        pages++;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return pages;
    };
    reader.startRead();
    const pages = await readAll();
    reader.endRead();
    assert.equal(pages, 2);
    assert.equal(reader.stats.misses, pages, `${SDK}: the pages did not come through _readBuffer.readMessage(); ${CACHE}`);
    reader.startRead();
    await readAll();
    reader.endRead();
    assert.equal(reader.stats.hits, pages, `${SDK}: a re-read did not come through _readBuffer.readMessage(); ${CACHE}`);
  } finally {
    await client.close();
  }
  assert.ok(cleared > 0, `${SDK}: StdioClientTransport.close() no longer calls _readBuffer.clear(); the cache's buffered bytes would outlive the connection`);
});

test('without a reader to replace, the cache is left out and that is said once, at warn', () => {
  const log = captureLogger();
  const moved = { _lineReader: new ReadBuffer() } as unknown as StdioClientTransport;
  assert.equal(attachLineCache(moved, log.logger), undefined);
  assert.equal(attachLineCache(moved, log.logger), undefined);
  const warnings = log.entries().filter((e) => e.level === WARN);
  assert.equal(warnings.length, 1, 'once per process');
  assert.equal(warnings[0].event, 'page_cache_unavailable');
  assert.match(String(warnings[0].msg), /_readBuffer/);
});

// The stdio transport's line reader, with a cache of large `tools/list`
// pages, so that `list_changed` is served soon after it is sent. A re-read after
// `list_changed` asks for every page again, and most come back byte for byte
// the same as the last read, and parsing tens of megabytes of unchanged pages would cost
// most of the refresh (docs/benchmarks.md has the figures). A page whose bytes, apart from
// the JSON-RPC id, equal a page read before is answered without parsing it:
// each of its tool entries is a stand-in holding only the tool's name and the
// entry's key (the page's hash and the entry's place, page-key.ts), which the
// MCP source's tool collector recognizes as the tool it made from that key.
// Only answers to the `tools/list` requests the transport sent (`sent`) are
// cached or answered so: another answer of the same shape (a tool's result)
// is the server's own, always.
//
// The cache holds no parsed entry: a whole list's schemas as objects cost
// the heap several times their bytes, and every full garbage collection
// marks them again (docs/benchmarks.md, "Schemas held as text"). A page that
// changed is parsed and handed on whole; the collector compares what it
// makes of each entry with what it made before.
//
// The framing is toolhost's own (`JsonLineReader`), read by its own stdio
// transport (stdio-client.ts): the SDK's transport has no hook for a reader.
// It is the MCP stdio framing (newline-delimited JSON, `\r\n` accepted), a
// bound on the bytes buffered, and validation (JSONRPCMessageSchema) of every
// line parsed, property-tested against the SDK's own ReadBuffer
// (test/mcp-source/stdio-lines.test.ts).
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../../util/json.js';
import { entryStub, markEntry, splitId } from './page-key.js';

/** Bytes buffered at most while a line is incomplete (a larger line fails the connection). */
export const MAX_BUFFERED_BYTES = 10 * 1024 * 1024;
/** Outside a read of the list, the line-joining buffer a reader keeps at most (1 MiB). */
const JOIN_BUFFER_KEPT_BYTES = 2 ** 20;
/** Lines shorter than this are parsed every time: hashing would not pay. */
export const CACHE_MIN_BYTES = 32 * 1024;
/** Pages kept at most. */
const MAX_ENTRIES = 1024;
/**
 * Page bytes answered from the cache at most, per connection (64 MiB; what
 * the cache holds of them is a stand-in per tool). Past it the oldest pages go first; a page
 * larger than the whole cap is never kept. A server whose list is larger
 * still works, it only parses more of it again on a re-read.
 */
export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;
/** The page's tool entries, when the message is a `tools/list` page. */
function toolsOf(message: JSONRPCMessage): unknown[] | undefined {
  const result = (message as { result?: { tools?: unknown } }).result;
  return typeof result === 'object' && result !== null && Array.isArray(result.tools) ? result.tools : undefined;
}

/** Counts, for the source's tests and logs. */
export interface LineCacheStats {
  hits: number;
  misses: number;
  /** Pages held now, and their size in bytes. */
  entries: number;
  bytes: number;
}

interface CachedPage {
  /** The page as answered again, but for its tools: the parsed message with an empty list. */
  message: JSONRPCMessage;
  /** Its entries' names, in order: each is answered as a stand-in, made on the hit. */
  names: string[];
  bytes: number;
}

/** Newline-delimited JSON-RPC messages out of a byte stream, however it is chunked. */
export class JsonLineReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes of `chunks` already searched for a newline. */
  private scanned = 0;

  constructor(protected readonly maxBufferSize = MAX_BUFFERED_BYTES) {}

  /** Throws (and drops what it holds) when the bytes buffered would pass the bound. */
  append(chunk: Buffer): void {
    if (this.buffered + chunk.length > this.maxBufferSize) {
      this.clear();
      throw new Error(`stdio line buffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** The next complete message, or null; throws for a line that is no JSON-RPC message (the line is consumed). The line's bytes are not kept. */
  readMessage(): JSONRPCMessage | null {
    const line = this.nextLine();
    return line === undefined ? null : this.parse(line);
  }

  /** Told of each message sent to the server (the page cache watches for `tools/list` requests). */
  sent(_message: JSONRPCMessage): void {}

  clear(): void {
    this.releaseJoinBuffer();
    this.chunks = [];
    this.buffered = 0;
    this.scanned = 0;
  }

  protected parse(line: Buffer): JSONRPCMessage {
    return JSONRPCMessageSchema.parse(JSON.parse(line.toString('utf8')));
  }

  /**
   * A line that spans chunks is joined into this one buffer, reused from
   * line to line (a line is parsed or hashed before the next is read, and
   * never kept). A fresh buffer per line was 28 MB of short-lived buffers
   * per re-read of a 28 MB list, and a refresh's time to served is mostly
   * the garbage collector's (docs/benchmarks.md, "list_changed: what the
   * garbage collector counts").
   */
  private joinBuffer = Buffer.alloc(0);
  /** Buffers allocated to join lines, for tests. */
  joinBuffers = 0;
  /** The largest join buffer kept between lines; a longer line is joined into one of its own. A read of the list keeps any size (`CachingLineReader`). */
  protected joinBufferKept = JOIN_BUFFER_KEPT_BYTES;

  private joined(parts: Buffer[], length: number): Buffer {
    if (length > this.joinBufferKept) {
      this.joinBuffers++;
      return Buffer.concat(parts, length);
    }
    if (this.joinBuffer.length < length) {
      this.joinBuffer = Buffer.allocUnsafe(Math.max(length, Math.min(2 * this.joinBuffer.length, this.joinBufferKept)));
      this.joinBuffers++;
    }
    let at = 0;
    for (const part of parts) at += part.copy(this.joinBuffer, at);
    return this.joinBuffer.subarray(0, length);
  }

  /** Lets the join buffer go (the end of a read: it may be large, and the next read is far off). */
  protected releaseJoinBuffer(): void {
    this.joinBuffer = Buffer.alloc(0);
  }

  /** The next complete line without its newline (and `\r`), or undefined. */
  private nextLine(): Buffer | undefined {
    let offset = 0;
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      const from = Math.max(0, this.scanned - offset);
      const at = from < chunk.length ? chunk.indexOf(NEWLINE, from) : -1;
      if (at < 0) {
        offset += chunk.length;
        continue;
      }
      const head = this.chunks.slice(0, c);
      head.push(chunk.subarray(0, at));
      const rest = chunk.subarray(at + 1);
      this.chunks = rest.length > 0 ? [rest, ...this.chunks.slice(c + 1)] : this.chunks.slice(c + 1);
      const lineLength = offset + at;
      this.buffered -= lineLength + 1;
      this.scanned = 0;
      let line = head.length === 1 ? head[0] : this.joined(head, lineLength);
      if (line[line.length - 1] === CR) line = line.subarray(0, -1);
      return line;
    }
    this.scanned = offset;
    return undefined;
  }
}

/** The line reader with the page cache. */
export class CachingLineReader extends JsonLineReader {
  readonly stats: LineCacheStats = { hits: 0, misses: 0, entries: 0, bytes: 0 };
  private readonly pages = new Map<string, CachedPage>();
  /** Pages hit or added since `startRead`. */
  private used = new Set<string>();
  /** Ids of the `tools/list` requests sent and not answered yet: only their answers are cached or answered from the cache. */
  private readonly listIds = new Set<number>();

  constructor(
    maxBufferSize = MAX_BUFFERED_BYTES,
    private readonly maxCacheBytes = DEFAULT_CACHE_MAX_BYTES,
  ) {
    super(maxBufferSize);
  }

  override sent(message: JSONRPCMessage): void {
    const m = message as { method?: unknown; id?: unknown };
    if (m.method === 'tools/list' && typeof m.id === 'number') this.listIds.add(m.id);
  }

  protected override parse(line: Buffer): JSONRPCMessage {
    let split = line.length >= CACHE_MIN_BYTES ? splitId(line) : undefined;
    // Only the answer to a `tools/list` request holds tool entries to stand in for.
    if (split !== undefined && !this.listIds.delete(split.id)) split = undefined;
    if (split !== undefined) {
      const known = this.pages.get(split.key);
      if (known !== undefined) {
        this.stats.hits++;
        this.used.add(split.key);
        const { message, names } = known;
        const tools = names.map((name, i) => entryStub(name, `${split.key}#${i}`));
        return { ...message, id: split.id, result: { ...(message as { result: object }).result, tools } } as JSONRPCMessage;
      }
    }
    const message = super.parse(line);
    const tools = split !== undefined ? toolsOf(message) : undefined;
    if (split !== undefined && tools !== undefined && (message as { id?: unknown }).id === split.id) {
      this.stats.misses++;
      // Only a page whose every entry has a name can be answered with stand-ins;
      // another (a server's junk) is parsed on every read, as without the cache.
      const names: string[] = [];
      for (const entry of tools) {
        if (!isPlainObject(entry) || typeof entry.name !== 'string') return message;
        names.push(entry.name);
      }
      tools.forEach((entry, i) => markEntry(entry as object, `${split.key}#${i}`));
      if (line.length <= this.maxCacheBytes) {
        this.used.add(split.key);
        const result = (message as { result: Record<string, unknown> }).result;
        this.add(split.key, { message: { ...message, result: { ...result, tools: [] } } as JSONRPCMessage, names, bytes: line.length });
      }
    }
    return message;
  }

  private add(key: string, page: CachedPage): void {
    this.pages.set(key, page);
    this.stats.bytes += page.bytes;
    // Oldest first: within one read the earliest pages, across reads those of older reads.
    for (const [oldest, old] of this.pages) {
      if (this.pages.size <= MAX_ENTRIES && this.stats.bytes <= this.maxCacheBytes) break;
      this.drop(oldest, old);
    }
    this.stats.entries = this.pages.size;
  }

  private drop(key: string, page: CachedPage): void {
    this.pages.delete(key);
    this.stats.bytes -= page.bytes;
    this.stats.entries = this.pages.size;
  }

  /** Drops every page: the next read parses every page again (the collector met a stand-in it cannot place). */
  forget(): void {
    for (const [key, page] of this.pages) this.drop(key, page);
  }

  /** A read of the whole list begins. */
  startRead(): void {
    this.used = new Set();
    this.joinBufferKept = this.maxBufferSize;
  }

  /**
   * A read of the list ended, however it ended (complete, stopped early,
   * failed): pages it did not get are dropped. The cache never holds more
   * than one read's pages, so a server that changes its pages on every read
   * cannot make it grow.
   */
  endRead(): void {
    for (const [key, page] of this.pages) if (!this.used.has(key)) this.drop(key, page);
    this.listIds.clear();
    this.joinBufferKept = JOIN_BUFFER_KEPT_BYTES;
    this.releaseJoinBuffer();
  }
}

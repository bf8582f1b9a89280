// A response body serialized once, with its strong ETag and its compressed
// forms made at most once: compression is the costliest part of a list
// answer, so it is paid per snapshot, not per request.
//
// Small bodies compress synchronously on first use (cheaper than a hop to the
// thread pool). Large ones (list bodies of big catalogs) compress on libuv's
// thread pool, so the event loop keeps answering while a list of tens of
// megabytes is gzipped; requests for that encoding wait for the one compression in flight.
// List bodies may also be lazy: their ETag is known up front (derived from the
// entries' ETags) and their bytes are assembled on first use. They may be
// made of parts (runs of a previous list's bytes and the entries that
// changed): written to the socket and compressed part by part, they are
// joined into one buffer only when a caller needs one (`bytes`). zlib's
// gzip and brotli streams give the same bytes whether the input comes as
// one buffer or in parts (test/catalog/list-body.test.ts holds them equal).
import { createHash } from 'node:crypto';
import {
  brotliCompress,
  brotliCompressSync,
  constants as zlibConstants,
  createBrotliCompress,
  createGzip,
  gzip,
  gzipSync,
  type BrotliOptions,
  type ZlibOptions,
} from 'node:zlib';

export type Encoding = 'gzip' | 'br';

/** Bodies at least this large are compressed on the thread pool rather than on the event loop. */
export const ASYNC_COMPRESS_MIN_BYTES = 256 * 1024;

/**
 * Bodies at least this large get cheaper compression. They are the list
 * bodies of big catalogs, which change whenever any of their tools does and
 * are then compressed again: for 28 MB of JSON on the benchmark machine,
 * gzip level 6 and brotli quality 5 take 0.9 s and 1.5 s, gzip level 1 and
 * brotli quality 3 take 0.25 s and 0.46 s, for outputs about 20 % larger.
 */
export const LARGE_BODY_BYTES = 1024 * 1024;

/**
 * zlib's output chunk for large bodies: with the default 16 KB, compressing
 * a 30 MB list takes hundreds of round trips between the thread pool and the
 * event loop, each a new buffer. The chunk size does not change the bytes.
 */
const LARGE_CHUNK_BYTES = 1024 * 1024;

const gzipOptions = (size: number): ZlibOptions => (size >= LARGE_BODY_BYTES ? { level: 1, chunkSize: LARGE_CHUNK_BYTES } : { level: 6 });
const brotliOptions = (size: number): BrotliOptions => ({
  ...(size >= LARGE_BODY_BYTES ? { chunkSize: LARGE_CHUNK_BYTES } : {}),
  params: { [zlibConstants.BROTLI_PARAM_QUALITY]: size >= LARGE_BODY_BYTES ? 3 : 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: size },
});

/**
 * zlib hands back a slice of its 16 KB output chunk: kept as is, a 300-byte
 * gzip of a small descriptor would hold 16 KB. Keep an exact copy instead.
 */
function shrinkToFit(out: Buffer): Buffer {
  return out.buffer.byteLength > out.length + 4096 ? Buffer.from(out) : out;
}

/** The strong ETag of some bytes: 192 bits of their SHA-256, base64url. */
export function etagOf(bytes: Buffer | string): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
}

/** Compresses `parts` as one stream, on the thread pool: the same bytes as compressing their join. */
function compressParts(parts: readonly Buffer[], encoding: Encoding, size: number, done: (err: Error | null, result: Buffer) => void): void {
  const z = encoding === 'gzip' ? createGzip(gzipOptions(size)) : createBrotliCompress(brotliOptions(size));
  const out: Buffer[] = [];
  z.on('data', (chunk: Buffer) => out.push(chunk));
  z.once('error', (err) => done(err, Buffer.alloc(0)));
  z.once('end', () => done(null, Buffer.concat(out)));
  for (const part of parts) z.write(part);
  z.end();
}

function joined(parts: readonly Buffer[], size: number): Buffer {
  return parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
}

export class Body {
  private make?: () => Buffer | readonly Buffer[];
  private madeBytes?: Buffer;
  /** The bytes as parts, until they are joined. */
  private madeParts?: readonly Buffer[];
  /** Whether any caller asked for the bytes (what a successor snapshot should prepare). */
  private asked = false;
  private knownEtag?: string;
  private gzipTag?: string;
  private brTag?: string;
  private gzip?: Buffer;
  private br?: Buffer;
  private pending?: { gzip?: Promise<Buffer>; br?: Promise<Buffer> };

  private readonly byteSize: number;

  /**
   * `bytes`, or a function making them (or their parts, in order) on first
   * use; then `etag` and `size` are required: a lazy body must not have to
   * be built to be revalidated. `onJoin` is told the one buffer parts were
   * joined into, if they ever are.
   */
  constructor(
    bytes: Buffer | (() => Buffer | readonly Buffer[]),
    etag?: string,
    size?: number,
    private readonly onJoin?: (joined: Buffer) => void,
  ) {
    if (typeof bytes === 'function') {
      if (etag === undefined || size === undefined) throw new Error('a lazy body needs its ETag and size');
      this.make = bytes;
      this.byteSize = size;
    } else {
      this.madeBytes = bytes;
      this.byteSize = bytes.length;
    }
    this.knownEtag = etag;
  }

  /** Length of the bytes, known without building them. */
  get size(): number {
    return this.byteSize;
  }

  static json(text: string): Body {
    return new Body(Buffer.from(text, 'utf8'));
  }

  /** The bytes or their parts, made on first use. */
  private build(): Buffer | readonly Buffer[] {
    this.asked = true;
    if (this.madeBytes !== undefined) return this.madeBytes;
    if (this.madeParts !== undefined) return this.madeParts;
    const made = this.make!();
    this.make = undefined;
    if (Buffer.isBuffer(made)) this.madeBytes = made;
    else this.madeParts = made;
    return made;
  }

  /** The bytes as one buffer (parts are joined, once). */
  get bytes(): Buffer {
    const made = this.build();
    if (Buffer.isBuffer(made)) return made;
    this.madeBytes = joined(made, this.byteSize);
    this.madeParts = undefined;
    this.onJoin?.(this.madeBytes);
    return this.madeBytes;
  }

  /** The bytes in order, as parts if they were made so (nothing joined: for a writer that takes several buffers). */
  get parts(): readonly Buffer[] {
    const made = this.build();
    return Buffer.isBuffer(made) ? [made] : made;
  }

  /**
   * This body held in `bytes`, an equal copy stored elsewhere (a slice of a
   * list body), so the two are stored once: a new body with this one's ETag
   * and the compressed forms made so far. This body itself when the bytes
   * are not equal. Nothing of this body changes.
   */
  heldIn(bytes: Buffer): Body {
    if (this.madeBytes === undefined || !bytes.equals(this.madeBytes)) return this;
    const body = new Body(bytes, this.knownEtag);
    body.gzip = this.gzip;
    body.br = this.br;
    return body;
  }

  /** True when some caller asked for the bytes (a lazy body that was never sent was not). */
  get built(): boolean {
    return this.asked;
  }

  get etag(): string {
    return (this.knownEtag ??= etagOf(this.bytes));
  }

  /** The ETag of the encoded representation (a different representation needs a different strong tag). */
  tagFor(encoding: Encoding | undefined): string {
    if (encoding === undefined) return this.etag;
    if (encoding === 'gzip') return (this.gzipTag ??= `${this.etag.slice(0, -1)}-gzip"`);
    return (this.brTag ??= `${this.etag.slice(0, -1)}-br"`);
  }

  /** The body in the given encoding if it has been compressed already. */
  ready(encoding: Encoding): Buffer | undefined {
    return encoding === 'gzip' ? this.gzip : this.br;
  }

  /** The body in the given encoding, compressed on first use (synchronously) and kept. */
  encoded(encoding: Encoding): Buffer {
    if (encoding === 'gzip') return (this.gzip ??= shrinkToFit(gzipSync(this.bytes, gzipOptions(this.bytes.length))));
    return (this.br ??= shrinkToFit(brotliCompressSync(this.bytes, brotliOptions(this.bytes.length))));
  }

  /**
   * The body in the given encoding: at once when it exists or is small,
   * else a promise of the one compression running on the thread pool.
   */
  encodedSoon(encoding: Encoding): Buffer | Promise<Buffer> {
    const done = this.ready(encoding);
    if (done !== undefined) return done;
    if (this.byteSize < ASYNC_COMPRESS_MIN_BYTES) return this.encoded(encoding);
    const pending = (this.pending ??= {});
    const running = pending[encoding];
    if (running !== undefined) return running;
    const made = this.build();
    const promise = new Promise<Buffer>((resolve, reject) => {
      const done = (err: Error | null, result: Buffer) => {
        if (err) return reject(err);
        const out = shrinkToFit(result);
        if (encoding === 'gzip') this.gzip = out;
        else this.br = out;
        resolve(out);
      };
      if (!Buffer.isBuffer(made)) compressParts(made, encoding, this.byteSize, done);
      else if (encoding === 'gzip') gzip(made, gzipOptions(made.length), done);
      else brotliCompress(made, brotliOptions(made.length), done);
    }).finally(() => {
      if (this.pending) delete this.pending[encoding];
    });
    pending[encoding] = promise;
    return promise;
  }
}

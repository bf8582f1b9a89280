// A response body serialized once, with its strong ETag and its compressed
// forms made at most once (issue 8: compress once, not per request).
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';

export type Encoding = 'gzip' | 'br';

export class Body {
  readonly etag: string;
  private gzip?: Buffer;
  private br?: Buffer;

  constructor(readonly bytes: Buffer) {
    this.etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
  }

  static json(text: string): Body {
    return new Body(Buffer.from(text, 'utf8'));
  }

  /** The body in the given encoding, compressed on first use and kept. */
  encoded(encoding: Encoding): Buffer {
    if (encoding === 'gzip') return (this.gzip ??= gzipSync(this.bytes, { level: 6 }));
    return (this.br ??= brotliCompressSync(this.bytes, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: this.bytes.length },
    }));
  }

  /** Compresses both encodings now, so no request pays for it. */
  precompress(): void {
    this.encoded('gzip');
    this.encoded('br');
  }
}

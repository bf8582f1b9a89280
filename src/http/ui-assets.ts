// The catalog browser's built files (docs/ui.md), read once at start and kept
// in memory: a handful of small files, so serving them from memory with a
// precomputed ETag and gzip is simpler and faster than a static-file plugin
// that stats the disk per request. Scripts and styles live under a path named
// after a hash of their content (`/ui/<build>/main.js`), so they can be cached
// for good; the shell (index.html) names that path and is revalidated on every
// load. Relative module imports resolve inside the same hashed folder.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** Strict by construction: nothing inline, nothing from another origin. */
export const UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers every /ui answer carries, errors included. */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': UI_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The placeholder index.html carries where the hashed folder's name goes. */
const BUILD_PLACEHOLDER = /__BUILD__/g;

export interface UiAsset {
  type: string;
  bytes: Buffer;
  gzip?: Buffer;
  etag: string;
}

export interface UiAssets {
  /** Name of the hashed folder the scripts and styles are served under. */
  build: string;
  index: UiAsset;
  /** By file name inside the build folder (e.g. `main.js`). */
  files: ReadonlyMap<string, UiAsset>;
}

function asset(name: string, bytes: Buffer): UiAsset {
  const type = TYPES[extname(name)] ?? 'application/octet-stream';
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
  const compressible = type.startsWith('text/') || type.startsWith('image/svg');
  return { type, bytes, etag, ...(compressible && bytes.length >= 1024 ? { gzip: gzipSync(bytes, { level: 9 }) } : {}) };
}

/**
 * Where `npm run build` puts the browser code: `dist/ui/` beside the compiled
 * server (`dist/http/../ui`), or, when the server runs from its TypeScript
 * sources (tests, `npm run dev`), the repository's `dist/ui/`.
 */
export function defaultUiDir(): string {
  const beside = fileURLToPath(new URL('../ui/', import.meta.url));
  if (existsSync(join(beside, 'index.html'))) return beside;
  return fileURLToPath(new URL('../../dist/ui/', import.meta.url));
}

/** Reads the built browser code; undefined when it was never built. */
export function loadUiAssets(dir = defaultUiDir()): UiAssets | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const names = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((n) => n.split('\\').join('/'))
    .filter((n) => n !== 'index.html' && !n.endsWith('.map') && extname(n) in TYPES)
    .sort();
  const hash = createHash('sha256');
  const raw = new Map<string, Buffer>();
  for (const name of names) {
    const bytes = readFileSync(join(dir, name));
    raw.set(name, bytes);
    hash.update(name).update('\0').update(bytes).update('\0');
  }
  const build = hash.digest('hex').slice(0, 16);
  const files = new Map<string, UiAsset>();
  for (const [name, bytes] of raw) files.set(name, asset(name, bytes));
  const html = readFileSync(join(dir, 'index.html'), 'utf8').replace(BUILD_PLACEHOLDER, build);
  return { build, index: asset('index.html', Buffer.from(html)), files };
}

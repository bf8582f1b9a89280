// The cache key of a stdio line and its JSON-RPC id (stdio-lines.ts): a
// repeated `tools/list` page is the same bytes apart from the id, so the key
// is a hash of the rest, and the id is put back into the cached answer. The
// key of a page's entries, and the stand-ins the cache answers with, live here
// too: the reader makes them and the tool collector (tool-filter.ts) reads them.
import { hash } from 'node:crypto';

const CLOSE_BRACE = 0x7d;
const ID_TAIL = Buffer.from(',"id":');
const ID_HEAD = Buffer.from('{"jsonrpc":"2.0","id":');

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39;
}

/** A JSON-RPC id the cache can substitute: a plain non-negative integer, no leading zero. */
function idValue(digits: Buffer): number | undefined {
  if (digits.length === 0 || digits.length > 15 || (digits[0] === 0x30 && digits.length > 1)) return undefined;
  return Number(digits.toString('latin1'));
}

/**
 * Splits a line into the id and the rest, when the id's place is certain to
 * be the top-level one: the last member before the closing brace
 * (`…,"id":N}`: the SDK's order) or the member after a leading `jsonrpc`
 * (`{"jsonrpc":"2.0","id":N,…`: the Python SDK's order). Inside a JSON
 * string a quote is always escaped, so `"id":` there is structure, and
 * the closing brace of the line closes the top-level object.
 */
export function splitId(line: Buffer): { id: number; key: string } | undefined {
  const n = line.length;
  if (line[n - 1] === CLOSE_BRACE) {
    let i = n - 2;
    while (isDigit(line[i])) i--;
    const start = i + 1 - ID_TAIL.length;
    if (i < n - 2 && start > 0 && line.subarray(start, i + 1).equals(ID_TAIL)) {
      const id = idValue(line.subarray(i + 1, n - 1));
      if (id !== undefined) return { id, key: `t${hash('sha256', line.subarray(0, start), 'base64')}` };
    }
  }
  if (line.subarray(0, ID_HEAD.length).equals(ID_HEAD)) {
    let i = ID_HEAD.length;
    while (isDigit(line[i])) i++;
    if (line[i] === 0x2c) {
      const id = idValue(line.subarray(ID_HEAD.length, i));
      if (id !== undefined) return { id, key: `h${hash('sha256', line.subarray(i), 'base64')}` };
    }
  }
  return undefined;
}

/**
 * On a `tools/list` entry of a page the cache holds: the page's key and the
 * entry's place in it (`key#index`), which together name the entry's bytes.
 * The tool collector remembers it, so that the same key on a later read
 * means the same tool without looking at the entry again.
 */
const ENTRY_KEY = Symbol('toolhost.entryKey');
/** On an entry the cache answered in place of the parsed one: it holds only the name and the entry key. */
const ENTRY_STUB = Symbol('toolhost.entryStub');

type Keyed = { [ENTRY_KEY]?: string; [ENTRY_STUB]?: true };

/** The entry's key, when it came from (or stands for) an entry of a cached page. */
export function entryKeyOf(entry: object): string | undefined {
  return (entry as Keyed)[ENTRY_KEY];
}

/** Whether the entry is a cache's stand-in, with nothing of the tool but its name. */
export function isEntryStub(entry: object): boolean {
  return (entry as Keyed)[ENTRY_STUB] === true;
}

/** The stand-in the cache answers with for an entry of a cached page, with its name and key. */
export function entryStub(name: string, key: string): Record<string, unknown> {
  const stub = { name };
  markEntry(stub, key);
  Object.defineProperty(stub, ENTRY_STUB, { value: true, enumerable: false });
  return stub;
}

/** Marks a parsed entry with its key (a hidden symbol property: JSON, `Object.keys` and deep equality do not see it). */
export function markEntry(entry: object, key: string): void {
  Object.defineProperty(entry, ENTRY_KEY, { value: key, enumerable: false });
}

// JSON values held as their text, parsed on use. An upstream's schemas are
// the bulk of a large catalog (28 MB for 10,000 GitHub-sized tools), and
// held as parsed objects they cost the heap several times their text: an
// object per schema node and a V8 hidden class per distinct set of keys,
// which every full garbage collection marks again (docs/benchmarks.md,
// "Schemas held as text"). A string is one object the collector does not
// look into.
//
// `setJsonText(o, key, text)` makes `o[key]` an enumerable property whose
// value is `JSON.parse(text)`: `JSON.stringify(o)` and `Object.keys(o)` see
// it as an ordinary field. The parsed value (the source's own parse, to begin
// with) is held weakly, so readers close in time (a tool's compaction and
// search filing) share one parse, and the garbage collector may drop it
// whenever no reader holds it. Held strongly until a first reader takes it,
// the parses of a whole list would live through a start's build and
// compaction, and the heap V8 grows for that peak stays committed: 15 to
// 20 MB more RSS at 10,000 tools, measured (docs/benchmarks.md, "Schemas held
// as text"). The value is shared, so no reader may change it. Readers that use the
// value more than once read it once into a local. `jsonTextOf(o, key)` gives
// the text back, so that what only needs the text (serializing, comparing,
// scanning for credentials) never parses.
//
// Once the catalog has serialized a descriptor, its schemas' text is also a
// range of the entry's bytes: `holdTextIn` drops the string and reads the
// text from there, so 10,000 tools' schemas are not held twice, as strings
// in the JS heap and as bytes outside it (docs/benchmarks.md, "RSS: entries
// written into slabs, schemas read from the entries' bytes, …"). The slot
// is shared by the source's RawTool and the descriptors made from it, so
// all of them read the bytes.
import type { JsonObject } from '../contract/descriptor.js';

const SLOTS = Symbol('toolhost.jsonTexts');

/** One value held as text (a string, or its UTF-8 bytes at [start, end) of a buffer), with its latest parse held weakly. */
interface Slot {
  held: string | Buffer;
  start: number;
  end: number;
  parsed?: WeakRef<JsonObject>;
}

function textOf(slot: Slot): string {
  const held = slot.held;
  return typeof held === 'string' ? held : held.toString('utf8', slot.start, slot.end);
}

type WithSlots = { [SLOTS]?: Record<string, Slot> };

function slotOf(target: object, key: string): Slot | undefined {
  return (target as WithSlots)[SLOTS]?.[key];
}

function define(target: object, key: string, slot: Slot): void {
  const holder = target as WithSlots;
  let slots = holder[SLOTS];
  if (slots === undefined) {
    slots = {};
    Object.defineProperty(target, SLOTS, { value: slots, enumerable: false });
  }
  slots[key] = slot;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      let value = slot.parsed?.deref();
      if (value === undefined) {
        value = JSON.parse(textOf(slot)) as JsonObject;
        slot.parsed = new WeakRef(value);
      }
      return value;
    },
  });
}

/**
 * Defines `target[key]` as the JSON value of `text`, in the key order of
 * assignment. `parsed`, when given, is that value already (the source's own
 * parse), used while something else still holds it.
 */
export function setJsonText(target: object, key: string, text: string, parsed?: JsonObject): void {
  define(target, key, { held: text, start: 0, end: text.length, parsed: parsed === undefined ? undefined : new WeakRef(parsed) });
}

/** The text `target[key]` is held as, when it is held as text. */
export function jsonTextOf(target: object, key: string): string | undefined {
  const slot = slotOf(target, key);
  return slot === undefined ? undefined : textOf(slot);
}

/**
 * Whether `a[key]` and `b[key]` are held as the same text: true or false
 * when both are held as text (the same slot is equal without reading it),
 * undefined otherwise.
 */
export function sameJsonText(a: object, b: object, key: string): boolean | undefined {
  const sa = slotOf(a, key);
  const sb = sa === undefined ? undefined : slotOf(b, key);
  if (sa === undefined || sb === undefined) return undefined;
  if (sa === sb) return true;
  if (typeof sa.held === 'string' || typeof sb.held === 'string') return textOf(sa) === textOf(sb);
  return sa.end - sa.start === sb.end - sb.start && sa.held.compare(sb.held, sb.start, sb.end, sa.start, sa.end) === 0;
}

/** Whether `target[key]` is held as text (without reading the text). */
export function isJsonText(target: object, key: string): boolean {
  return slotOf(target, key) !== undefined;
}

/** Where `target[key]`'s text is read from, when holdTextIn put it in bytes: the buffer and the range. */
export function jsonTextBytesOf(target: object, key: string): { bytes: Buffer; start: number; end: number } | undefined {
  const slot = slotOf(target, key);
  return slot === undefined || typeof slot.held === 'string' ? undefined : { bytes: slot.held, start: slot.start, end: slot.end };
}

/**
 * From now on, `target[key]`'s text is read from `bytes` between `start`
 * and `end`, which must be its UTF-8 encoding (in a serialized descriptor),
 * and no longer held as a string. For every object sharing the slot
 * (copyValue). No-op when the value is not held as text.
 */
export function holdTextIn(target: object, key: string, bytes: Buffer, start: number, end: number): void {
  const slot = slotOf(target, key);
  if (slot === undefined) return;
  slot.held = bytes;
  slot.start = start;
  slot.end = end;
}

/** Whether `target[key]` is present, without parsing a value held as text. */
export function hasValue(target: object, key: string): boolean {
  return slotOf(target, key) !== undefined || (target as Record<string, unknown>)[key] !== undefined;
}

/** `source[key]` onto `target`: the same text (and its parse) when held as text, else the same value. */
export function copyValue(source: object, target: object, key: string): void {
  const slot = slotOf(source, key);
  if (slot !== undefined) define(target, key, slot);
  else (target as Record<string, unknown>)[key] = (source as Record<string, unknown>)[key];
}

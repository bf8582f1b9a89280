// Bounds of the compact view (docs/compact-view.md, "Limits"). Every bound
// loosens (never tightens) when it is hit, and each hit is reported in
// `loosened`.

/** Largest compact input schema, in UTF-8 bytes of its JSON serialization. */
export const MAX_COMPACT_SCHEMA_BYTES = 32 * 1024;

/**
 * How many times one schema object may be open at once along a path while it
 * is being compacted (natural nesting plus `$ref` expansion). A recursive
 * `$ref` is therefore inlined at most this many times on any path; the next
 * occurrence becomes `{}`.
 */
export const MAX_RECURSION_UNROLL = 2;

/** Deepest schema nesting (output depth, counting inlined `$ref`s). Deeper subschemas become `{}`. */
export const MAX_SCHEMA_DEPTH = 32;

/** Deepest nesting inside an `enum`/`const`/`default`/`examples` value that is copied. */
export const MAX_DATA_DEPTH = 32;

/**
 * Work budget per schema: schema nodes visited, data nodes copied, merges
 * and unions. A hostile input that would exceed it (exponential `$ref`
 * fan-out, giant enums) is cut to `{}` where the budget runs out.
 */
export const MAX_WORK = 10_000;

/** Longest note appended to a `description` for lost information. */
export const MAX_NOTE_LENGTH = 240;

/** Most entries in `loosened` (further ones are summarized by a final count). */
export const MAX_LOOSENED_NOTES = 100;

/** Longest description kept on a subschema replaced because of the size bound. */
export const MAX_STUB_DESCRIPTION = 120;

// PLACEHOLDER owned by the compact-view work (issue 4): rewrites an input
// schema into the model-safe subset. Replaced by the real implementation.
import type { JsonObject } from '../../contract/descriptor.js';

export interface CompactSchemaResult {
  schema: JsonObject;
  /** Human-readable notes on what was loosened; empty when nothing was. */
  loosened: string[];
}

export function compactInputSchema(schema: JsonObject): CompactSchemaResult {
  return { schema: { type: 'object', properties: {} }, loosened: ['placeholder'] };
}

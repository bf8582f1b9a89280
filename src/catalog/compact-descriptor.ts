// The CompactToolDescriptor projection (docs/contract.md "Views and sessions" and
// "CompactToolDescriptor"): the closed model-facing shape, with the input
// schema rewritten by compactInputSchema, its top level closed to `type` and
// `properties` as the published v2 schema requires (closeTopLevel), and the
// description summarized.
import type { CompactToolDescriptor, ToolDescriptor } from '../contract/descriptor.js';
import { hasValue } from '../util/json-text.js';
import { withNote } from './compact/brief.js';
import { closeTopLevel } from './compact/close-top-level.js';
import { compactInputSchema } from './compact/compact-input-schema.js';
import { summarizeDescription } from './compact/summary.js';

/** The compact schema's top-level `required` names, per descriptor, for the MCP front door's compact profile. */
const requiredByDescriptor = new WeakMap<ToolDescriptor, readonly string[]>();
const NONE: readonly string[] = [];

export function compactDescriptor(d: ToolDescriptor): CompactToolDescriptor {
  const c: CompactToolDescriptor = { toolId: d.toolId, source: d.source, safetyTier: d.safetyTier };
  if (d.title !== undefined) c.title = d.title;
  if (d.description !== undefined) c.description = summarizeDescription(d.description);
  // Absent stays absent: a tool without an input schema gains none. Read
  // once: a schema held as text is parsed on each read (util/json-text.ts).
  const input = d.inputSchema;
  if (input !== undefined) {
    const closed = closeTopLevel(compactInputSchema(input).schema);
    c.inputSchema = closed.schema;
    requiredByDescriptor.set(d, closed.required.length > 0 ? closed.required : NONE);
    // What the rewrite noted at the top (merged alternatives, conditions) still reaches the model.
    if (closed.description !== undefined) c.description = withNote(c.description, `Arguments: ${closed.description}`);
  }
  return c;
}

/**
 * The top-level `required` names of a descriptor's compact input schema
 * (the compact view carries them as "(required)" marks; an MCP client
 * wants the list). Remembered from compactDescriptor; computed on a miss.
 */
export function compactRequired(d: ToolDescriptor): readonly string[] {
  if (!hasValue(d, 'inputSchema')) return NONE;
  let required = requiredByDescriptor.get(d);
  if (required === undefined) {
    compactDescriptor(d);
    required = requiredByDescriptor.get(d) ?? NONE;
  }
  return required;
}

// The CompactToolDescriptor projection (seed "Views and sessions", CONTRACT.md
// "CompactToolDescriptor"): the closed model-facing shape, with the input
// schema rewritten by compactInputSchema and the description summarized.
import type { CompactToolDescriptor, ToolDescriptor } from '../contract/descriptor.js';
import { compactInputSchema } from './compact/compact-input-schema.js';
import { summarizeDescription } from './compact/summary.js';

export function compactDescriptor(d: ToolDescriptor): CompactToolDescriptor {
  const c: CompactToolDescriptor = { toolId: d.toolId, source: d.source, safetyTier: d.safetyTier };
  if (d.title !== undefined) c.title = d.title;
  if (d.description !== undefined) c.description = summarizeDescription(d.description);
  // Absent stays absent: a tool without an input schema gains none.
  if (d.inputSchema !== undefined) c.inputSchema = compactInputSchema(d.inputSchema).schema;
  return c;
}

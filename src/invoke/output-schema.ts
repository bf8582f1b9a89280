// Holding a tool to the outputSchema the catalog advertises (docs/mcp.md
// "Output schemas"): a client validates structuredContent against it, so a
// result that does not conform is stopped here, where it can be named and
// counted, instead of breaking the client's own validation. Validators are
// compiled once per descriptor (arguments.ts), from the host's (possibly redacted) copy
// of the schema, which is what clients see.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEntry } from '../catalog/snapshot.js';
import { hasValue } from '../util/json-text.js';
import { firstProblem, validatorOf } from './arguments.js';
import { instanceTooLarge } from './schema-validator.js';

const MAX_PROBLEM_LENGTH = 200;

/**
 * Undefined when the result may go to the client, else one line saying what
 * is wrong. Error results carry no structured promise; a successful result of
 * a tool with an outputSchema must have structuredContent that conforms.
 */
export function outputProblem(entry: ToolEntry, result: CallToolResult): string | undefined {
  if (result.isError === true || !hasValue(entry.tool.descriptor, 'outputSchema')) return undefined;
  if (result.structuredContent === undefined) return 'it has no structuredContent';
  const v = validatorOf(entry.tool.descriptor, 'outputSchema');
  if (!v) return undefined;
  const tooLarge = instanceTooLarge(result.structuredContent);
  if (tooLarge !== undefined) return `structuredContent ${tooLarge}`;
  if (v(result.structuredContent)) return undefined;
  // The path comes from the upstream's own keys: bounded, since it is kept in the source's health.
  return `structuredContent ${firstProblem(v, 'does not match')}`.slice(0, MAX_PROBLEM_LENGTH);
}

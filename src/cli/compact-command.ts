// `toolhost compact FILE.json`: print the compact form of a JSON Schema file
// exactly as the compact view serves it (rewritten, then its top level
// closed), what the rewrite loosened and what closing the top level moved
// (docs/compact-view.md). Pure apart from reading the file; the CLI owner
// prints `output` and exits with `exitCode`.
import { readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import type { JsonValue } from '../contract/descriptor.js';
import { closeTopLevel } from '../catalog/compact/close-top-level.js';
import { compactSchemaValue } from '../catalog/compact/compact-input-schema.js';

/** 0: compacted (loosened or not); 1: the file cannot be read or is not a JSON Schema. */
export function runCompactCommand(file: string): { output: string; exitCode: number } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return { output: `toolhost compact: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`, exitCode: 1 };
  }
  let schema: JsonValue;
  try {
    schema = JSON.parse(text) as JsonValue;
  } catch (e) {
    return { output: `toolhost compact: ${file} is not valid JSON: ${(e as Error).message}\n`, exitCode: 1 };
  }
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    return { output: `toolhost compact: ${file} is not a JSON Schema (expected an object or a boolean)\n`, exitCode: 1 };
  }
  const { schema: rewritten, loosened } = compactSchemaValue(schema);
  const closed = closeTopLevel(rewritten);
  const compact = closed.schema;
  const json = JSON.stringify(compact, null, 2);
  const before = Buffer.byteLength(JSON.stringify(schema));
  const after = Buffer.byteLength(JSON.stringify(compact));
  const lines = [json, ''];
  lines.push(`# ${before} bytes -> ${after} bytes (compact JSON)`);
  if (loosened.length === 0) lines.push('# nothing loosened');
  else {
    lines.push(`# loosened (${loosened.length}):`);
    for (const l of loosened) lines.push(`#   ${l}`);
  }
  if (closed.moved.length > 0) {
    lines.push(`# top level closed (${closed.moved.length}):`);
    for (const m of closed.moved) lines.push(`#   ${m}`);
  }
  if (closed.description !== undefined) lines.push(`# for the tool description: Arguments: ${closed.description}`);
  return { output: lines.join('\n') + '\n', exitCode: 0 };
}

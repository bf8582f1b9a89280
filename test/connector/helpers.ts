// Shared test helpers for the connector source: a SourceContext whose pino
// output is captured in memory, and the oas-examples document list.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createMetrics } from '../../src/observability/metrics.js';
import type { SourceContext } from '../../src/sources/source-context.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const OAS_EXAMPLES = path.join(REPO, 'node_modules/@readme/oas-examples');
export const DEMO_DOC = path.join(REPO, 'examples/demo/openapi/tickets.yaml');

export interface CapturedContext extends SourceContext {
  /** Every log line pino wrote, raw JSON text. */
  lines: string[];
}

export function testContext(opts: { configDir?: string; env?: NodeJS.ProcessEnv } = {}): CapturedContext {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const logger = pino({ level: 'trace' }, stream);
  return { logger, metrics: createMetrics(), configDir: opts.configDir ?? REPO, env: opts.env ?? {}, lines };
}

/** JSON documents under a folder, recursively, sorted. */
export function jsonDocuments(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...jsonDocuments(p));
    else if (name.endsWith('.json')) out.push(p);
  }
  return out;
}

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
const SUBSCHEMA_ONE = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'items', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** Visits every schema object (not property names, not enum/const/default/examples values). */
export function walkSchemas(schema: unknown, visit: (s: Record<string, unknown>) => void): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
  const s = schema as Record<string, unknown>;
  visit(s);
  for (const k of SUBSCHEMA_MAPS) {
    const m = s[k];
    if (m && typeof m === 'object') for (const sub of Object.values(m)) walkSchemas(sub, visit);
  }
  for (const k of SUBSCHEMA_ONE) walkSchemas(s[k], visit);
  for (const k of SUBSCHEMA_LIST) if (Array.isArray(s[k])) for (const sub of s[k] as unknown[]) walkSchemas(sub, visit);
}

export { waitFor } from '../helpers/patience.js';

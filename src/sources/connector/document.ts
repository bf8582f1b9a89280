// Reads one OpenAPI 3.0/3.1 document and turns its operations into RawTools
// plus the ConnectorOperations that describe how to call them (docs/config.md,
// "`sources.connectors[]`").
//
// This file reads and checks the document; operations.ts converts it, with
// operation-input.ts (security, parameters, request body, input schema; its
// header states the rules) and operation-output.ts (output schema, Accept
// media type).
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../../util/json.js';
import type { ConnectorSourceConfig } from './config-schema.js';
import { buildOperations, type LoadedConnectorDocument } from './operations.js';
import { type OasVersion } from './schema-convert.js';

export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;

/** A document that cannot be used at all; the message is short and credential-free. */
export class ConnectorDocumentError extends Error {}

export type { LoadedConnectorDocument, SkippedOperation } from './operations.js';

/** Parses YAML or JSON text and checks it is an OpenAPI 3.0/3.1 document. */
export function parseOpenApiText(text: string, label: string): { doc: Record<string, unknown>; version: OasVersion } {
  let doc: unknown;
  const trimmed = text.trimStart();
  try {
    if (trimmed.startsWith('{')) {
      doc = JSON.parse(text);
    } else {
      doc = parseYaml(text, { maxAliasCount: 1000 });
    }
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200);
    throw new ConnectorDocumentError(`${label}: not valid ${trimmed.startsWith('{') ? 'JSON' : 'YAML'}: ${first}`);
  }
  if (!isPlainObject(doc)) throw new ConnectorDocumentError(`${label}: not an OpenAPI document (top level is not an object)`);
  if (doc.swagger !== undefined) {
    throw new ConnectorDocumentError(
      `${label}: Swagger ${String(doc.swagger).slice(0, 10)} documents are not supported; convert it to OpenAPI 3.0 or 3.1 first (for example with swagger2openapi)`,
    );
  }
  if (typeof doc.openapi !== 'string') throw new ConnectorDocumentError(`${label}: not an OpenAPI document (no "openapi" version string)`);
  const m = /^3\.([01])\.\d+$/.exec(doc.openapi);
  if (!m) throw new ConnectorDocumentError(`${label}: unsupported OpenAPI version ${JSON.stringify(doc.openapi.slice(0, 20))} (supported: 3.0.x, 3.1.x)`);
  const version: OasVersion = m[1] === '0' ? '3.0' : '3.1';
  if (!isPlainObject(doc.paths) && !(version === '3.1' && doc.webhooks !== undefined)) {
    throw new ConnectorDocumentError(`${label}: the document has no "paths" object`);
  }
  return { doc, version };
}

/**
 * Dereferences in place with swagger-parser: no external resolution; a
 * circular reference becomes a cycle of objects (see schema-convert.ts).
 */
export async function dereferenceDocument(doc: Record<string, unknown>, version: OasVersion, label: string): Promise<Record<string, unknown>> {
  // swagger-parser only knows a fixed list of patch versions; the minor is what matters here.
  const original = doc.openapi;
  doc.openapi = version === '3.0' ? '3.0.3' : '3.1.0';
  try {
    const parser = new SwaggerParser();
    const api = (await parser.dereference(doc as never, {
      resolve: { external: false },
      dereference: { circular: true },
    })) as unknown as Record<string, unknown>;
    api.openapi = original;
    return api;
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200);
    throw new ConnectorDocumentError(`${label}: cannot resolve references: ${first}`);
  } finally {
    doc.openapi = original;
  }
}

/**
 * What tells two versions of a document apart: a hash of its bytes. Never a
 * serialization of the converted or dereferenced document, whose shared
 * `$ref` targets are written out once per use (a large API's runs past the
 * longest string JavaScript has).
 */
export function documentDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Reads the document's text (bounded, a regular file). Throws ConnectorDocumentError when it cannot. */
export async function readConnectorDocument(documentPath: string): Promise<string> {
  const label = path.basename(documentPath);
  let text: string;
  try {
    const st = await stat(documentPath);
    if (!st.isFile()) throw new ConnectorDocumentError(`${label}: not a file`);
    if (st.size > MAX_DOCUMENT_BYTES) throw new ConnectorDocumentError(`${label}: larger than ${MAX_DOCUMENT_BYTES} bytes`);
    text = await readFile(documentPath, 'utf8');
  } catch (err) {
    if (err instanceof ConnectorDocumentError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConnectorDocumentError(`${label}: cannot read the document${code ? ` (${code})` : ''}`);
  }
  return text;
}

/** Reads, parses and converts the connector's document. Throws ConnectorDocumentError when it is unusable. */
export async function loadConnectorDocument(config: ConnectorSourceConfig, documentPath: string): Promise<LoadedConnectorDocument> {
  return convertOpenApiText(config, await readConnectorDocument(documentPath), documentPath);
}

/** The conversion part of loadConnectorDocument, for text already in hand. */
export async function convertOpenApiText(config: ConnectorSourceConfig, text: string, documentPath: string): Promise<LoadedConnectorDocument> {
  const label = path.basename(documentPath);
  const { doc, version } = parseOpenApiText(text, label);
  const api = await dereferenceDocument(doc, version, label);
  return buildOperations(config, api, version, path.basename(documentPath));
}

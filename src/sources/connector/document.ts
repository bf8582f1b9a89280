// Reads one OpenAPI 3.0/3.1 document and turns its operations into RawTools
// plus the ConnectorOperations that describe how to call them.
//
// Parameter rules (the tool's input schema is one object):
// - path, query and header parameters become properties keyed by their name,
//   with the parameter's schema (converted, see schema-convert.ts) and its
//   description; `required: true` ones (and every path parameter) are in
//   `required`. Operation-level parameters override path-item ones with the
//   same name and location (header names compare case-insensitively).
// - skipped: cookie parameters (the host does not forward cookie state);
//   header parameters named Accept, Content-Type or Authorization (OpenAPI
//   says they are ignored); parameters that are the API-key carrier of an
//   apiKey security scheme of the operation, or that have the name/location
//   of the configured `auth` header/query: the host supplies those.
// - a `{var}` in the path template without a declared path parameter gets a
//   required `{type: "string"}` one.
// - the request body is the property `body`, required when
//   `requestBody.required`. Media type: `application/json`, else another JSON
//   type (`*/*+json`, `*/*`), else `application/x-www-form-urlencoded`, else
//   `text/plain`. An operation whose only body types are others (multipart,
//   binary, XML) is skipped when the body is required and exposed without
//   `body` otherwise (with a warning).
// - name collisions: `body` (when the operation has a body) is taken first,
//   then path, query, header parameters in that order; a parameter whose name
//   is taken is keyed `<in>:<name>` (`query:id`, `header:id`), with `_2`, ...
//   if even that is taken.
// Output schema: the first 2xx response in code order (200, 201, ..., then
// `2XX`) that has a JSON media type; used when its schema is an object schema
// (`type: "object"`, or untyped with `properties`, which then gets
// `type: "object"`). Non-object results (arrays, strings) get no outputSchema.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import type { Classification, JsonObject } from '../../contract/descriptor.js';
import { compileGlobs } from '../../contract/glob.js';
import { formatToolId } from '../../contract/tool-id.js';
import type { RawTool } from '../raw-tool.js';
import type { ConnectorSelector, ConnectorSourceConfig } from './config-schema.js';
import { HTTP_METHODS, assignActionNames, type HttpMethod } from './naming.js';
import { CREDENTIAL_NAME, analyzeDocument, cloneJson, convertSchema, isPlainObject, newConvertContext, setOwn, withDefs, type ConvertContext, type DocumentGraph, type OasVersion } from './schema-convert.js';
import type { BodyEncoding, ConnectorOperation, ConnectorParameter, ParameterLocation, ParameterStyle } from './types.js';

export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;

/** A document that cannot be used at all; the message is short and credential-free. */
export class ConnectorDocumentError extends Error {}

export interface SkippedOperation {
  method: string;
  path: string;
  reason: string;
}

export interface LoadedConnectorDocument {
  version: OasVersion;
  title?: string;
  tools: RawTool[];
  operations: ConnectorOperation[];
  /** Operations present in the document but not turned into tools (filters excluded). */
  skipped: SkippedOperation[];
  warnings: string[];
}

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

/** Reads, parses and converts the connector's document. Throws ConnectorDocumentError when it is unusable. */
export async function loadConnectorDocument(config: ConnectorSourceConfig, documentPath: string): Promise<LoadedConnectorDocument> {
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
  return convertOpenApiText(config, text, documentPath);
}

/** The conversion part of loadConnectorDocument, for text already in hand. */
export async function convertOpenApiText(config: ConnectorSourceConfig, text: string, documentPath: string): Promise<LoadedConnectorDocument> {
  const label = path.basename(documentPath);
  const { doc, version } = parseOpenApiText(text, label);
  const api = await dereferenceDocument(doc, version, label);
  return buildOperations(config, api, version, documentPath);
}

interface RawOp {
  method: HttpMethod;
  path: string;
  pathItem: Record<string, unknown>;
  op: Record<string, unknown>;
  operationId?: string;
}

function pointerEscape(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json(?:\s*;.*)?$/i;

function isJsonMedia(mt: string): boolean {
  return JSON_MEDIA.test(mt.trim());
}

function matcherFor(sel: ConnectorSelector | undefined): ((name: string, tags: string[]) => boolean) | undefined {
  if (!sel || ((sel.operations?.length ?? 0) === 0 && (sel.tags?.length ?? 0) === 0)) return undefined;
  const globs = sel.operations?.length ? compileGlobs(sel.operations) : undefined;
  const tagSet = new Set(sel.tags ?? []);
  return (name, tags) => (globs !== undefined && globs(name)) || tags.some((t) => tagSet.has(t));
}

function serverUrl(servers: unknown): string | undefined {
  if (!Array.isArray(servers) || servers.length === 0 || !isPlainObject(servers[0])) return undefined;
  const s = servers[0];
  const url = str(s.url);
  if (url === undefined) return undefined;
  const vars = isPlainObject(s.variables) ? s.variables : {};
  return url.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = vars[name];
    return isPlainObject(v) && v.default !== undefined ? String(v.default) : '';
  });
}

function normalizeBaseUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    new URL(url);
  } catch {
    return undefined;
  }
  return url.replace(/\/+$/, '');
}

/** The host's classification defaults from HTTP method semantics (RFC 9110 safe / idempotent). */
export function classifyMethod(method: HttpMethod): Partial<Classification> {
  switch (method) {
    case 'get':
    case 'head':
    case 'options':
    case 'trace':
      return { safetyTier: 'read', replayPolicy: 'idempotent', egress: 'host-mediated' };
    case 'put':
    case 'delete':
      return { safetyTier: 'write', replayPolicy: 'idempotent', egress: 'host-mediated' };
    case 'post':
    case 'patch':
      return { safetyTier: 'write', replayPolicy: 'non-deterministic', egress: 'host-mediated' };
  }
}

const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

function paramKey(loc: string, name: string): string {
  return loc === 'header' ? `header\u0000${name.toLowerCase()}` : `${loc}\u0000${name}`;
}

function defaultStyle(loc: ParameterLocation): ParameterStyle {
  return loc === 'query' ? 'form' : 'simple';
}

const STYLES_BY_LOCATION: Record<ParameterLocation, ParameterStyle[]> = {
  path: ['simple', 'label', 'matrix'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  header: ['simple'],
};

function buildOperations(config: ConnectorSourceConfig, api: Record<string, unknown>, version: OasVersion, documentPath: string): LoadedConnectorDocument {
  const warnings: string[] = [];
  const skipped: SkippedOperation[] = [];
  const graph = analyzeDocument(api);
  const paths = isPlainObject(api.paths) ? api.paths : {};
  const rawOps: RawOp[] = [];
  for (const [p, item] of Object.entries(paths)) {
    if (!p.startsWith('/') || !isPlainObject(item)) continue; // `x-*` keys are extensions, not paths
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isPlainObject(op)) continue;
      rawOps.push({ method, path: p, pathItem: item, op, operationId: str(op.operationId) });
    }
  }
  if (version === '3.1' && isPlainObject(api.webhooks) && Object.keys(api.webhooks).length > 0) {
    warnings.push('webhooks are callbacks the API makes, not operations; they are not tools');
  }

  const names = assignActionNames(rawOps, (m) => warnings.push(m));
  const include = matcherFor(config.include);
  const exclude = matcherFor(config.exclude);
  const securitySchemes = isPlainObject(api.components) && isPlainObject(api.components.securitySchemes) ? api.components.securitySchemes : {};
  const docSecurity = api.security;
  const docServer = serverUrl(api.servers);
  const configBase = normalizeBaseUrl(config.baseUrl);
  let warnedNoBase = false;

  const tools: RawTool[] = [];
  const operations: ConnectorOperation[] = [];
  const base = path.basename(documentPath);

  rawOps.forEach((raw, i) => {
    const { method, op, pathItem } = raw;
    const { action } = names[i];
    const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [];
    const matchName = raw.operationId ?? names[i].base;
    const where = `${method.toUpperCase()} ${raw.path}`;
    if (include && !include(matchName, tags)) {
      skipped.push({ method, path: raw.path, reason: 'not included' });
      return;
    }
    if (exclude && exclude(matchName, tags)) {
      skipped.push({ method, path: raw.path, reason: 'excluded' });
      return;
    }
    const toolId = formatToolId({ source: 'connector', connectorId: config.id, action });
    if (toolId === null) {
      skipped.push({ method, path: raw.path, reason: `no valid tool id for action ${JSON.stringify(action)}` });
      warnings.push(`${where}: no valid tool id for action ${JSON.stringify(action)}; skipped`);
      return;
    }

    // security
    const security = op.security !== undefined ? op.security : docSecurity;
    const requirements = Array.isArray(security) ? security.filter(isPlainObject) : [];
    const secured = requirements.some((r) => Object.keys(r).length > 0);
    const schemeNames = [...new Set(requirements.flatMap((r) => Object.keys(r)))].sort();
    const credentialCarriers = new Set<string>();
    for (const name of schemeNames) {
      const scheme = securitySchemes[name];
      if (isPlainObject(scheme) && scheme.type === 'apiKey' && typeof scheme.name === 'string' && typeof scheme.in === 'string') {
        credentialCarriers.add(paramKey(scheme.in, scheme.name));
      }
    }
    if (config.auth && (config.auth.type === 'header' || config.auth.type === 'query') && config.auth.name) {
      credentialCarriers.add(paramKey(config.auth.type, config.auth.name));
    }

    // parameters: path-item ones, overridden by operation ones
    const declared = new Map<string, Record<string, unknown>>();
    for (const list of [pathItem.parameters, op.parameters]) {
      if (!Array.isArray(list)) continue;
      for (const p of list) {
        if (!isPlainObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
        declared.set(paramKey(p.in, p.name), p);
      }
    }
    const params: Record<string, unknown>[] = [];
    for (const p of declared.values()) {
      const loc = p.in as string;
      const name = p.name as string;
      if (loc === 'cookie') continue;
      if (loc !== 'path' && loc !== 'query' && loc !== 'header') continue;
      if (loc === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue;
      if (credentialCarriers.has(paramKey(loc, name))) continue;
      params.push(p);
    }
    for (const m of raw.path.matchAll(/\{([^}]+)\}/g)) {
      if (!params.some((p) => p.in === 'path' && p.name === m[1])) {
        params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
      }
    }
    const locOrder: Record<string, number> = { path: 0, query: 1, header: 2 };
    params.sort((a, b) => locOrder[a.in as string] - locOrder[b.in as string]);

    // request body
    let bodyChoice: { mediaType: string; encoding: BodyEncoding; schema: unknown; required: boolean; description?: string } | undefined;
    const rb = op.requestBody;
    if (isPlainObject(rb) && isPlainObject(rb.content)) {
      const types = Object.keys(rb.content);
      const pick =
        types.find((t) => t.toLowerCase() === 'application/json') ??
        types.find(isJsonMedia) ??
        types.find((t) => t === '*/*') ??
        types.find((t) => t.toLowerCase().startsWith('application/x-www-form-urlencoded')) ??
        types.find((t) => t.toLowerCase().startsWith('text/plain'));
      const required = rb.required === true;
      if (pick === undefined) {
        if (types.length > 0) {
          const reason = `request body media types ${types.slice(0, 4).join(', ')} are not supported`;
          if (required) {
            skipped.push({ method, path: raw.path, reason });
            warnings.push(`${where}: ${reason}; skipped`);
            return;
          }
          warnings.push(`${where}: ${reason}; the optional body is left out`);
        }
      } else {
        const media = rb.content[pick];
        const lower = pick.toLowerCase();
        const encoding: BodyEncoding = lower.startsWith('application/x-www-form-urlencoded') ? 'form' : lower.startsWith('text/plain') ? 'text' : 'json';
        bodyChoice = {
          mediaType: pick === '*/*' ? 'application/json' : pick,
          encoding,
          schema: isPlainObject(media) ? media.schema : undefined,
          required,
          description: str(rb.description),
        };
      }
    }

    const reqCtx = newConvertContext(api, version, 'request', warnings, `${where} input schema`, graph);
    const properties: JsonObject = {};
    const required: string[] = [];
    const taken = new Set<string>();
    if (bodyChoice) taken.add('body');
    const connectorParams: ConnectorParameter[] = [];
    for (const p of params) {
      const loc = p.in as ParameterLocation;
      const name = p.name as string;
      let property = name;
      if (taken.has(property)) {
        property = `${loc}:${name}`;
        const stem = property;
        for (let n = 2; taken.has(property); n++) property = `${stem}_${n}`;
      }
      taken.add(property);
      const isRequired = loc === 'path' || p.required === true;
      let content: 'json' | 'text' | undefined;
      let schemaSource: unknown = p.schema;
      if (schemaSource === undefined && isPlainObject(p.content)) {
        const mt = Object.keys(p.content)[0];
        if (mt !== undefined) {
          content = isJsonMedia(mt) ? 'json' : 'text';
          const media = p.content[mt];
          schemaSource = isPlainObject(media) ? media.schema : undefined;
        }
      }
      let schema = convertSchema(schemaSource ?? {}, reqCtx, name);
      if (typeof schema === 'boolean') schema = {};
      const extra: JsonObject = {};
      if (typeof p.description === 'string') extra.description = p.description;
      if (p.deprecated === true) extra.deprecated = true;
      const schemaHasExamples = schema.examples !== undefined;
      if (!schemaHasExamples && !CREDENTIAL_NAME.test(name)) {
        const ex = cloneJson(paramExamples(p));
        if (Array.isArray(ex)) extra.examples = ex;
      }
      const propSchema: JsonObject = { ...schema, ...extra };
      setOwn(properties, property, propSchema);
      if (isRequired) required.push(property);
      const style = typeof p.style === 'string' && STYLES_BY_LOCATION[loc].includes(p.style as ParameterStyle) ? (p.style as ParameterStyle) : defaultStyle(loc);
      const explode = typeof p.explode === 'boolean' ? p.explode : style === 'form';
      connectorParams.push({ name, in: loc, property, required: isRequired, style, explode, ...(content ? { content } : {}), schema });
    }
    if (bodyChoice) {
      let schema = convertSchema(bodyChoice.schema ?? {}, reqCtx);
      if (typeof schema === 'boolean') schema = {};
      if (bodyChoice.description !== undefined && schema.description === undefined) schema = { ...schema, description: bodyChoice.description };
      properties.body = schema;
      if (bodyChoice.required) required.push('body');
    }
    const inputSchema = withDefs({ type: 'object', properties, required, additionalProperties: false }, reqCtx);

    // output schema and accept header
    const { outputSchema, responseMediaType } = outputFor(op, api, version, warnings, `${where} output schema`, graph);

    const opServer = serverUrl(op.servers) ?? serverUrl(pathItem.servers) ?? docServer;
    const baseUrl = configBase ?? normalizeBaseUrl(opServer);
    if (baseUrl === undefined && !warnedNoBase) {
      warnedNoBase = true;
      warnings.push(
        opServer === undefined
          ? 'the document names no server and the config no baseUrl; calls need a baseUrl'
          : `server url ${JSON.stringify(opServer.slice(0, 100))} is not an absolute http(s) URL; set baseUrl in the config`,
      );
    }

    const summary = str(op.summary)?.trim();
    const description = str(op.description)?.trim();
    const tool: RawTool = {
      source: 'connector',
      toolId,
      origin: `${base}#/paths/${pointerEscape(raw.path)}/${method}`,
      ...(summary ? { title: summary } : {}),
      ...(description || summary ? { description: description || summary } : {}),
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(secured ? { credentialRef: true } : {}),
      derived: classifyMethod(method),
      keywords: [...tags, method.toUpperCase(), raw.path],
      ...(config.mcpPrefix !== undefined ? { mcpPrefix: config.mcpPrefix } : {}),
    };
    tools.push(tool);
    operations.push({
      toolId,
      action,
      ...(raw.operationId !== undefined ? { operationId: raw.operationId } : {}),
      method: method.toUpperCase() as ConnectorOperation['method'],
      path: raw.path,
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      parameters: connectorParams,
      ...(bodyChoice ? { body: { property: 'body', mediaType: bodyChoice.mediaType, encoding: bodyChoice.encoding, required: bodyChoice.required } } : {}),
      ...(responseMediaType ? { responseMediaType } : {}),
      secured,
      securitySchemes: schemeNames,
      tags,
    });
  });

  tools.sort((a, b) => (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0));
  operations.sort((a, b) => (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0));
  const info = isPlainObject(api.info) ? api.info : {};
  return { version, ...(typeof info.title === 'string' ? { title: info.title } : {}), tools, operations, skipped, warnings: [...new Set(warnings)] };
}

function paramExamples(p: Record<string, unknown>): unknown[] | undefined {
  if (p.example !== undefined) return [p.example];
  if (isPlainObject(p.examples)) {
    const values = Object.values(p.examples)
      .filter(isPlainObject)
      .filter((e) => e.value !== undefined)
      .map((e) => e.value);
    if (values.length > 0) return values;
  }
  return undefined;
}

function outputFor(
  op: Record<string, unknown>,
  api: Record<string, unknown>,
  version: OasVersion,
  warnings: string[],
  label: string,
  graph: DocumentGraph,
): { outputSchema?: JsonObject; responseMediaType?: string } {
  if (!isPlainObject(op.responses)) return {};
  const codes = Object.keys(op.responses)
    .filter((c) => /^2\d\d$/.test(c))
    .sort();
  if (Object.keys(op.responses).some((c) => c.toUpperCase() === '2XX')) {
    codes.push(Object.keys(op.responses).find((c) => c.toUpperCase() === '2XX') as string);
  }
  for (const code of codes) {
    const resp = op.responses[code];
    if (!isPlainObject(resp) || !isPlainObject(resp.content)) continue;
    const mt = Object.keys(resp.content).find((t) => t.toLowerCase() === 'application/json') ?? Object.keys(resp.content).find(isJsonMedia);
    if (mt === undefined) continue;
    const media = resp.content[mt];
    const source = isPlainObject(media) ? media.schema : undefined;
    if (source === undefined) return { responseMediaType: mt };
    const ctx = newConvertContext(api, version, 'response', warnings, label, graph);
    const converted = convertSchema(source, ctx);
    const objectSchema = asObjectSchema(converted, ctx);
    return { responseMediaType: mt, ...(objectSchema ? { outputSchema: withDefs(objectSchema, ctx) } : {}) };
  }
  return {};
}

/** The schema as a top-level object schema, or undefined when it does not describe an object. */
function asObjectSchema(schema: JsonObject | boolean, ctx: ConvertContext): JsonObject | undefined {
  if (typeof schema === 'boolean') return undefined;
  let s = schema;
  // A top-level `$ref` (a circular type): lift the definition to the top; refs inside still resolve via $defs.
  const seen = new Set<string>();
  while (typeof s.$ref === 'string' && s.$ref.startsWith('#/$defs/') && !seen.has(s.$ref)) {
    seen.add(s.$ref);
    const def = ctx.defs[s.$ref.slice('#/$defs/'.length)];
    if (typeof def !== 'object') return undefined;
    const { $ref: _ref, ...rest } = s;
    s = { ...def, ...rest };
  }
  if (s.type === 'object') return s;
  if (s.type === undefined && isPlainObject(s.properties) && s.$ref === undefined) return { type: 'object', ...s };
  return undefined;
}

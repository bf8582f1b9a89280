// Converts a dereferenced OpenAPI document into RawTools and the
// ConnectorOperations that describe how to call them (docs/config.md,
// "`sources.connectors[]`"): operations listed and filtered by the config's
// include/exclude, each converted in named steps (security, parameters,
// request body, input schema in operation-input.ts; output schema in
// operation-output.ts; base URL here), tools sorted by toolId.
import { escapePointerSegment, isPlainObject } from '../../util/json.js';
import type { Classification } from '../../contract/descriptor.js';
import { compileGlobs } from '../../contract/glob.js';
import { formatToolId } from '../../contract/tool-id.js';
import type { RawTool } from '../raw-tool.js';
import type { ConnectorSelector, ConnectorSourceConfig } from './config-schema.js';
import { HTTP_METHODS, assignActionNames, type HttpMethod } from './naming.js';
import { chooseBody, inputFor, parametersFor, securityFor, type OpenApiObject } from './operation-input.js';
import { outputFor } from './operation-output.js';
import { analyzeDocument, newConvertContext, type DocumentGraph, type OasVersion } from './schema-convert.js';
import type { ConnectorOperation } from './types.js';

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

interface RawOp {
  method: HttpMethod;
  path: string;
  pathItem: OpenApiObject;
  op: OpenApiObject;
  operationId?: string;
}

/** What every operation of one document shares while it is converted. */
interface DocumentContext {
  config: ConnectorSourceConfig;
  api: OpenApiObject;
  version: OasVersion;
  graph: DocumentGraph;
  /** The document's file name, for `origin`. */
  label: string;
  warnings: string[];
  skipped: SkippedOperation[];
  include: OperationMatcher | undefined;
  exclude: OperationMatcher | undefined;
  securitySchemes: OpenApiObject;
  docServer: string | undefined;
  configBase: string | undefined;
  warnedNoBase: boolean;
}

type OperationMatcher = (name: string, tags: string[]) => boolean;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function matcherFor(sel: ConnectorSelector | undefined): OperationMatcher | undefined {
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

/** The tools and call descriptions of a dereferenced document; `label` (its file name) goes into each tool's `origin`. */
export function buildOperations(config: ConnectorSourceConfig, api: OpenApiObject, version: OasVersion, label: string): LoadedConnectorDocument {
  const warnings: string[] = [];
  const rawOps = listOperations(api);
  if (version === '3.1' && isPlainObject(api.webhooks) && Object.keys(api.webhooks).length > 0) {
    warnings.push('webhooks are callbacks the API makes, not operations; they are not tools');
  }
  const names = assignActionNames(rawOps, (m) => warnings.push(m));
  const ctx: DocumentContext = {
    config,
    api,
    version,
    graph: analyzeDocument(api),
    label,
    warnings,
    skipped: [],
    include: matcherFor(config.include),
    exclude: matcherFor(config.exclude),
    securitySchemes: isPlainObject(api.components) && isPlainObject(api.components.securitySchemes) ? api.components.securitySchemes : {},
    docServer: serverUrl(api.servers),
    configBase: normalizeBaseUrl(config.baseUrl),
    warnedNoBase: false,
  };
  const tools: RawTool[] = [];
  const operations: ConnectorOperation[] = [];
  rawOps.forEach((raw, i) => {
    const converted = convertOperation(ctx, raw, names[i]);
    if (!converted) return;
    tools.push(converted.tool);
    operations.push(converted.operation);
  });
  tools.sort((a, b) => (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0));
  operations.sort((a, b) => (a.toolId < b.toolId ? -1 : a.toolId > b.toolId ? 1 : 0));
  const info = isPlainObject(api.info) ? api.info : {};
  return { version, ...(typeof info.title === 'string' ? { title: info.title } : {}), tools, operations, skipped: ctx.skipped, warnings: [...new Set(warnings)] };
}

/** Every operation under `paths`, in document order. */
function listOperations(api: OpenApiObject): RawOp[] {
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
  return rawOps;
}

/** One operation as a tool and its call description, or undefined when it is filtered out or cannot be offered (noted in `skipped`). */
function convertOperation(ctx: DocumentContext, raw: RawOp, name: { action: string; base: string }): { tool: RawTool; operation: ConnectorOperation } | undefined {
  const { method, op, pathItem } = raw;
  const { action } = name;
  const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [];
  const matchName = raw.operationId ?? name.base;
  const where = `${method.toUpperCase()} ${raw.path}`;
  const skip = (reason: string): undefined => {
    ctx.skipped.push({ method, path: raw.path, reason });
    return undefined;
  };
  if (ctx.include && !ctx.include(matchName, tags)) return skip('not included');
  if (ctx.exclude && ctx.exclude(matchName, tags)) return skip('excluded');
  const toolId = formatToolId({ source: 'connector', connectorId: ctx.config.id, action });
  if (toolId === null) {
    skip(`no valid tool id for action ${JSON.stringify(action)}`);
    ctx.warnings.push(`${where}: no valid tool id for action ${JSON.stringify(action)}; skipped`);
    return undefined;
  }

  const { secured, schemeNames, credentialCarriers } = securityFor(op, ctx.api.security, ctx.securitySchemes, ctx.config.auth);
  const params = parametersFor(raw.path, pathItem, op, credentialCarriers);
  const { body, unsupported } = chooseBody(op);
  if (unsupported) {
    if (unsupported.required) {
      skip(unsupported.reason);
      ctx.warnings.push(`${where}: ${unsupported.reason}; skipped`);
      return undefined;
    }
    ctx.warnings.push(`${where}: ${unsupported.reason}; the optional body is left out`);
  }
  const reqCtx = newConvertContext(ctx.api, ctx.version, 'request', ctx.warnings, `${where} input schema`, ctx.graph);
  const { inputSchema, parameters } = inputFor(params, body, reqCtx);
  const { outputSchema, responseMediaType } = outputFor(op, ctx.api, ctx.version, ctx.warnings, `${where} output schema`, ctx.graph);
  const baseUrl = baseUrlFor(ctx, op, pathItem);

  const summary = str(op.summary)?.trim();
  const description = str(op.description)?.trim();
  const tool: RawTool = {
    source: 'connector',
    toolId,
    origin: `${ctx.label}#/paths/${escapePointerSegment(raw.path)}/${method}`,
    ...(summary ? { title: summary } : {}),
    ...(description || summary ? { description: description || summary } : {}),
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    ...(secured ? { credentialRef: true } : {}),
    derived: classifyMethod(method),
    keywords: [...tags, method.toUpperCase(), raw.path],
    ...(isPlainObject(ctx.api.info) && typeof ctx.api.info.title === 'string' ? { sourceTitle: ctx.api.info.title.slice(0, 200) } : {}),
    ...(ctx.config.mcpPrefix !== undefined ? { mcpPrefix: ctx.config.mcpPrefix } : {}),
  };
  const operation: ConnectorOperation = {
    toolId,
    action,
    ...(raw.operationId !== undefined ? { operationId: raw.operationId } : {}),
    method: method.toUpperCase() as ConnectorOperation['method'],
    path: raw.path,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    parameters,
    ...(body ? { body: { property: 'body', mediaType: body.mediaType, encoding: body.encoding, required: body.required } } : {}),
    ...(responseMediaType ? { responseMediaType } : {}),
    secured,
    securitySchemes: schemeNames,
    tags,
  };
  return { tool, operation };
}

/** The configured baseUrl, else the operation's, path item's or document's first server; warns once when there is none. */
function baseUrlFor(ctx: DocumentContext, op: OpenApiObject, pathItem: OpenApiObject): string | undefined {
  const opServer = serverUrl(op.servers) ?? serverUrl(pathItem.servers) ?? ctx.docServer;
  const baseUrl = ctx.configBase ?? normalizeBaseUrl(opServer);
  if (baseUrl === undefined && !ctx.warnedNoBase) {
    ctx.warnedNoBase = true;
    ctx.warnings.push(
      opServer === undefined
        ? 'the document names no server and the config no baseUrl; calls need a baseUrl'
        : `server url ${JSON.stringify(opServer.slice(0, 100))} is not an absolute http(s) URL; set baseUrl in the config`,
    );
  }
  return baseUrl;
}

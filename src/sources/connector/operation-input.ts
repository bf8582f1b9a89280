// The input side of one OpenAPI operation (docs/config.md,
// "`sources.connectors[]`"): which security schemes apply and which
// parameters the host supplies, the parameters and the request body the
// caller supplies, and the one object schema that holds them.
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
import { mentionsCredential } from '../../contract/credential-names.js';
import { isPlainObject, setOwn } from '../../util/json.js';
import type { JsonObject } from '../../contract/descriptor.js';
import type { ConnectorSourceConfig } from './config-schema.js';
import { isJsonMedia } from './operation-output.js';
import { toJsonData, convertSchema, withDefs, type ConvertContext } from './schema-convert.js';
import type { BodyEncoding, ConnectorParameter, ParameterLocation, ParameterStyle } from './types.js';

export type OpenApiObject = Record<string, unknown>;

export interface OperationSecurity {
  /** Some security requirement of the operation names a scheme. */
  secured: boolean;
  /** The scheme names of its requirements, sorted. */
  schemeNames: string[];
  /** Parameters the host supplies (`paramKey` form): apiKey carriers and the configured auth header/query. */
  credentialCarriers: Set<string>;
}

export interface BodyChoice {
  mediaType: string;
  encoding: BodyEncoding;
  schema: unknown;
  required: boolean;
  description?: string;
}

const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

const LOCATION_ORDER: Record<string, number> = { path: 0, query: 1, header: 2 };

const STYLES_BY_LOCATION: Record<ParameterLocation, ParameterStyle[]> = {
  path: ['simple', 'label', 'matrix'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  header: ['simple'],
};

function paramKey(loc: string, name: string): string {
  return loc === 'header' ? `header\u0000${name.toLowerCase()}` : `${loc}\u0000${name}`;
}

function defaultStyle(loc: ParameterLocation): ParameterStyle {
  return loc === 'query' ? 'form' : 'simple';
}

/** The operation's security (its own `security`, else the document's). */
export function securityFor(op: OpenApiObject, docSecurity: unknown, securitySchemes: OpenApiObject, auth: ConnectorSourceConfig['auth']): OperationSecurity {
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
  if (auth && (auth.type === 'header' || auth.type === 'query') && auth.name) {
    credentialCarriers.add(paramKey(auth.type, auth.name));
  }
  return { secured, schemeNames, credentialCarriers };
}

/** The parameters the caller supplies: path-item ones overridden by operation ones, path template variables added, in location order. */
export function parametersFor(path: string, pathItem: OpenApiObject, op: OpenApiObject, credentialCarriers: Set<string>): OpenApiObject[] {
  const declared = new Map<string, OpenApiObject>();
  for (const list of [pathItem.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      if (!isPlainObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      declared.set(paramKey(p.in, p.name), p);
    }
  }
  const params: OpenApiObject[] = [];
  for (const p of declared.values()) {
    const loc = p.in as string;
    const name = p.name as string;
    if (loc === 'cookie') continue;
    if (loc !== 'path' && loc !== 'query' && loc !== 'header') continue;
    if (loc === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue;
    if (credentialCarriers.has(paramKey(loc, name))) continue;
    params.push(p);
  }
  for (const m of path.matchAll(/\{([^}]+)\}/g)) {
    if (!params.some((p) => p.in === 'path' && p.name === m[1])) {
      params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  params.sort((a, b) => LOCATION_ORDER[a.in as string] - LOCATION_ORDER[b.in as string]);
  return params;
}

/**
 * The request body the tool exposes: `body` when a supported media type is
 * offered; `unsupported` (with the reason) when only other types are.
 */
export function chooseBody(op: OpenApiObject): { body?: BodyChoice; unsupported?: { reason: string; required: boolean } } {
  const rb = op.requestBody;
  if (!isPlainObject(rb) || !isPlainObject(rb.content)) return {};
  const types = Object.keys(rb.content);
  const pick =
    types.find((t) => t.toLowerCase() === 'application/json') ??
    types.find(isJsonMedia) ??
    types.find((t) => t === '*/*') ??
    types.find((t) => t.toLowerCase().startsWith('application/x-www-form-urlencoded')) ??
    types.find((t) => t.toLowerCase().startsWith('text/plain'));
  const required = rb.required === true;
  if (pick === undefined) {
    if (types.length === 0) return {};
    return { unsupported: { reason: `request body media types ${types.slice(0, 4).join(', ')} are not supported`, required } };
  }
  const media = rb.content[pick];
  const lower = pick.toLowerCase();
  const encoding: BodyEncoding = lower.startsWith('application/x-www-form-urlencoded') ? 'form' : lower.startsWith('text/plain') ? 'text' : 'json';
  return {
    body: {
      mediaType: pick === '*/*' ? 'application/json' : pick,
      encoding,
      schema: isPlainObject(media) ? media.schema : undefined,
      required,
      description: typeof rb.description === 'string' ? rb.description : undefined,
    },
  };
}

/** The tool's input schema (one object: parameters and `body`) and how each parameter is sent. */
export function inputFor(params: OpenApiObject[], body: BodyChoice | undefined, ctx: ConvertContext): { inputSchema: JsonObject; parameters: ConnectorParameter[] } {
  const properties: JsonObject = {};
  const required: string[] = [];
  const taken = new Set<string>();
  if (body) taken.add('body');
  const parameters: ConnectorParameter[] = [];
  for (const p of params) {
    const loc = p.in as ParameterLocation;
    const name = p.name as string;
    const property = freeName(name, loc, taken);
    const isRequired = loc === 'path' || p.required === true;
    const { schema, content } = parameterSchema(p, name, ctx);
    const extra: JsonObject = {};
    if (typeof p.description === 'string') extra.description = p.description;
    if (p.deprecated === true) extra.deprecated = true;
    const schemaHasExamples = schema.examples !== undefined;
    if (!schemaHasExamples && !mentionsCredential(name)) {
      const ex = toJsonData(paramExamples(p));
      if (Array.isArray(ex)) extra.examples = ex;
    }
    setOwn(properties, property, { ...schema, ...extra });
    if (isRequired) required.push(property);
    const style = typeof p.style === 'string' && STYLES_BY_LOCATION[loc].includes(p.style as ParameterStyle) ? (p.style as ParameterStyle) : defaultStyle(loc);
    const explode = typeof p.explode === 'boolean' ? p.explode : style === 'form';
    parameters.push({ name, in: loc, property, required: isRequired, style, explode, ...(content ? { content } : {}), schema });
  }
  if (body) {
    let schema = convertSchema(body.schema ?? {}, ctx);
    if (typeof schema === 'boolean') schema = {};
    if (body.description !== undefined && schema.description === undefined) schema = { ...schema, description: body.description };
    properties.body = schema;
    if (body.required) required.push('body');
  }
  return { inputSchema: withDefs({ type: 'object', properties, required, additionalProperties: false }, ctx), parameters };
}

/** The parameter's name, or `<in>:<name>` (then `_2`, ...) when that is taken; marks it taken. */
function freeName(name: string, loc: ParameterLocation, taken: Set<string>): string {
  let property = name;
  if (taken.has(property)) {
    property = `${loc}:${name}`;
    const stem = property;
    for (let n = 2; taken.has(property); n++) property = `${stem}_${n}`;
  }
  taken.add(property);
  return property;
}

/** The converted schema of a parameter: its `schema`, else the schema of its first `content` media type. */
function parameterSchema(p: OpenApiObject, name: string, ctx: ConvertContext): { schema: JsonObject; content?: 'json' | 'text' } {
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
  const schema = convertSchema(schemaSource ?? {}, ctx, name);
  return { schema: typeof schema === 'boolean' ? {} : schema, content };
}

function paramExamples(p: OpenApiObject): unknown[] | undefined {
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

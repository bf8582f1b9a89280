// The call-time description of one connector operation: everything the
// invocation layer needs to turn tool arguments into an HTTP request
// (buildHttpRequest), and nothing secret.
import type { JsonObject } from '../../contract/descriptor.js';
import type { HttpMethod } from './naming.js';

export type ParameterLocation = 'path' | 'query' | 'header';
export type ParameterStyle = 'simple' | 'label' | 'matrix' | 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';

export interface ConnectorParameter {
  /** Name on the wire (path template variable, query key, header name). */
  name: string;
  in: ParameterLocation;
  /** Key of the argument in the tool's input object (usually `name`; see parameter rules). */
  property: string;
  required: boolean;
  style: ParameterStyle;
  explode: boolean;
  /** Parameter declared with `content` (not `schema`): the value is sent JSON-encoded (or as text). */
  content?: 'json' | 'text';
  /** The converted JSON Schema of the value (as in the tool's input schema, without `$defs`). */
  schema: JsonObject | boolean;
}

export type BodyEncoding = 'json' | 'form' | 'text';

export interface ConnectorRequestBody {
  /** Always `body`. */
  property: string;
  /** The media type sent as `content-type`. */
  mediaType: string;
  encoding: BodyEncoding;
  required: boolean;
}

export interface ConnectorOperation {
  toolId: string;
  /** The `<action>` part of the toolId. */
  action: string;
  /** Upstream operationId, if any. */
  operationId?: string;
  /** Upper-case HTTP method. */
  method: Uppercase<HttpMethod>;
  /** Path template from the document, e.g. `/pets/{petId}`. */
  path: string;
  /** Config `baseUrl`, else the operation's, path item's or document's first absolute server url; undefined when none is usable. */
  baseUrl?: string;
  parameters: ConnectorParameter[];
  body?: ConnectorRequestBody;
  /** Media type of the 2xx JSON response, sent as `accept`. */
  responseMediaType?: string;
  /** A non-empty security requirement applies (operation-level, else document-level). */
  secured: boolean;
  /** Names of the security schemes the requirement mentions (names only). */
  securitySchemes: string[];
  tags: string[];
}

export interface ConnectorHttpRequest {
  method: string;
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body?: string;
}

// HTTP APIs as connectors: the operations of a local OpenAPI 3.0/3.1 document
// become `connector:<connectorId>.<action>` tools. See README.md beside this
// file for the id, parameter and schema rules.
export { createConnectorSource, type ConnectorToolSource } from './source.js';
export {
  connectorSourceConfigSchema,
  CONNECTOR_DEFAULTS,
  type ConnectorSourceConfig,
  type ConnectorAuthConfig,
  type ConnectorAuthType,
  type ConnectorSecretRef,
  type ConnectorSelector,
} from './config-schema.js';
export { resolveConnectorSecret, ConnectorSecretError } from './secret.js';
export { callConnectorOperation, MAX_CONNECTOR_RESPONSE_BYTES, type ConnectorCallOptions, type ConnectorCallOutcome } from './call.js';
export { secretValues } from './scrub.js';
export { buildHttpRequest, applyConnectorAuth, ConnectorRequestError } from './http-request.js';
export {
  loadConnectorDocument,
  convertOpenApiText,
  ConnectorDocumentError,
  type LoadedConnectorDocument,
  type SkippedOperation,
} from './document.js';
export { classifyMethod } from './operations.js';
export { sanitizeName, deriveName, type HttpMethod } from './naming.js';
export type {
  ConnectorOperation,
  ConnectorParameter,
  ConnectorRequestBody,
  ConnectorHttpRequest,
  ParameterLocation,
  ParameterStyle,
  BodyEncoding,
} from './types.js';

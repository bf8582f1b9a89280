// The v2 discovery document (docs/contract.md "Discovery"): served unauthenticated
// at /.well-known/openwop, with the toolCatalog family record listing only
// the sources this host really projects. Built once at start.
//
// The record claims no more maturity than the spec declares: v2 declares the
// toolCatalog family `experimental`, and an experimental record must say
// until when (`until`, a `<major>.<minor>` or a `YYYY-MM-DD` not in the past).
import { SOURCES, type Source } from '../contract/descriptor.js';
import { Body } from '../catalog/body.js';
import { IMPLEMENTATION, PROTOCOL_VERSION } from '../contract/protocol.js';

/** The family's maturity as the v2 spec declares it, and the protocol version up to which we hold the record's shape. */
export const TOOL_CATALOG_STATUS = 'experimental';
export const TOOL_CATALOG_UNTIL = '2.1';

export interface DiscoveryOptions {
  sessionLifecycle?: boolean;
}

export interface Discovery {
  document: Record<string, unknown>;
  body: Body;
}

export function buildDiscovery(projected: readonly Source[], options: DiscoveryOptions = {}): Discovery {
  const toolCatalog: Record<string, unknown> = {
    status: TOOL_CATALOG_STATUS,
    since: '2.0',
    until: TOOL_CATALOG_UNTIL,
    witness: 'witnessable-gated',
    sources: SOURCES.filter((s) => projected.includes(s)),
    compactView: true,
  };
  if (options.sessionLifecycle) toolCatalog.sessionLifecycle = true;
  const document = {
    protocolVersions: [PROTOCOL_VERSION],
    preferredVersion: PROTOCOL_VERSION,
    implementation: IMPLEMENTATION,
    toolCatalog,
  };
  return { document, body: Body.json(JSON.stringify(document)) };
}

// The v2 discovery document (CONTRACT.md "Discovery"): served unauthenticated
// at /.well-known/openwop, with the toolCatalog family record listing only
// the sources this host really projects. Built once at start.
import { SOURCES, type Source } from '../contract/descriptor.js';
import { Body } from '../catalog/body.js';
import { IMPLEMENTATION, PROTOCOL_VERSION } from '../contract/protocol.js';

export interface DiscoveryOptions {
  sessionLifecycle?: boolean;
}

export interface Discovery {
  document: Record<string, unknown>;
  body: Body;
}

export function buildDiscovery(projected: readonly Source[], options: DiscoveryOptions = {}): Discovery {
  const toolCatalog: Record<string, unknown> = {
    status: 'stable',
    since: '2.0',
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

// The annotation table: the one place MCP ToolAnnotations hints are derived
// from the host's classification (docs/contract.md "The descriptor", RFC 0204). Upstream
// MCP defaults (destructiveHint/openWorldHint default true) never fill a hint.
import type { Egress, ReplayPolicy, SafetyTier, ToolAnnotations } from './descriptor.js';

export function deriveAnnotations(
  safetyTier: SafetyTier,
  replayPolicy: ReplayPolicy | undefined,
  egress: Egress | undefined,
): ToolAnnotations {
  return {
    readOnlyHint: safetyTier === 'pure' || safetyTier === 'read',
    destructiveHint: safetyTier === 'write' || safetyTier === 'exec',
    idempotentHint: replayPolicy === 'deterministic' || replayPolicy === 'idempotent',
    // An absent egress is unknown reach, which is open world.
    openWorldHint: egress !== 'none',
  };
}

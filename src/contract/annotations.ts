// The annotation table: the one place MCP ToolAnnotations hints are derived
// from the host's classification (docs/contract.md "The descriptor", RFC 0204). Upstream
// MCP defaults (destructiveHint/openWorldHint default true) never fill a hint.
import type { Egress, ReplayPolicy, SafetyTier, ToolAnnotations } from './descriptor.js';

/** Whether a tool of this tier changes nothing (MCP's readOnlyHint; what `events.writeAhead: changes` leaves out). */
export function isReadOnlyTier(safetyTier: SafetyTier): boolean {
  return safetyTier === 'pure' || safetyTier === 'read';
}

export function deriveAnnotations(
  safetyTier: SafetyTier,
  replayPolicy: ReplayPolicy | undefined,
  egress: Egress | undefined,
): ToolAnnotations {
  return {
    readOnlyHint: isReadOnlyTier(safetyTier),
    destructiveHint: safetyTier === 'write' || safetyTier === 'exec',
    idempotentHint: replayPolicy === 'deterministic' || replayPolicy === 'idempotent',
    // An absent egress is unknown reach, which is open world.
    openWorldHint: egress !== 'none',
  };
}

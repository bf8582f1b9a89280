// A workflow is classified from its steps unless a host rule says otherwise
// (docs/config.md "Workflows": the most severe tier among them). An exec step makes the workflow
// `write` with approval `always`: exec stays reserved to host extensions.
import type { Approval, Classification, Egress, ReplayPolicy, SafetyTier } from '../contract/descriptor.js';

const TIER_ORDER: SafetyTier[] = ['pure', 'read', 'write', 'exec'];
const EGRESS_ORDER: Egress[] = ['none', 'safe-fetch', 'host-mediated', 'host-owned'];
const APPROVAL_ORDER: Approval[] = ['never', 'conditional', 'always'];

export function classifyFromSteps(steps: readonly Classification[]): Classification {
  let tier = 0;
  let egress: number | undefined = 0;
  let approval = -1;
  let replay: ReplayPolicy = 'deterministic';
  for (const s of steps) {
    tier = Math.max(tier, TIER_ORDER.indexOf(s.safetyTier));
    // An unknown egress is unknown reach: the workflow's egress is unknown too.
    egress = s.egress === undefined || egress === undefined ? undefined : Math.max(egress, EGRESS_ORDER.indexOf(s.egress));
    if (s.approval !== undefined) approval = Math.max(approval, APPROVAL_ORDER.indexOf(s.approval));
    if (s.replayPolicy === undefined || s.replayPolicy === 'non-deterministic') replay = 'non-deterministic';
    else if (s.replayPolicy === 'idempotent' && replay === 'deterministic') replay = 'idempotent';
  }
  const out: Classification = { safetyTier: TIER_ORDER[tier], replayPolicy: replay };
  if (egress !== undefined) out.egress = EGRESS_ORDER[egress];
  if (approval >= 0) out.approval = APPROVAL_ORDER[approval];
  if (out.safetyTier === 'exec') {
    out.safetyTier = 'write';
    out.approval = 'always';
  }
  return out;
}

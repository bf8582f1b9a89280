// Turns one classified RawTool into its ToolDescriptor (seed "The
// descriptor"): fixed key order so equal content serializes to equal bytes,
// annotations from the one annotation table, credential material removed.
import { deriveAnnotations } from '../contract/annotations.js';
import type { Classification, JsonObject, ToolDescriptor } from '../contract/descriptor.js';
import type { RawTool } from '../sources/raw-tool.js';
import { redactCredentials } from './redact.js';

export interface DescribeResult {
  descriptor: ToolDescriptor;
  /** JSON pointers (into the descriptor) of credential material that was removed. */
  redacted: string[];
}

export function describeTool(raw: RawTool, classification: Classification, scopes: readonly string[]): DescribeResult {
  const d: ToolDescriptor = { toolId: raw.toolId, source: raw.source, safetyTier: classification.safetyTier };
  const redacted: string[] = [];
  const clean = <T extends string | JsonObject>(field: string, value: T): T => {
    const r = redactCredentials(value);
    for (const p of r.redacted) redacted.push(`/${field}${p}`);
    return r.value;
  };
  if (raw.title !== undefined) d.title = clean('title', raw.title);
  if (raw.description !== undefined) d.description = clean('description', raw.description);
  if (raw.inputSchema !== undefined) d.inputSchema = clean('inputSchema', raw.inputSchema);
  if (raw.outputSchema !== undefined) d.outputSchema = clean('outputSchema', raw.outputSchema);
  const allScopes = [...new Set([...(raw.scopes ?? []), ...scopes])].sort();
  if (allScopes.length > 0 || raw.credentialRef) {
    d.auth = {};
    if (allScopes.length > 0) d.auth.scopes = allScopes;
    if (raw.credentialRef) d.auth.credentialRef = true;
  }
  if (classification.egress !== undefined) d.egress = classification.egress;
  if (classification.approval !== undefined) d.approval = classification.approval;
  if (classification.replayPolicy !== undefined) d.replayPolicy = classification.replayPolicy;
  if (classification.costHint !== undefined) d.costHint = classification.costHint;
  if (classification.latencyHint !== undefined) d.latencyHint = classification.latencyHint;
  d.annotations = deriveAnnotations(classification.safetyTier, classification.replayPolicy, classification.egress);
  return { descriptor: d, redacted };
}

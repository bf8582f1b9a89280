// The one visibility rule (docs/contract.md "The catalog": the list holds only tools the
// caller may invoke in its tenant). A tool is visible when it matches the
// tenant's allowlist and the caller holds every scope in its auth.scopes; a
// workflow additionally needs every step visible to the same caller, so a
// workflow is never a way around the allowlist. List, by-id, compact view and
// invocation all ask this function, through the snapshot.
import { compileGlobs } from '../contract/glob.js';
import type { BuiltTool } from './build.js';

export interface Caller {
  tenant: string;
  scopes: ReadonlySet<string>;
}

export interface TenantPolicy {
  id: string;
  allows: (toolId: string) => boolean;
}

export function compileTenant(id: string, allowlist: readonly string[]): TenantPolicy {
  return { id, allows: compileGlobs(allowlist) };
}

/** The toolIds visible to a caller of `tenant` holding `scopes`. */
export function visibleToolIds(tools: readonly BuiltTool[], byId: (toolId: string) => BuiltTool | undefined, tenant: TenantPolicy, scopes: ReadonlySet<string>): Set<string> {
  const decided = new Map<string, boolean>();
  const visible = (tool: BuiltTool, depth: number): boolean => {
    const id = tool.descriptor.toolId;
    const known = decided.get(id);
    if (known !== undefined) return known;
    decided.set(id, false); // a cycle (refused at build) can never make a tool visible
    let ok = tenant.allows(id) && (tool.descriptor.auth?.scopes ?? []).every((s) => scopes.has(s));
    if (ok && tool.raw.steps) {
      ok = depth < 64 && tool.raw.steps.every((step) => {
        const inner = byId(step);
        return inner !== undefined && visible(inner, depth + 1);
      });
    }
    decided.set(id, ok);
    return ok;
  };
  const out = new Set<string>();
  for (const t of tools) if (visible(t, 0)) out.add(t.descriptor.toolId);
  return out;
}

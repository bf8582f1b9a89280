// The provider-profile projection of the catalog (docs/compact-view.md
// "Provider profiles"): per tool, the compact descriptor with the profile's
// input schema and the `profile` marker, serialized once per descriptor and
// profile; per caller view, the list body joined from those bytes once, on
// first use. A tool's translation plan lives next to its bytes, so a call
// made in the profile's form is mapped back without redoing the rewrite.
import type { JsonObject, ToolDescriptor } from '../../contract/descriptor.js';
import { Body } from '../body.js';
import { compactDescriptor } from '../compact-descriptor.js';
import type { CallerView } from '../snapshot.js';
import type { Breach } from './check.js';
import { type Plan, SAME, back } from './plan.js';
import { profileSchema } from './profile-schema.js';
import type { ProfileId } from './rules.js';

/** What a profiled descriptor says of its fit (the marker, also `_meta["toolhost/profile"]` on MCP). */
export interface ProfileMarker {
  id: ProfileId;
  fits: boolean;
  breaks?: Breach[];
  loosened?: string[];
}

export interface ProfiledTool {
  readonly descriptor: JsonObject & { inputSchema?: JsonObject; description?: string; profile: ProfileMarker };
  readonly plan: Plan;
  readonly body: Body;
}

const MAX_BREAKS = 20;
const byDescriptor = new WeakMap<ToolDescriptor, Map<ProfileId, ProfiledTool>>();
const lists = new WeakMap<CallerView, Map<ProfileId, Body>>();

function make(d: ToolDescriptor, profile: ProfileId): ProfiledTool {
  const base = compactDescriptor(d) as JsonObject & { inputSchema?: JsonObject };
  let plan: Plan = SAME;
  let marker: ProfileMarker = { id: profile, fits: true };
  const descriptor = { ...base } as ProfiledTool['descriptor'];
  const input = d.inputSchema;
  if (input !== undefined) {
    const p = profileSchema(profile, input);
    descriptor.inputSchema = p.schema;
    plan = p.plan;
    marker = { id: profile, fits: p.breaks.length === 0 };
    if (p.breaks.length > 0) marker.breaks = p.breaks.slice(0, MAX_BREAKS);
    if (p.loosened.length > 0) marker.loosened = p.loosened;
  }
  descriptor.profile = marker;
  return { descriptor, plan, body: Body.json(JSON.stringify(descriptor)) };
}

export function profiledTool(d: ToolDescriptor, profile: ProfileId): ProfiledTool {
  let m = byDescriptor.get(d);
  if (m === undefined) byDescriptor.set(d, (m = new Map()));
  let t = m.get(profile);
  if (t === undefined) m.set(profile, (t = make(d, profile)));
  return t;
}

/** `{"tools":[…]}` of a caller's view in a profile: joined once per view (so once per snapshot), from each tool's bytes. */
export function profileListBody(view: CallerView, profile: ProfileId): Body {
  let m = lists.get(view);
  if (m === undefined) lists.set(view, (m = new Map()));
  let body = m.get(profile);
  if (body === undefined) {
    const parts: Buffer[] = [Buffer.from('{"tools":[')];
    view.entries.forEach((e, i) => {
      if (i > 0) parts.push(Buffer.from(','));
      parts.push(profiledTool(e.tool.descriptor, profile).body.bytes);
    });
    parts.push(Buffer.from(']}'));
    m.set(profile, (body = new Body(Buffer.concat(parts))));
  }
  return body;
}

/** A call's arguments in the profile's form, in the tool's own (throws BackError with path and rule). */
export function argumentsBack(d: ToolDescriptor, profile: ProfileId, args: unknown): unknown {
  return back(args, profiledTool(d, profile).plan);
}

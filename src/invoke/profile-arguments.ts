// A call's arguments sent in a provider profile's form (a model obeying
// OpenAI strict mode sends null for what it leaves unset, key/value pairs
// for a map): mapped back to the tool's own form before they are validated
// against the tool's schema (docs/compact-view.md "Arguments translated back").
import { BackError } from '../catalog/profiles/plan.js';
import { argumentsBack } from '../catalog/profiles/profiled.js';
import type { ProfileId } from '../catalog/profiles/rules.js';
import type { ToolDescriptor } from '../contract/descriptor.js';

/** The arguments in the tool's form, or the problem (path and rule) that keeps them from it. */
export function profileArguments(d: ToolDescriptor, profile: ProfileId, args: unknown): { args: unknown; problem?: string } {
  try {
    return { args: argumentsBack(d, profile, args) };
  } catch (e) {
    if (e instanceof BackError) return { args, problem: `${e.message} (arguments in the ${profile} profile's form)` };
    throw e;
  }
}

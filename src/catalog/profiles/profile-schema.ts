// A tool's input schema for one provider profile (docs/compact-view.md
// "Provider profiles"): the compact rewrite, its properties in the 2020-12
// spelling the compact view serves (closeTopLevel), the top level kept open
// enough for the profile (`required`, `additionalProperties`), then
// rewritten for the provider and held against its published rules.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject } from '../../util/json.js';
import { closeTopLevel } from '../compact/close-top-level.js';
import { compactInputSchema } from '../compact/compact-input-schema.js';
import { type Breach, checkProfileSchema } from './check.js';
import { fitEnumBudget } from './enum-budget.js';
import { type Plan, SAME } from './plan.js';
import { StrictRewriter } from './rewrite.js';
import type { ProfileId } from './rules.js';

export interface ProfileSchema {
  schema: JsonObject;
  /** How arguments in the profile's form map back to the tool's (plan.ts). */
  plan: Plan;
  /** `<pointer>: <what>` for each loosening, the compact rewrite's first. */
  loosened: string[];
  /** The provider rules the served schema still breaks (empty: it fits). */
  breaks: Breach[];
  /** The rewrite's top-level description (the compact view's `Arguments:` note). */
  description?: string;
}

const MAX_LOOSENED = 100;

/** The top-level additionalProperties of a compact schema, in the 2020-12 spelling. */
function topAdditional(compact: JsonObject): JsonValue | undefined {
  const ap = compact.additionalProperties;
  if (!isPlainObject(ap) || compact.$schema === undefined) return ap;
  return closeTopLevel({ $schema: compact.$schema, type: 'object', properties: { x: ap } }).schema.properties.x;
}

export function profileSchema(profile: ProfileId, input: JsonObject): ProfileSchema {
  const compact = compactInputSchema(input);
  const closed = closeTopLevel(compact.schema);
  const ap = topAdditional(compact.schema);
  const top: JsonObject = { type: 'object', properties: closed.schema.properties };
  if (closed.required.length > 0) top.required = closed.required;
  if (ap !== undefined) top.additionalProperties = ap;
  const loosened = [...compact.loosened];
  const description = closed.description;
  if (profile === 'anthropic') {
    return { schema: top, plan: SAME, loosened, breaks: checkProfileSchema(profile, top), ...(description !== undefined ? { description } : {}) };
  }
  const rewriter = new StrictRewriter(profile);
  const { schema, plan } = rewriter.top(top);
  loosened.push(...rewriter.loosened);
  if (profile === 'openai-strict') fitEnumBudget(schema, (path, what) => loosened.push(`${path}: ${what}`));
  if (loosened.length > MAX_LOOSENED) loosened.splice(MAX_LOOSENED, loosened.length - MAX_LOOSENED, `… and ${loosened.length - MAX_LOOSENED} more`);
  return { schema, plan, loosened, breaks: checkProfileSchema(profile, schema), ...(description !== undefined ? { description } : {}) };
}

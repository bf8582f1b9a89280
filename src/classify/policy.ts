// The host's own classification policy (docs/contract.md "The descriptor": safetyTier,
// replayPolicy and egress are assigned by the host, never copied from an
// upstream). An ordered list of rules matched by toolId glob, then what the
// host derives from a source's semantics, then per-source defaults, then the
// built-in default `write`. Upstream annotations are not an input here at all.
import { Type, type Static, type TObject, type TOptional } from '@sinclair/typebox';
import { compileGlobs } from '../contract/glob.js';
import type { Classification, Source } from '../contract/descriptor.js';
import { APPROVALS, EGRESS_POSTURES, HINT_LEVELS, REPLAY_POLICIES, SAFETY_TIERS, SOURCES } from '../contract/descriptor.js';
import { GLOB_PATTERN_SOURCE } from '../contract/glob.js';
import { CLOSED, OneOf, StringEnum } from '../util/schema-builders.js';

const FIELD_KEYS = ['safetyTier', 'replayPolicy', 'egress', 'approval', 'costHint', 'latencyHint'] as const;

const classificationProperties = {
  safetyTier: Type.Optional(StringEnum(SAFETY_TIERS)),
  replayPolicy: Type.Optional(StringEnum(REPLAY_POLICIES)),
  egress: Type.Optional(StringEnum(EGRESS_POSTURES)),
  approval: Type.Optional(StringEnum(APPROVALS)),
  costHint: Type.Optional(StringEnum(HINT_LEVELS)),
  latencyHint: Type.Optional(StringEnum(HINT_LEVELS)),
};

const classificationFieldsSchema = Type.Object(classificationProperties, CLOSED);
export type ClassificationFields = Static<typeof classificationFieldsSchema>;

/** Only host extensions may default to `exec`: a default covers tools nobody looked at one by one. */
const NON_EXEC_TIERS = ['pure', 'read', 'write'] as const;
const nonExecFieldsSchema = Type.Object({ ...classificationProperties, safetyTier: Type.Optional(StringEnum(NON_EXEC_TIERS)) }, CLOSED);

type SourceDefaultsProperties = {
  [S in Source]: TOptional<S extends 'host-extension' ? typeof classificationFieldsSchema : typeof nonExecFieldsSchema>;
};
const sourceDefaultsProperties = Object.fromEntries(
  SOURCES.map((s) => [s, Type.Optional(s === 'host-extension' ? classificationFieldsSchema : nonExecFieldsSchema)]),
) as SourceDefaultsProperties;

const globSchema = Type.String({ pattern: GLOB_PATTERN_SOURCE });

const policyRuleSchema = Type.Object(
  {
    match: OneOf([globSchema, Type.Array(globSchema, { minItems: 1 })]),
    /** Scopes a principal must hold to see matching tools, added to the tool's own. */
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true })),
    ...classificationProperties,
  },
  CLOSED,
);
export type PolicyRule = Static<typeof policyRuleSchema>;

/** JSON Schema of the `policy` config section. `exec` is allowed as a default only for host extensions. */
export const policyConfigSchema = Type.Object(
  {
    defaults: Type.Optional(Type.Object(sourceDefaultsProperties, CLOSED) as TObject<SourceDefaultsProperties>),
    rules: Type.Optional(Type.Array(policyRuleSchema)),
  },
  CLOSED,
);
export type PolicyConfig = Static<typeof policyConfigSchema>;

export interface ClassifyInput {
  toolId: string;
  source: Source;
  derived?: Partial<Classification>;
}

export interface ClassifyResult {
  classification: Classification;
  /** Extra scopes from matching rules. */
  scopes: string[];
  /** Index of the rule that set safetyTier, if any (for error messages). */
  tierRule?: number;
}

export class Policy {
  private readonly rules: { matches: (id: string) => boolean; rule: PolicyRule }[];
  private readonly defaults: Partial<Record<Source, ClassificationFields>>;

  constructor(config: PolicyConfig = {}) {
    this.defaults = config.defaults ?? {};
    this.rules = (config.rules ?? []).map((rule) => ({
      rule,
      matches: compileGlobs(Array.isArray(rule.match) ? rule.match : [rule.match]),
    }));
  }

  classify(tool: ClassifyInput): ClassifyResult {
    const out: ClassificationFields = {};
    const scopes = new Set<string>();
    let tierRule: number | undefined;
    this.rules.forEach(({ rule, matches }, index) => {
      if (!matches(tool.toolId)) return;
      for (const key of FIELD_KEYS) {
        if (out[key] === undefined && rule[key] !== undefined) {
          (out as Record<string, unknown>)[key] = rule[key];
          if (key === 'safetyTier') tierRule = index;
        }
      }
      for (const s of rule.scopes ?? []) scopes.add(s);
    });
    const layers: (Partial<ClassificationFields> | undefined)[] = [tool.derived, this.defaults[tool.source]];
    for (const layer of layers) {
      if (!layer) continue;
      for (const key of FIELD_KEYS) {
        if (out[key] === undefined && layer[key] !== undefined) (out as Record<string, unknown>)[key] = layer[key];
      }
    }
    // Unclassified means write: the host never trusts a tool to be harmless.
    const classification: Classification = { ...out, safetyTier: out.safetyTier ?? 'write' };
    return { classification, scopes: [...scopes].sort(), tierRule };
  }
}

// The host's own classification policy (seed "The descriptor": safetyTier,
// replayPolicy and egress are assigned by the host, never copied from an
// upstream). An ordered list of rules matched by toolId glob, then what the
// host derives from a source's semantics, then per-source defaults, then the
// built-in default `write`. Upstream annotations are not an input here at all.
import { compileGlobs } from '../contract/glob.js';
import type { Approval, Classification, Egress, HintLevel, ReplayPolicy, SafetyTier, Source } from '../contract/descriptor.js';
import { APPROVALS, EGRESS_POSTURES, HINT_LEVELS, REPLAY_POLICIES, SAFETY_TIERS, SOURCES } from '../contract/descriptor.js';
import { GLOB_PATTERN_SOURCE } from '../contract/glob.js';

export interface ClassificationFields {
  safetyTier?: SafetyTier;
  replayPolicy?: ReplayPolicy;
  egress?: Egress;
  approval?: Approval;
  costHint?: HintLevel;
  latencyHint?: HintLevel;
}

export interface PolicyRule extends ClassificationFields {
  match: string | string[];
  /** Scopes a principal must hold to see matching tools, added to the tool's own. */
  scopes?: string[];
}

export interface PolicyConfig {
  defaults?: Partial<Record<Source, ClassificationFields>>;
  rules?: PolicyRule[];
}

const FIELD_KEYS = ['safetyTier', 'replayPolicy', 'egress', 'approval', 'costHint', 'latencyHint'] as const;

const classificationProperties = {
  safetyTier: { enum: [...SAFETY_TIERS] },
  replayPolicy: { enum: [...REPLAY_POLICIES] },
  egress: { enum: [...EGRESS_POSTURES] },
  approval: { enum: [...APPROVALS] },
  costHint: { enum: [...HINT_LEVELS] },
  latencyHint: { enum: [...HINT_LEVELS] },
};

const globSchema = { type: 'string', pattern: GLOB_PATTERN_SOURCE };

/** JSON Schema of the `policy` config section. `exec` is allowed as a default only for host extensions. */
export const policyConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    defaults: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(
        SOURCES.map((s) => [
          s,
          {
            type: 'object',
            additionalProperties: false,
            properties:
              s === 'host-extension'
                ? classificationProperties
                : { ...classificationProperties, safetyTier: { enum: ['pure', 'read', 'write'] } },
          },
        ]),
      ),
    },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['match'],
        properties: {
          match: { oneOf: [globSchema, { type: 'array', minItems: 1, items: globSchema }] },
          scopes: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
          ...classificationProperties,
        },
      },
    },
  },
} as const;

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

// The project's own v2 ToolDescriptor and CompactToolDescriptor JSON Schemas
// (docs/contract.md "The descriptor"): the v1 shape plus `annotations`, with the exec rule
// and the annotation table encoded as if/then/else so a schema validator
// refuses any descriptor whose hints disagree with its classification.
import { APPROVALS, EGRESS_POSTURES, HINT_LEVELS, REPLAY_POLICIES, SAFETY_TIERS, SOURCES } from './descriptor.js';

const annotationHint = (hint: string, value: boolean) => ({ properties: { annotations: { properties: { [hint]: { const: value } } } } });

const execOnlyOnHostExtension = {
  if: { properties: { safetyTier: { const: 'exec' } }, required: ['safetyTier'] },
  then: { properties: { source: { const: 'host-extension' } }, required: ['source'] },
};

/** What both descriptor schemas open with: the document's identity, a closed object, the three required fields. */
const descriptorSchemaHead = (id: string, title: string) =>
  ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://toolhost.local/schemas/v2/${id}.schema.json`,
    title,
    type: 'object',
    additionalProperties: false,
    required: ['toolId', 'source', 'safetyTier'],
  }) as const;
const identityProperties = { toolId: { type: 'string', minLength: 1 }, source: { enum: [...SOURCES] } } as const;

export const toolDescriptorV2Schema = {
  ...descriptorSchemaHead('tool-descriptor', 'ToolDescriptor (v2)'),
  properties: {
    ...identityProperties,
    title: { type: 'string' },
    description: { type: 'string' },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    auth: {
      type: 'object',
      additionalProperties: false,
      properties: {
        scopes: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        credentialRef: { type: 'boolean' },
      },
    },
    egress: { enum: [...EGRESS_POSTURES] },
    approval: { enum: [...APPROVALS] },
    replayPolicy: { enum: [...REPLAY_POLICIES] },
    safetyTier: { enum: [...SAFETY_TIERS] },
    costHint: { enum: [...HINT_LEVELS] },
    latencyHint: { enum: [...HINT_LEVELS] },
    annotations: {
      type: 'object',
      additionalProperties: false,
      required: ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'],
      properties: {
        readOnlyHint: { type: 'boolean' },
        destructiveHint: { type: 'boolean' },
        idempotentHint: { type: 'boolean' },
        openWorldHint: { type: 'boolean' },
      },
    },
  },
  allOf: [
    execOnlyOnHostExtension,
    {
      $comment: 'readOnlyHint iff pure or read; destructiveHint iff write or exec',
      if: { properties: { safetyTier: { enum: ['pure', 'read'] } }, required: ['safetyTier'] },
      then: { allOf: [annotationHint('readOnlyHint', true), annotationHint('destructiveHint', false)] },
      else: { allOf: [annotationHint('readOnlyHint', false), annotationHint('destructiveHint', true)] },
    },
    {
      $comment: 'idempotentHint iff replayPolicy is deterministic or idempotent (absent: false)',
      if: { properties: { replayPolicy: { enum: ['deterministic', 'idempotent'] } }, required: ['replayPolicy'] },
      then: annotationHint('idempotentHint', true),
      else: annotationHint('idempotentHint', false),
    },
    {
      $comment: 'openWorldHint unless egress is none (absent egress: true)',
      if: { properties: { egress: { const: 'none' } }, required: ['egress'] },
      then: annotationHint('openWorldHint', false),
      else: annotationHint('openWorldHint', true),
    },
  ],
} as const;

/**
 * Banned anywhere in a compact inputSchema. This schema can refuse them only
 * at the top level (`propertyNames`); the compactor never writes them at any
 * depth, which its tests check by walking every schema it produces.
 */
export const COMPACT_BANNED_KEYWORDS = ['$ref', 'oneOf', 'allOf', 'anyOf', 'not', 'patternProperties', 'dependentSchemas'] as const;

export const compactToolDescriptorV2Schema = {
  ...descriptorSchemaHead('compact-tool-descriptor', 'CompactToolDescriptor (v2)'),
  properties: {
    ...identityProperties,
    safetyTier: { enum: [...SAFETY_TIERS] },
    title: { type: 'string' },
    description: { type: 'string' },
    inputSchema: {
      type: 'object',
      required: ['type', 'properties'],
      properties: { type: { const: 'object' }, properties: { type: 'object' } },
      propertyNames: { not: { enum: [...COMPACT_BANNED_KEYWORDS] } },
      // Closed, as the published v2 schema has it: nothing else at the top (nested schemas keep theirs).
      additionalProperties: false,
    },
  },
  allOf: [execOnlyOnHostExtension],
} as const;

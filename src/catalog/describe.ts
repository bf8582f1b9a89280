// Turns one classified RawTool into its ToolDescriptor (docs/contract.md "The
// descriptor"): fixed key order so equal content serializes to equal bytes,
// annotations from the one annotation table, credential material removed.
import { deriveAnnotations } from '../contract/annotations.js';
import type { Classification, JsonObject, ToolDescriptor } from '../contract/descriptor.js';
import type { RawTool } from '../sources/raw-tool.js';
import { copyValue, jsonTextOf } from '../util/json-text.js';
import { mayHoldUnrunnablePattern, withLinearPatterns } from '../util/linear-regex.js';
import { looksLikeSecret } from '../util/scrub.js';
import { isSecretKey, redactCredentials } from './redact.js';

/** The JSON text of a descriptor's schemas, as describeTool made it while checking them. */
export type SchemaTexts = Partial<Record<'inputSchema' | 'outputSchema', string>>;

export interface DescribeResult {
  descriptor: ToolDescriptor;
  /** JSON pointers (into the descriptor) of credential material that was removed. */
  redacted: string[];
  /** What of the schemas the host does not enforce (patterns its linear-time engine cannot run), one line each. */
  unenforced: string[];
  /**
   * The schemas' text, for serializing this descriptor (descriptorJson) so a
   * large schema is stringified once. Absent when no schema was checked as text.
   */
  schemaTexts?: SchemaTexts;
}

const keyVerdicts = new Map<string, boolean>();

/** Where each schema's text lies in a descriptor's JSON: [start, end) in UTF-16 units of the string. */
export type SchemaRanges = Partial<Record<'inputSchema' | 'outputSchema', [number, number]>>;

/**
 * JSON.stringify(d), taking the schemas' text from `texts` (what
 * describeTool returned with `d`) instead of stringifying them again. Same
 * bytes: the keys in their order, undefined values left out, every other
 * value through JSON.stringify. `ranges`, when given, is told where each
 * schema's text was written.
 */
export function descriptorJson(d: ToolDescriptor, texts?: SchemaTexts, ranges?: SchemaRanges): string {
  let out = '';
  for (const key of Object.keys(d) as (keyof ToolDescriptor)[]) {
    // A schema held as text (util/json-text.ts) is written as that text, never parsed.
    const text = key === 'inputSchema' || key === 'outputSchema' ? (texts?.[key] ?? jsonTextOf(d, key)) : undefined;
    if (text !== undefined) {
      out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:`;
      if (ranges !== undefined) ranges[key as keyof SchemaRanges] = [out.length, out.length + text.length];
      out += text;
      continue;
    }
    const value = d[key];
    if (value === undefined) continue;
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

function secretKey(key: string): boolean {
  let v = keyVerdicts.get(key);
  if (v === undefined) {
    v = isSecretKey(key);
    if (keyVerdicts.size >= 10_000) keyVerdicts.clear();
    keyVerdicts.set(key, v);
  }
  return v;
}

/**
 * False only when redactCredentials would find nothing in the value whose
 * serialization is `json`, decided on the text in one pass instead of per
 * string. Sound because, in JSON text without a backslash, every string
 * (key or value) appears verbatim between quotes that hold no other quote:
 * - a credential-shaped run inside a string is the same run in the text, and
 *   the patterns' `\b` sees a quote (a non-word character) where the string
 *   begins or ends, as it sees the string's start or end;
 * - a secret-named key holding a string value is exactly `"key":"` in the
 *   text, and every `":"` is looked at.
 * Text with escapes (a `\n` in a description) goes the slow, exact way.
 * A false "may hold" only costs the slow path.
 */
export function mayHoldCredential(json: string): boolean {
  if (json.includes('\\')) return true;
  if (looksLikeSecret(json)) return true;
  for (let p = json.indexOf('":"'); p >= 0; p = json.indexOf('":"', p + 1)) {
    if (secretKey(json.slice(json.lastIndexOf('"', p - 1) + 1, p))) return true;
  }
  return false;
}

export function describeTool(raw: RawTool, classification: Classification, scopes: readonly string[]): DescribeResult {
  const d: ToolDescriptor = { toolId: raw.toolId, source: raw.source, safetyTier: classification.safetyTier };
  const redacted: string[] = [];
  const texts: SchemaTexts = {};
  const clean = <T extends string | JsonObject>(field: string, value: T): T => {
    const r = redactCredentials(value);
    for (const p of r.redacted) redacted.push(`/${field}${p}`);
    return r.value;
  };
  if (raw.title !== undefined) d.title = clean('title', raw.title);
  if (raw.description !== undefined) d.description = clean('description', raw.description);
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    // Schemas are large and almost always clean: their text is checked once
    // first, and kept for serializing. A schema the source holds as text
    // stays text in the descriptor (the same string), never parsed here.
    const held = jsonTextOf(raw, field);
    const value = held === undefined ? raw[field] : undefined;
    if (held === undefined && value === undefined) continue;
    const text = held ?? JSON.stringify(value);
    if (!mayHoldCredential(text)) {
      texts[field] = text;
      if (held !== undefined) copyValue(raw, d, field);
      else d[field] = value;
      continue;
    }
    d[field] = clean(field, value ?? (JSON.parse(text) as JsonObject));
  }
  const unenforced = [...unenforcedPatterns(d, 'inputSchema', texts), ...unenforcedPatterns(d, 'outputSchema', texts)];
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
  if (texts.inputSchema !== undefined || texts.outputSchema !== undefined) return { descriptor: d, redacted, unenforced, schemaTexts: texts };
  return { descriptor: d, redacted, unenforced };
}

/**
 * The schema patterns calls are not checked against (invoke/schema-validator.ts):
 * a pattern RE2 cannot run is dropped where that only loosens the schema, and
 * the whole schema goes unenforced where it would not. Only schemas whose text
 * may hold such a pattern are parsed and walked.
 */
function unenforcedPatterns(d: ToolDescriptor, field: 'inputSchema' | 'outputSchema', texts: SchemaTexts): string[] {
  const text = texts[field];
  if (text !== undefined && !mayHoldUnrunnablePattern(text)) return [];
  const schema = d[field];
  if (schema === undefined) return [];
  const { schema: enforced, unenforced } = withLinearPatterns(schema);
  if (unenforced.length === 0) return [];
  const at = unenforced.map((p) => `/${field}${p}`).join(', ');
  return [enforced === undefined ? `${field} not enforced at all: a pattern the linear-time engine cannot run sits under not/if/oneOf/contains (${at})` : `patterns the linear-time engine cannot run are not enforced (loosened) at ${at}`];
}

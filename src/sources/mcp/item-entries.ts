// What the host keeps of an MCP server's resource, template and prompt
// entries (docs/mcp.md "Resources and prompts"): an upstream's entries are
// untrusted, so each is cut down to the fields relayed and bounded, and an
// entry without a usable URI or name is left out.
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

export interface UpstreamResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

export interface UpstreamTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface UpstreamPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** Resources, resource templates and prompts, in whatever form a layer holds them. */
export interface ItemLists<R, T, P> {
  readonly resources: readonly R[];
  readonly templates: readonly T[];
  readonly prompts: readonly P[];
}

/** What one server offers besides tools, as last read; frozen, replaced whole on a change. */
export interface McpItemLists extends ItemLists<UpstreamResource, UpstreamTemplate, UpstreamPrompt> {
  /** The server takes resources/subscribe. */
  readonly subscribe: boolean;
  /** The server answers completion/complete. */
  readonly completions: boolean;
}

export const MAX_URI = 2048;
const MAX_NAME = 256;
const MAX_MIME = 128;
const MAX_ARGUMENTS = 64;

const text = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined);
const strictText = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined);
export const withOptional = <T extends object>(base: T, extra: Record<string, unknown>): T => {
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) (base as Record<string, unknown>)[k] = v;
  return base;
};

export function resourceOf(e: Record<string, unknown>, d: number): UpstreamResource | undefined {
  const uri = strictText(e.uri, MAX_URI);
  const name = strictText(e.name, MAX_NAME);
  if (uri === undefined || name === undefined) return undefined;
  const size = typeof e.size === 'number' && Number.isSafeInteger(e.size) && e.size >= 0 ? e.size : undefined;
  return withOptional({ uri, name }, { title: text(e.title, MAX_NAME), description: text(e.description, d), mimeType: strictText(e.mimeType, MAX_MIME), size });
}

export function templateOf(e: Record<string, unknown>, d: number): UpstreamTemplate | undefined {
  const uriTemplate = strictText(e.uriTemplate, MAX_URI);
  const name = strictText(e.name, MAX_NAME);
  if (uriTemplate === undefined || name === undefined) return undefined;
  return withOptional({ uriTemplate, name }, { title: text(e.title, MAX_NAME), description: text(e.description, d), mimeType: strictText(e.mimeType, MAX_MIME) });
}

export function promptOf(e: Record<string, unknown>, d: number): UpstreamPrompt | undefined {
  const name = strictText(e.name, MAX_NAME);
  if (name === undefined) return undefined;
  const args = Array.isArray(e.arguments)
    ? e.arguments.slice(0, MAX_ARGUMENTS).flatMap((a: unknown) => {
        const r = (a ?? {}) as Record<string, unknown>;
        const argName = strictText(r.name, MAX_NAME);
        if (argName === undefined) return [];
        return [withOptional({ name: argName }, { description: text(r.description, d), required: typeof r.required === 'boolean' ? r.required : undefined })];
      })
    : undefined;
  return withOptional({ name }, { title: text(e.title, MAX_NAME), description: text(e.description, d), arguments: args });
}

/** The decoded size of a read's contents: text in UTF-8 bytes, blobs as the bytes their base64 stands for. */
export function contentBytes(result: ReadResourceResult): number {
  let bytes = 0;
  for (const c of result.contents) {
    if (typeof (c as { text?: unknown }).text === 'string') bytes += Buffer.byteLength((c as { text: string }).text, 'utf8');
    if (typeof (c as { blob?: unknown }).blob === 'string') bytes += Math.floor(((c as { blob: string }).blob.length * 3) / 4);
  }
  return bytes;
}


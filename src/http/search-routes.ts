// GET /tool-search (docs/search.md): the caller's visible tools ranked by
// relevance to `q`. Outside `/tools/` so the contract's endpoints keep their
// shape; the same credential and the same visibility rule as GET /tools, and
// a tool the caller cannot see never influences a result, a score or a total.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from './auth-hook.js';
import type { CatalogSearch } from '../catalog/search/catalog-search.js';
import type { SearchFilter } from '../catalog/search/tool-index.js';
import type { CatalogStore } from '../catalog/store.js';
import type { ItemsStore } from '../catalog/resources-prompts.js';
import { searchItems } from '../catalog/search/item-search.js';
import type { Authenticator } from '../auth/principal.js';
import { SAFETY_TIERS, SOURCES, type SafetyTier, type Source } from '../contract/descriptor.js';
import { ContractError } from '../contract/errors.js';
import { JSON_TYPE, sendError } from './respond.js';

export const MAX_QUERY_CHARS = 256;
export const MAX_SEARCH_LIMIT = 50;
export const DEFAULT_SEARCH_LIMIT = 10;

export interface SearchRouteDeps {
  store: CatalogStore;
  authenticator: Authenticator;
  search: CatalogSearch;
  /** The MCP servers' resources and prompts: matching ones the caller sees are answered as `items`. */
  items?: ItemsStore;
}

export interface SearchRequest {
  query: string;
  limit: number;
  filter: SearchFilter;
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ContractError('validation_error', `"${name}" must be given once`);
  return value;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new ContractError('validation_error', `"${name}" must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** Reads and bounds the query string; throws validation_error (400). Shared with the MCP search tool's checks. */
export function parseSearchRequest(query: Record<string, unknown>): SearchRequest {
  const q = single(query.q, 'q');
  if (q === undefined || q.trim() === '') throw new ContractError('validation_error', '"q" is required and must not be blank');
  if (q.length > MAX_QUERY_CHARS) throw new ContractError('validation_error', `"q" must be at most ${MAX_QUERY_CHARS} characters`);
  const limitText = single(query.limit, 'limit');
  let limit = DEFAULT_SEARCH_LIMIT;
  if (limitText !== undefined) {
    if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_SEARCH_LIMIT) {
      throw new ContractError('validation_error', `"limit" must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
    }
    limit = Number(limitText);
  }
  const filter: SearchFilter = {};
  const source = oneOf<Source>(single(query.source, 'source'), SOURCES, 'source');
  const safetyTier = oneOf<SafetyTier>(single(query.safetyTier, 'safetyTier'), SAFETY_TIERS, 'safetyTier');
  const maxTier = oneOf<SafetyTier>(single(query.maxTier, 'maxTier'), SAFETY_TIERS, 'maxTier');
  if (source !== undefined) filter.source = source;
  if (safetyTier !== undefined) filter.safetyTier = safetyTier;
  if (maxTier !== undefined) filter.maxTier = maxTier;
  return { query: q, limit, filter };
}

export function registerSearchRoutes(app: FastifyInstance, deps: SearchRouteDeps): void {
  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const principal = await principalOf(request, deps.authenticator);
    const { query, limit, filter } = parseSearchRequest((request.query ?? {}) as Record<string, unknown>);
    const snapshot = deps.store.current();
    const { hits, total } = await deps.search.searchAwaiting(principal, query, limit, filter, snapshot);
    const results = hits.map(({ entry, score }) => {
      const d = entry.tool.descriptor;
      const brief = entry.compactDescriptor;
      return {
        toolId: d.toolId,
        score,
        ...(d.title !== undefined ? { title: d.title } : {}),
        ...(brief.description !== undefined ? { description: brief.description } : {}),
        source: d.source,
        safetyTier: d.safetyTier,
        ...(d.annotations !== undefined ? { annotations: d.annotations } : {}),
      };
    });
    const items = deps.items === undefined ? undefined : searchItems(deps.items.current().viewFor(principal), query, limit);
    const body = items === undefined || items.total === 0 ? { results, total } : { results, total, items: items.hits, itemsTotal: items.total };
    return reply.header('content-type', JSON_TYPE).header('cache-control', 'private, no-store').header('vary', 'Authorization').send(JSON.stringify(body));
  };
  app.get('/tool-search', answer);
  app.route({
    method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/tool-search',
    handler: (_request, reply) => sendError(reply, 'toolhost.method_not_allowed', 'search is read-only', undefined, { allow: 'GET, HEAD' }),
  });
}

// The admin API under /admin/v1/ (docs/admin.md): MCP sources, connectors,
// tenants and the policy's rules of the running config, read and changed in
// the config file's own shapes. Only admins reach it; anyone else, with or
// without a credential, gets exactly the answer of an unknown route (the
// not-found handler itself answers them), so the API's existence is not
// disclosed. What a change does is the host's (host/admin.ts): this module
// speaks HTTP: ETags, If-Match, dryRun, status codes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/principal.js';
import { ContractError } from '../contract/errors.js';
import type { ResourceKind } from '../config/layer.js';
import { JSON_TYPE } from './respond.js';

/** What the admin routes ask of the host (host/admin.ts). */
/** One change asked of the admin API, as the route hands it to the host (host/admin.ts). */
export interface ChangeRequest {
  kind: ResourceKind;
  id: string;
  /** The new resource; null deletes it. */
  value: unknown;
  /** `create` refuses an existing resource; otherwise `ifMatch` must be its current ETag. */
  create: boolean;
  ifMatch?: string;
  dryRun: boolean;
  who: string;
  /** The resource's path, for the audit record. */
  resource: string;
}

export interface AdminApi {
  adminOf(token: string | undefined): Promise<string | undefined>;
  effectiveConfig(): unknown;
  list(kind: Exclude<ResourceKind, 'policy-rules'>): { items: { id: string; etag: string; value: unknown }[] };
  get(kind: ResourceKind, id: string): { value: unknown; etag: string } | undefined;
  audit(after?: number, limit?: number): unknown[];
  change(req: ChangeRequest): Promise<{ dryRun: true; changes: unknown; refusedSettings: string[] } | { dryRun: false; value: unknown; etag: string; generation: number }>;
}

const PREFIX = '/admin/v1';
const COLLECTIONS: { path: string; kind: Exclude<ResourceKind, 'policy-rules'>; postable: boolean }[] = [
  { path: 'sources/mcp', kind: 'mcp', postable: true },
  { path: 'sources/connectors', kind: 'connectors', postable: true },
  { path: 'tenants', kind: 'tenants', postable: false },
];

type Params = { id?: string };
type Query = { dryRun?: string; after?: string; limit?: string };

/** The admin's id, or undefined after answering exactly as an unknown route would. */
async function adminOrNotFound(api: AdminApi, request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  const who = await api.adminOf(bearerToken(request.headers.authorization) ?? undefined);
  if (who === undefined) reply.callNotFound();
  return who;
}

function send(reply: FastifyReply, status: number, body: unknown, etag?: string): FastifyReply {
  if (etag !== undefined) reply.header('etag', etag);
  return reply.code(status).header('content-type', JSON_TYPE).header('cache-control', 'no-store').send(JSON.stringify(body));
}

function bodyOf(request: FastifyRequest): unknown {
  if (request.body === undefined || request.body === null) throw new ContractError('validation_error', 'a JSON body is required', { problems: [{ pointer: '', in: 'body', message: 'missing body' }] });
  return request.body;
}

export function registerAdminRoutes(app: FastifyInstance, api: AdminApi): void {
  const admin = <P extends Params>(handler: (who: string, request: FastifyRequest<{ Params: P; Querystring: Query }>, reply: FastifyReply) => Promise<unknown>) =>
    async (request: FastifyRequest<{ Params: P; Querystring: Query }>, reply: FastifyReply) => {
      const who = await adminOrNotFound(api, request, reply);
      if (who === undefined) return reply;
      return handler(who, request, reply);
    };

  const change = async (who: string, request: FastifyRequest<{ Params: Params; Querystring: Query }>, reply: FastifyReply, kind: ResourceKind, id: string, value: unknown, create: boolean) => {
    const ifMatch = request.headers['if-match'];
    const creating = create || request.headers['if-none-match'] === '*';
    const result = await api.change({
      kind,
      id,
      value,
      create: creating,
      ifMatch: typeof ifMatch === 'string' ? ifMatch : undefined,
      dryRun: request.query.dryRun === 'true',
      who,
      resource: request.url.split('?')[0],
    });
    if (result.dryRun) return send(reply, 200, result);
    if (value === null) return reply.code(204).header('cache-control', 'no-store').send();
    return send(reply, creating ? 201 : 200, result.value, result.etag);
  };

  app.get(`${PREFIX}/config`, admin(async (_who, _request, reply) => send(reply, 200, api.effectiveConfig())));
  app.get(
    `${PREFIX}/audit`,
    admin(async (_who, request, reply) => send(reply, 200, { records: api.audit(Number(request.query.after ?? 0) || 0, Math.min(Number(request.query.limit ?? 100) || 100, 1000)) })),
  );

  for (const { path, kind, postable } of COLLECTIONS) {
    app.get(`${PREFIX}/${path}`, admin(async (_who, _request, reply) => send(reply, 200, api.list(kind))));
    app.get<{ Params: { id: string }; Querystring: Query }>(
      `${PREFIX}/${path}/:id`,
      admin<{ id: string }>(async (_who, request, reply) => {
        const found = api.get(kind, request.params.id);
        if (found === undefined) throw new ContractError('not_found', 'no such resource');
        return send(reply, 200, found.value, found.etag);
      }),
    );
    if (postable) {
      app.post(
        `${PREFIX}/${path}`,
        admin(async (who, request, reply) => {
          const body = bodyOf(request) as { id?: unknown };
          if (typeof body !== 'object' || Array.isArray(body) || typeof body.id !== 'string') throw new ContractError('validation_error', 'the body needs a string id', { problems: [{ pointer: '/id', in: 'body', message: 'must be a string' }] });
          return change(who, request, reply, kind, body.id, body, true);
        }),
      );
    }
    app.put<{ Params: { id: string }; Querystring: Query }>(
      `${PREFIX}/${path}/:id`,
      admin<{ id: string }>(async (who, request, reply) => {
        const body = bodyOf(request);
        if (postable && (body as { id?: unknown }).id !== request.params.id) throw new ContractError('validation_error', 'the body\'s id must be the id in the path', { problems: [{ pointer: '/id', in: 'body', message: `must be "${request.params.id}"` }] });
        return change(who, request, reply, kind, request.params.id, body, false);
      }),
    );
    app.delete<{ Params: { id: string }; Querystring: Query }>(
      `${PREFIX}/${path}/:id`,
      admin<{ id: string }>(async (who, request, reply) => change(who, request, reply, kind, request.params.id, null, false)),
    );
  }

  app.get(`${PREFIX}/policy/rules`, admin(async (_who, _request, reply) => {
    const found = api.get('policy-rules', '')!;
    return send(reply, 200, found.value, found.etag);
  }));
  app.put(`${PREFIX}/policy/rules`, admin(async (who, request, reply) => change(who, request, reply, 'policy-rules', '', bodyOf(request), false)));
}

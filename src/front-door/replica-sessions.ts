// What the MCP front door does differently when several replicas serve one
// deployment without sticky sessions (docs/mcp.md "Several replicas"):
// session ids are signed and self-describing (session-token.ts), a replica
// rebuilds a session it does not hold from its id unless that session was
// closed (here, or at any replica when Redis is configured), a client's
// answers to server→client requests go to every replica through the bus, and
// a DELETE is told to all of them. A credential taken away (a key removed,
// revoked or expired at a keys-file reload) revokes every session its
// principal opened until then, on every replica: the revocation is kept here
// and, with Redis, where any replica rebuilding a session reads it, so a key
// restored later does not bring an old session back. The front door asks this object at three
// points of a request: naming a new session, finding a session it does not
// hold, and just before and after handing a request to the session.
import type { FastifyRequest } from 'fastify';
import { answersIn, type ReplicaBus, type ReplicaBusHandlers } from './replica-bus.js';
import { negotiatedVersion } from './session-restore.js';
import type { SessionState, SessionTokens } from './session-token.js';
import type { McpSession, SessionRegistry } from './sessions.js';

/** Closed session ids, and revoked identities, remembered by one replica without Redis (oldest forgotten first). */
const MAX_CLOSED_REMEMBERED = 10_000;

export interface ReplicaOptions {
  tokens: SessionTokens;
  /** With Redis: makes the bus, given what to do with the other replicas' messages. */
  bus?: (handlers: ReplicaBusHandlers) => ReplicaBus;
}

export class ReplicaSessions {
  private readonly tokens: SessionTokens;
  private readonly bus: ReplicaBus | undefined;
  /** Sessions closed by DELETE (here, or told by the bus): their ids still verify, but are not rebuilt. */
  private readonly closed = new Set<string>();
  /** Principal identity -> when its credential was taken away (ms): its sessions issued until then are not rebuilt. */
  private readonly revoked = new Map<string, number>();

  constructor(options: ReplicaOptions, sessions: SessionRegistry) {
    this.tokens = options.tokens;
    this.bus = options.bus?.({
      answers(id, messages) {
        const s = sessions.get(id);
        if (s !== undefined) for (const m of messages) s.transport.onmessage?.(m);
      },
      closed: (id) => {
        this.remember(id);
        const s = sessions.get(id);
        if (s !== undefined) sessions.close(s);
      },
    });
  }

  /** The id of a session opened by this initialize request (signed before the SDK asks for it: its id generator cannot wait). */
  newId(identity: string, initialize: unknown, choice: Pick<SessionState, 'compact' | 'mode' | 'profile'>): Promise<string> {
    const params = (initialize as { params: { protocolVersion?: unknown; capabilities: SessionState['capabilities']; clientInfo: SessionState['clientInfo'] } }).params;
    return this.tokens.issue(identity, {
      protocolVersion: negotiatedVersion(params.protocolVersion),
      capabilities: params.capabilities,
      clientInfo: params.clientInfo,
      ...choice,
      issuedAt: Math.floor(Date.now() / 1000),
    });
  }

  /** What a session this replica does not hold is, when `id` is a live one of `identity`'s; undefined otherwise. */
  async restorable(id: string, identity: string): Promise<SessionState | undefined> {
    const state = await this.tokens.verify(id, identity);
    if (state === undefined || this.closed.has(id)) return undefined;
    // issuedAt is in whole seconds, rounded down: a session opened in the second of a revocation counts as older.
    if (state.issuedAt * 1000 <= (this.revoked.get(identity) ?? -1)) return undefined;
    if (this.bus !== undefined) {
      const [closed, revokedAt] = await Promise.all([this.bus.wasClosed(id), this.bus.revokedAt(identity)]);
      if (closed || state.issuedAt * 1000 <= revokedAt) return undefined;
    }
    return state;
  }

  /** `identity`'s credential was taken away: no session it opened until now is rebuilt here, nor (with Redis) at any replica. */
  revoke(identity: string, atMs = Date.now()): void {
    this.revoked.delete(identity);
    this.revoked.set(identity, atMs);
    if (this.revoked.size > MAX_CLOSED_REMEMBERED) this.revoked.delete(this.revoked.keys().next().value!);
    this.bus?.publishRevoked(identity, atMs);
  }

  /** Before a request reaches its session: a client's answers go to every replica (only the one whose call waits uses them). */
  beforeRequest(session: McpSession, request: FastifyRequest): void {
    if (request.method === 'DELETE') this.remember(session.id);
    else if (this.bus !== undefined && request.method === 'POST') {
      const answers = answersIn(request.body);
      if (answers !== undefined) this.bus.publishAnswers(session.id, answers);
    }
  }

  /** After a DELETE was answered: the other replicas close their copy and will not rebuild it. */
  afterDelete(session: McpSession, status: number): void {
    if (status === 200) this.bus?.publishClosed(session.id);
  }

  async stop(): Promise<void> {
    await this.bus?.stop();
  }

  private remember(id: string): void {
    this.closed.add(id);
    if (this.closed.size > MAX_CLOSED_REMEMBERED) this.closed.delete(this.closed.values().next().value!);
  }
}

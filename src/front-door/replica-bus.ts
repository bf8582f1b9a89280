// What one replica tells the others about MCP sessions, through Redis
// pub/sub (docs/mcp.md "Several replicas"). Two messages on one channel:
// a client's answer to a server→client request (an approval elicitation, an
// upstream's sampling or elicitation), which reaches the replica whose call
// waits for it, wherever the load balancer sent it; and the close of a
// session (DELETE /mcp), so no replica keeps or rebuilds it. A closed
// session is also remembered in a key that expires with the session's
// longest life, checked only when a replica rebuilds a session it does not
// hold. A principal whose credential was taken away is remembered the same
// way (with when), so no replica rebuilds a session it opened before. Publishing never delays a request: while Redis is unavailable a
// message is dropped (the waiting call then times out, as if the client had
// not answered) and a rebuild is not refused.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RedisConnection } from '../auth/redis-connection.js';

type Message = { kind: 'answers'; session: string; messages: JSONRPCMessage[] } | { kind: 'closed'; session: string };

export interface ReplicaBusHandlers {
  /** Answers from a client for session `session`, posted at another replica. */
  answers(session: string, messages: JSONRPCMessage[]): void;
  /** Session `session` was closed at another replica. */
  closed(session: string): void;
}

/** A JSON-RPC response (result or error): what a client sends to answer a server→client request. */
export const isAnswer = (m: unknown): m is JSONRPCMessage => isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m);

/** A POST body made only of answers (one, or a batch). */
export function answersIn(body: unknown): JSONRPCMessage[] | undefined {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every(isAnswer) ? (messages as JSONRPCMessage[]) : undefined;
}

export class ReplicaBus {
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly closedPrefix: string;
  private readonly revokedPrefix: string;
  /** Tells this replica's own messages from the others'. */
  private readonly self = `${process.pid}-${Math.random().toString(36).slice(2)}`;

  constructor(
    private readonly connection: RedisConnection,
    private readonly handlers: ReplicaBusHandlers,
    private readonly logger: Logger,
    /** How long a closed session is remembered: the longest a session can live unused. */
    private readonly closedTtlMs: number,
  ) {
    this.channel = `${connection.keyPrefix}mcp:sessions`;
    this.closedPrefix = `${connection.keyPrefix}mcp:closed:`;
    this.revokedPrefix = `${connection.keyPrefix}mcp:revoked:`;
    // Its own connection (a subscriber can do nothing else). The subscription waits for Redis however long it is down at start, and ioredis renews it after each reconnect.
    this.subscriber = connection.client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined, enableAutoPipelining: false });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, text: string) => this.receive(text));
    this.subscriber.subscribe(this.channel).catch((err: unknown) => logger.warn({ err: String(err) }, 'MCP replica bus: subscribe failed'));
  }

  publishAnswers(session: string, messages: JSONRPCMessage[]): void {
    this.publish({ kind: 'answers', session, messages });
  }

  publishClosed(session: string): void {
    this.publish({ kind: 'closed', session });
    if (this.connection.usable) this.connection.client.set(this.closedKey(session), '1', 'PX', this.closedTtlMs).catch(() => undefined);
  }

  /** `identity`'s credential was taken away at `atMs`: kept as long as a closed session is (a later revocation wins). */
  publishRevoked(identity: string, atMs: number): void {
    if (!this.connection.usable) return;
    const key = this.revokedPrefix + createHash('sha256').update(identity).digest('base64url');
    this.connection.client.set(key, String(atMs), 'PX', this.closedTtlMs).catch(() => undefined);
  }

  /** When `identity`'s credential was last taken away (ms), -1 when never or when Redis cannot say in time. */
  async revokedAt(identity: string): Promise<number> {
    if (!this.connection.usable) return -1;
    try {
      const value = await this.connection.client.get(this.revokedPrefix + createHash('sha256').update(identity).digest('base64url'));
      const at = value === null ? NaN : Number(value);
      return Number.isFinite(at) ? at : -1;
    } catch {
      return -1;
    }
  }

  /** Whether `session` was closed at some replica; false when Redis cannot say in time (a rebuild is not refused for it). */
  async wasClosed(session: string): Promise<boolean> {
    if (!this.connection.usable) return false;
    try {
      return (await this.connection.client.exists(this.closedKey(session))) === 1;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    this.subscriber.disconnect();
  }

  private closedKey(session: string): string {
    return this.closedPrefix + createHash('sha256').update(session).digest('base64url');
  }

  private publish(message: Message): void {
    if (!this.connection.usable) return;
    this.connection.client.publish(this.channel, JSON.stringify({ from: this.self, ...message })).catch(() => undefined);
  }

  private receive(text: string): void {
    let message: Message & { from?: string };
    try {
      message = JSON.parse(text) as Message & { from?: string };
    } catch {
      return;
    }
    if (message.from === this.self || typeof message.session !== 'string') return;
    if (message.kind === 'closed') this.handlers.closed(message.session);
    else if (message.kind === 'answers' && Array.isArray(message.messages) && message.messages.every(isAnswer)) this.handlers.answers(message.session, message.messages);
    else this.logger.debug('MCP replica bus: a message of an unknown kind was ignored');
  }
}

// Limits that keep slow and greedy clients from holding the HTTP server's
// sockets (docs/config.md "server"): header, request, keep-alive and
// inactivity timeouts on the Node server, a cap on concurrent connections per
// client address, and `Connection: close` on any answer given before the
// request's body has arrived (a 401 refused in an onRequest hook, say), so a
// client dribbling a body it was never going to be asked for loses its socket
// at once. Timed-out requests still get the contract's error envelope
// (docs/contract.md "Error body", a vendor code for the 408).
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

export interface ConnectionLimits {
  /** The request line and headers must arrive within this many ms of the connection (kept alive: of the next request's first byte). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this many ms; 0: no limit. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many ms. */
  keepAliveTimeoutMs: number;
  /** A socket with no bytes in either direction for this many ms is closed; 0: never. */
  connectionTimeoutMs: number;
  /** Concurrent connections from one client address (IPv6: one /64); the next one is closed at once. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Longer than the 60 s idle timeout of common load balancers, so the host is
  // never the side that closes a connection the balancer is about to reuse.
  keepAliveTimeoutMs: 72_000,
  connectionTimeoutMs: 600_000,
  maxConnectionsPerAddress: 256,
};

/** The fastify options that carry the timeouts (Node checks them at this interval, not on a timer per socket). */
export function serverTimeoutOptions(limits: ConnectionLimits): {
  connectionTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  http: ServerOptions;
} {
  const { requestTimeoutMs } = limits;
  // Node refuses a header timeout above the request timeout.
  const headersTimeout = requestTimeoutMs > 0 ? Math.min(limits.headersTimeoutMs, requestTimeoutMs) : limits.headersTimeoutMs;
  const shortest = requestTimeoutMs > 0 ? Math.min(headersTimeout, requestTimeoutMs) : headersTimeout;
  return {
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: requestTimeoutMs,
    http: { headersTimeout, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(shortest / 4))) },
  };
}

/** The key a connection is counted under: the IPv4 address, or the /64 of an IPv6 one (one host usually holds a whole /64). */
export function addressKey(address: string): string {
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!address.includes(':')) return address;
  const bare = address.split('%')[0].toLowerCase();
  const [head, tail] = bare.split('::') as [string, string | undefined];
  const groups = head === '' ? [] : head.split(':');
  if (tail !== undefined) {
    const rest = tail === '' ? [] : tail.split(':');
    // A dotted IPv4 tail stands for two groups.
    const width = rest.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
    while (groups.length + width < 8) groups.push('0');
    groups.push(...rest);
  }
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** How often at most the host logs that connections were refused at the cap. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

/**
 * Closes any connection beyond `max` from one address as soon as it is
 * accepted. Refusals are logged at most once a minute, with their count and
 * the last address, so a flood does not become a flood of log lines.
 */
function capConnectionsPerAddress(server: Server, max: number, logger: Logger): void {
  const open = new Map<string, number>();
  let refused = 0;
  let lastLog = -Infinity;
  const refuse = (socket: Socket, key: string) => {
    socket.destroy();
    refused++;
    const now = performance.now();
    if (now - lastLog < REFUSAL_LOG_INTERVAL_MS) return;
    lastLog = now;
    logger.warn({ refused, address: key, maxConnectionsPerAddress: max }, 'connections refused: too many from one address');
    refused = 0;
  };
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const key = addressKey(address);
    const count = open.get(key) ?? 0;
    if (count >= max) {
      refuse(socket, key);
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}

/**
 * A request that announced a body but whose body has not fully arrived when
 * the answer starts (refused before it was read) is answered with
 * `Connection: close`: Node then closes the socket once the answer is
 * written, instead of keeping it open to drain whatever the client still sends.
 */
function closeWhenBodyUnread(request: IncomingMessage, response: ServerResponse): void {
  const length = request.headers['content-length'];
  if ((length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined) return;
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!request.complete && !this.headersSent) this.setHeader('connection', 'close');
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof response.writeHead;
}

/** Applies the per-address cap and the unread-body rule to a server (call before it listens). */
export function guardConnections(server: Server, limits: ConnectionLimits, logger: Logger): void {
  capConnectionsPerAddress(server, limits.maxConnectionsPerAddress, logger);
  // Before fastify's own listener, so the rule is in place whatever it answers synchronously.
  server.prependListener('request', closeWhenBodyUnread);
}

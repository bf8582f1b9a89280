// The MCP front door's sessions (docs/mcp.md "Sessions and limits"): which
// principal identity each belongs to, how many each identity may hold and
// how many tool calls it may run at once (counted and refused by the
// per-principal caps, auth/principal-caps.ts), and idle expiry that tightens
// under pressure, so a client that leaks sessions costs bounded memory.
import { getHeapStatistics } from 'node:v8';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { FrontDoorTransport } from './fast-call.js';
import type { Principal } from '../auth/principal.js';
import { PrincipalCap, type Slot } from '../auth/principal-caps.js';

export interface SessionLimits {
  /** Open sessions per principal identity; at the cap its least recently used idle session makes room. */
  maxSessionsPerPrincipal: number;
  /** Tool calls in flight per principal identity, over all its sessions. */
  maxConcurrentCallsPerPrincipal: number;
  /** Sessions idle this long are closed. */
  idleMs: number;
  /** Above this many sessions in all, the idle timeout shrinks and the oldest idle sessions are closed down to it. */
  softCap: number;
  /** Under pressure, a session idle at least this long may be closed. */
  minIdleMs: number;
  /** Heap use (fraction of the heap limit) from which the idle timeout drops to `minIdleMs`. */
  heapPressureRatio: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessionsPerPrincipal: 100,
  maxConcurrentCallsPerPrincipal: 32,
  idleMs: 30 * 60_000,
  softCap: 1000,
  minIdleMs: 60_000,
  heapPressureRatio: 0.85,
};

/** What the registry and the /mcp route use of a session's transport (front-door/fast-call.ts). */
export type SessionTransport = Pick<FrontDoorTransport, 'close' | 'handleRequest' | 'onmessage'>;

export interface McpSession {
  id: string;
  /** The key (kind, tenant, id) of the principal that opened it: every later request must present the same. */
  identity: string;
  /** The principal of the latest request (its scopes may differ from the opener's). */
  principal: Principal;
  server: Server;
  transport: SessionTransport;
  compact: boolean;
  lastSeen: number;
  /** Tool calls in flight in this session (a busy session is never closed for idleness). */
  calls: number;
}

export class SessionRegistry {
  private readonly byId = new Map<string, McpSession>();
  private readonly byIdentity = new Map<string, Set<McpSession>>();
  /** Each registered session's slot under the session cap, given back when it is removed. */
  private readonly slots = new Map<McpSession, Slot>();
  private readonly sessionCap: PrincipalCap;
  private readonly callCap: PrincipalCap;

  constructor(readonly limits: SessionLimits) {
    this.sessionCap = new PrincipalCap({
      setting: 'mcp.maxSessionsPerPrincipal',
      limit: limits.maxSessionsPerPrincipal,
      retryAfterS: 1,
      holds: 'open MCP sessions, each running a tool call',
      advice: 'close one (DELETE /mcp) or retry when a call has finished',
    });
    this.callCap = new PrincipalCap({
      setting: 'mcp.maxConcurrentCallsPerPrincipal',
      limit: limits.maxConcurrentCallsPerPrincipal,
      retryAfterS: 1,
      holds: 'tool calls in flight',
      advice: 'retry when one has finished',
    });
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): McpSession | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<McpSession> {
    return this.byId.values();
  }

  /**
   * A slot for one more session of `identity`, held from before its
   * initialize is handled, so concurrent initializes cannot overshoot: at
   * the cap, its least recently used session without a call in flight is
   * closed to make room. Throws the cap's refusal when every one is busy.
   * The slot goes to `add`; if no session is added, the caller releases it.
   */
  admit(identity: string): Slot {
    const slot = this.sessionCap.tryTake(identity);
    if (slot !== undefined) return slot;
    const victim = oldestIdle(this.byIdentity.get(identity) ?? [], Infinity);
    if (victim !== undefined) this.close(victim);
    return this.sessionCap.take(identity);
  }

  /** Registers a session with the slot `admit` gave for it (given back when the session is removed). */
  add(session: McpSession, slot: Slot): void {
    // Two live sessions under one id would leave one unreachable but counted against its identity's cap.
    if (this.byId.has(session.id)) {
      slot.release();
      throw new Error('an MCP session id registered twice');
    }
    this.byId.set(session.id, session);
    this.slots.set(session, slot);
    let own = this.byIdentity.get(session.identity);
    if (own === undefined) this.byIdentity.set(session.identity, (own = new Set()));
    own.add(session);
    // Never the session being opened: it would be refused after its initialize succeeded.
    if (this.byId.size > this.limits.softCap) this.trimToSoftCap(Date.now(), session);
  }

  /** Forgets a session (idempotent); the transport's own close calls it. */
  remove(id: string): void {
    const s = this.byId.get(id);
    if (s === undefined) return;
    this.byId.delete(id);
    this.slots.get(s)?.release();
    this.slots.delete(s);
    const own = this.byIdentity.get(s.identity);
    own?.delete(s);
    if (own?.size === 0) this.byIdentity.delete(s.identity);
  }

  close(session: McpSession): void {
    this.remove(session.id);
    session.transport.close().catch(() => undefined);
  }

  /**
   * Counts `n` tool calls of one request in, against the session's identity
   * (the session is busy meanwhile); throws the cap's refusal, counting
   * nothing, when they would put the identity over its maximum. The
   * returned function counts them out; calling it again does nothing.
   */
  beginCalls(session: McpSession, n: number): () => void {
    const slot = this.callCap.take(session.identity, n);
    session.calls += n;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      session.calls -= n;
      slot.release();
    };
  }

  /** The idle timeout now: the configured one, shorter in proportion above the soft cap, the minimum when the heap is nearly full. */
  effectiveIdleMs(heapRatio = heapUse()): number {
    const { idleMs, softCap, minIdleMs, heapPressureRatio } = this.limits;
    if (heapRatio >= heapPressureRatio) return minIdleMs;
    if (this.byId.size <= softCap) return idleMs;
    return Math.max(minIdleMs, Math.floor((idleMs * softCap) / this.byId.size));
  }

  /** Closes sessions idle past the effective timeout, then the oldest idle ones while above the soft cap. */
  sweep(now = Date.now()): void {
    const cutoff = now - this.effectiveIdleMs();
    for (const s of [...this.byId.values()]) if (s.calls === 0 && s.lastSeen <= cutoff) this.close(s);
    this.trimToSoftCap(now);
  }

  private trimToSoftCap(now: number, keep?: McpSession): void {
    const excess = this.byId.size - this.limits.softCap;
    if (excess <= 0) return;
    const cutoff = now - this.limits.minIdleMs;
    const idle = [...this.byId.values()].filter((s) => s !== keep && s.calls === 0 && s.lastSeen <= cutoff).sort((x, y) => x.lastSeen - y.lastSeen);
    for (const s of idle.slice(0, excess)) this.close(s);
  }
}

function oldestIdle(sessions: Iterable<McpSession>, cutoff: number): McpSession | undefined {
  let oldest: McpSession | undefined;
  for (const s of sessions) if (s.calls === 0 && s.lastSeen <= cutoff && (oldest === undefined || s.lastSeen < oldest.lastSeen)) oldest = s;
  return oldest;
}

function heapUse(): number {
  const { used_heap_size, heap_size_limit } = getHeapStatistics();
  return used_heap_size / heap_size_limit;
}

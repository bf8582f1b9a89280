// Self-describing MCP session ids for replicas without sticky sessions
// (docs/mcp.md "Several replicas"). With `mcp.sessionKey` set, the id a
// client gets at initialize carries what a replica needs to serve the
// session without having seen its initialize: who opened it (as a keyed
// hash of the principal identity, never the identity itself), the
// negotiated protocol version, the client's capabilities and name, the mode
// and view chosen, when it was issued, and a random nonce. The id is a
// compact JWS (RFC 7515), HS256 under the key all replicas share, made and
// checked by `jose` with the algorithm pinned, so the signature check is
// jose's (constant time) and a header naming another algorithm is refused.
// A replica that gets a request for a session it does not hold verifies the
// id and the identity (in constant time) and rebuilds it. Without the key,
// ids stay random UUIDs held in one process's memory.
//
// A JWS rather than a JWT: the age bound is checked here against `t` as
// issued, whereas jose's JWT check of `iat` also refuses a time in the
// future, so an id from a replica whose clock runs a little ahead would
// fail; and an id needs none of a JWT's registered claims. The identity
// tag stays an HMAC of its own: it is a keyed pseudonym compared inside the
// signed payload, not a signature, and jose has no keyed hash.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { CompactSign, compactVerify } from 'jose';
import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/sdk/types.js';
import { type ProfileId, isProfileId } from '../catalog/profiles/rules.js';
import { MCP_MODES, type McpMode } from './search-mode.js';

/** What a session is, as its id carries it. */
export interface SessionState {
  /** The negotiated protocol version. */
  protocolVersion: string;
  /** The client's capabilities that the host acts on (elicitation, sampling, roots), bounded. */
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  mode: McpMode;
  compact: boolean;
  /** The provider profile whose schemas the session lists and whose arguments it translates back (docs/compact-view.md). */
  profile?: ProfileId;
  /** Issue time, seconds since the epoch. */
  issuedAt: number;
}

/** A key shorter than this is refused at start: it is what every replica's session ids rest on. */
export const MIN_SESSION_KEY_BYTES = 32;
/**
 * How long a signed id is honoured after its initialize. No replica can
 * know when another last saw a session, so this bounds how long a session
 * closed at one replica (or by a client that vanished) must be remembered;
 * an MCP client answered 404 opens a new session.
 */
export const MAX_SESSION_AGE_MS = 24 * 60 * 60_000;
/** An id longer than this is not one of ours (and is never parsed). */
const MAX_ID_CHARS = 2048;
const MAX_CAPABILITY_CHARS = 512;
const MAX_NAME_CHARS = 100;
const VERSION = 1;
const ALGORITHM = 'HS256';

interface Payload {
  v: number;
  /** Keyed hash of the principal identity. */
  h: string;
  p: string;
  c: ClientCapabilities;
  i: { name: string; version: string };
  m: McpMode;
  k: boolean;
  r?: ProfileId;
  t: number;
  n: string;
}

/** The capabilities the host reads, each kept only if small: a client cannot make its id (hence every request) large. */
function boundedCapabilities(capabilities: ClientCapabilities | undefined): ClientCapabilities {
  const kept: Record<string, unknown> = {};
  for (const name of ['elicitation', 'sampling', 'roots'] as const) {
    const value = capabilities?.[name];
    if (value === undefined || typeof value !== 'object' || value === null) continue;
    kept[name] = JSON.stringify(value).length <= MAX_CAPABILITY_CHARS ? value : {};
  }
  return kept as ClientCapabilities;
}

const bounded = (text: unknown): string => (typeof text === 'string' ? text.slice(0, MAX_NAME_CHARS) : '');

export class SessionTokens {
  private readonly key: Buffer;

  constructor(key: string | Buffer) {
    this.key = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
    if (this.key.length < MIN_SESSION_KEY_BYTES) throw new Error(`mcp.sessionKey must be at least ${MIN_SESSION_KEY_BYTES} bytes`);
  }

  /** A new session id for `identity` in `state` (capabilities and names bounded on the way). */
  async issue(identity: string, state: SessionState): Promise<string> {
    const payload: Payload = {
      v: VERSION,
      h: this.identityTag(identity),
      p: state.protocolVersion,
      c: boundedCapabilities(state.capabilities),
      i: { name: bounded(state.clientInfo?.name), version: bounded(state.clientInfo?.version) },
      m: state.mode,
      k: state.compact,
      ...(state.profile !== undefined ? { r: state.profile } : {}),
      t: state.issuedAt,
      n: randomBytes(12).toString('base64url'),
    };
    return new CompactSign(Buffer.from(JSON.stringify(payload), 'utf8')).setProtectedHeader({ alg: ALGORITHM }).sign(this.key);
  }

  /** The state of a session id this deployment issued to `identity`; undefined for anything else (forged, altered, another caller's, malformed). */
  async verify(id: string, identity: string, now = Date.now()): Promise<SessionState | undefined> {
    if (id.length > MAX_ID_CHARS) return undefined;
    let payload: Payload;
    try {
      const verified = await compactVerify(id, this.key, { algorithms: [ALGORITHM] });
      payload = JSON.parse(Buffer.from(verified.payload).toString('utf8')) as Payload;
    } catch {
      return undefined;
    }
    if (payload?.v !== VERSION || typeof payload.h !== 'string' || !MCP_MODES.includes(payload.m) || typeof payload.t !== 'number') return undefined;
    if (now - payload.t * 1000 > MAX_SESSION_AGE_MS) return undefined;
    const tag = Buffer.from(payload.h, 'base64url');
    const mine = Buffer.from(this.identityTag(identity), 'base64url');
    if (tag.length !== mine.length || !timingSafeEqual(tag, mine)) return undefined;
    return { protocolVersion: payload.p, capabilities: payload.c ?? {}, clientInfo: payload.i, mode: payload.m, compact: payload.k === true, ...(isProfileId(payload.r) ? { profile: payload.r } : {}), issuedAt: payload.t };
  }

  /** Its prefix ends in a NUL, which no JWS signing input holds: a tag is never a signature under the same key, nor the reverse. */
  private identityTag(identity: string): string {
    return createHmac('sha256', this.key).update(`toolhost-mcp-identity\u0000${identity}`).digest('base64url').slice(0, 22);
  }
}

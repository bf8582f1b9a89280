// API keys: the config holds only SHA-256 hashes, so a leaked config file
// leaks no key; the presented key is hashed and compared in constant time,
// so timing reveals nothing of a stored hash; optional expiry and revocation.
import { createHash, hash, timingSafeEqual } from 'node:crypto';
import { principalKey, type AuthOutcome, type Principal } from './principal.js';
import type { PrincipalEntry } from './principal-entry.js';

/** One API-key principal as written in the config and in `auth.keysFile`; defined in principal-entry.ts. */
export type { PrincipalEntry };

export function recordOfEntry(p: PrincipalEntry): ApiKeyRecord {
  return { principalId: p.id, tenant: p.tenant, scopes: p.scopes ?? [], keyHash: p.keyHash, expiresAt: p.expiresAt, revoked: p.revoked };
}

export interface ApiKeyRecord {
  principalId: string;
  tenant: string;
  scopes: readonly string[];
  keyHash: string;
  expiresAt?: string;
  revoked?: boolean;
}

export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

interface StoredKey {
  digest: Buffer;
  principal: Principal;
  expiresAtMs?: number;
  revoked: boolean;
}

export class ApiKeyStore {
  private keys = new Map<string, StoredKey>();
  private listeners = new Set<() => void>();
  /** Keys by principal key, made on first use after a replace (only MCP sessions ask). */
  private byPrincipal?: Map<string, StoredKey[]>;

  constructor(records: readonly ApiKeyRecord[] = []) {
    this.replace(records);
  }

  /** Swaps the whole key set at once (config reload). */
  replace(records: readonly ApiKeyRecord[]): void {
    const next = new Map<string, StoredKey>();
    for (const r of records) {
      const hex = r.keyHash.slice('sha256:'.length);
      next.set(hex, {
        digest: Buffer.from(hex, 'hex'),
        principal: { id: r.principalId, tenant: r.tenant, scopes: new Set(r.scopes), kind: 'api-key', key: principalKey('api-key', r.tenant, r.principalId) },
        expiresAtMs: r.expiresAt === undefined ? undefined : Date.parse(r.expiresAt),
        revoked: r.revoked === true,
      });
    }
    this.keys = next;
    this.byPrincipal = undefined;
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` after every replace (a keys-file reload); returns the unsubscribe. */
  onReplace(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Every principal key with a usable key (not revoked, not expired) now: what a reload took away is the difference. */
  usablePrincipalKeys(nowMs = Date.now()): Set<string> {
    const usable = new Set<string>();
    for (const s of this.keys.values()) if (!s.revoked && (s.expiresAtMs === undefined || nowMs < s.expiresAtMs)) usable.add(s.principal.key!);
    return usable;
  }

  /**
   * The principal a usable key (not revoked, not expired) currently gives for
   * this principal key, if any: what an open MCP session of that principal
   * may now see, without holding the key itself.
   */
  currentPrincipal(key: string, nowMs = Date.now()): Principal | undefined {
    if (this.byPrincipal === undefined) {
      this.byPrincipal = new Map();
      for (const stored of this.keys.values()) {
        const k = stored.principal.key!;
        const list = this.byPrincipal.get(k);
        if (list === undefined) this.byPrincipal.set(k, [stored]);
        else list.push(stored);
      }
    }
    return this.byPrincipal.get(key)?.find((s) => !s.revoked && (s.expiresAtMs === undefined || nowMs < s.expiresAtMs))?.principal;
  }

  get size(): number {
    return this.keys.size;
  }

  verify(token: string, nowMs = Date.now()): AuthOutcome {
    // One-shot hash: no Hash object per request, which showed in the small-answer profile.
    const digest = hash('sha256', token, 'buffer');
    // The map is keyed by the digest, which reveals nothing about the key; the
    // final comparison is still constant-time so no byte-by-byte early exit exists.
    const stored = this.keys.get(digest.toString('hex'));
    if (!stored || !timingSafeEqual(stored.digest, digest) || stored.revoked) {
      return { ok: false, presented: true, reason: 'unknown or revoked API key' };
    }
    if (stored.expiresAtMs !== undefined && nowMs >= stored.expiresAtMs) {
      return { ok: false, presented: true, reason: 'API key expired' };
    }
    return { ok: true, principal: stored.principal };
  }
}

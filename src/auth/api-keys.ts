// API keys (issue 2 item 4): the config holds only SHA-256 hashes, the
// presented key is hashed and compared in constant time, with optional expiry
// and revocation.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthOutcome, Principal } from './principal.js';

export const KEY_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

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
        principal: { id: r.principalId, tenant: r.tenant, scopes: new Set(r.scopes), kind: 'api-key' },
        expiresAtMs: r.expiresAt === undefined ? undefined : Date.parse(r.expiresAt),
        revoked: r.revoked === true,
      });
    }
    this.keys = next;
  }

  get size(): number {
    return this.keys.size;
  }

  verify(token: string, nowMs = Date.now()): AuthOutcome {
    const digest = createHash('sha256').update(token, 'utf8').digest();
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

// Sealing upstream credentials before they reach the database: AES-256-GCM
// under an operator-held key, so the grant table holds ciphertext only.
// Keys rotate: the operator lists several, the first seals, any of them
// opens (each sealed value names its key), and rows sealed with an older key
// are re-sealed with the first one (resealAll). The additional data binds a
// sealed value to its row (tenant, principal, source): a value copied into
// another principal's row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealingKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export class SealError extends Error {}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Decodes a key as the operator writes it: 64 hex digits, or base64/base64url of 32 bytes. */
export function decodeKey(text: string, what: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, /[-_]/.test(t) ? 'base64url' : 'base64');
  if (key.length !== 32) throw new SealError(`${what}: a sealing key must be 32 bytes (64 hex digits or base64 of 32 bytes)`);
  return key;
}

export class Keyring {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: readonly SealingKey[]) {
    if (keys.length === 0) throw new SealError('no sealing key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    if (this.byId.size !== keys.length) throw new SealError('two sealing keys share an id');
  }

  /** The key new values are sealed with. */
  get currentId(): string {
    return this.keys[0].id;
  }

  seal(plaintext: string, binding: string): { keyId: string; sealed: string } {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0].key, iv);
    cipher.setAAD(Buffer.from(binding, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.keys[0].id, sealed: Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url') };
  }

  /** Throws SealError when the key is unknown or the value was altered or moved to another row. */
  open(keyId: string, sealed: string, binding: string): string {
    const key = this.byId.get(keyId);
    if (!key) throw new SealError(`sealed with key ${JSON.stringify(keyId)}, which is not configured`);
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SealError('sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(binding, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealError('sealed value does not open (altered, or not this row)');
    }
  }
}

/** The additional data a grant row's sealed value is bound to: its tenant, principal, source and kind. */
export function rowBinding(row: { tenant: string; principal: string; source: string; kind: string }): string {
  return `${row.tenant}\u0000${row.principal}\u0000${row.source}\u0000${row.kind}`;
}

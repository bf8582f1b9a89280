// `identity-headers`: who is calling, sent to the upstream as headers (the
// principal id, the tenant, chosen JWT claims), and, when the source asks,
// a signed statement of the same (an HS256 JWS under a key the upstream
// shares) so the upstream can trust them: plain headers prove nothing to a
// server anyone else can reach. A statement is reused until shortly before
// it expires, so a caller's connection (keyed by its headers) is not
// reopened on every call.
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Principal } from '../auth/principal.js';
import type { CredentialsConfig } from '../sources/credentials-schema.js';
import type { UpstreamCredential } from '../sources/upstream-credential.js';

const FIELD_VALUE = /^[\x20-\x7e]*$/;
const DEFAULT_TTL_SECONDS = 300;
const MAX_CACHED = 4096;

/** A header value as sent: visible ASCII as is, anything else percent-encoded (a value can never break the header). */
function headerText(v: string): string {
  return FIELD_VALUE.test(v) ? v : encodeURIComponent(v);
}

function claimText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.slice(0, 1024);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export interface IdentitySigner {
  key: Uint8Array;
  header: string;
  audience: string;
  ttlSeconds: number;
}

export class IdentityHeaders {
  private readonly statements = new Map<string, { jws: string; renewAt: number }>();

  constructor(
    private readonly config: CredentialsConfig,
    private readonly signer: IdentitySigner | undefined,
  ) {}

  static signer(sourceId: string, config: CredentialsConfig, key: Uint8Array | undefined): IdentitySigner | undefined {
    if (!config.sign || !key) return undefined;
    return { key, header: config.sign.header ?? 'X-Toolhost-Identity', audience: config.sign.audience ?? sourceId, ttlSeconds: config.sign.ttlSeconds ?? DEFAULT_TTL_SECONDS };
  }

  async credential(principal: Principal, owner: string): Promise<UpstreamCredential> {
    const headers: Record<string, string> = {
      [this.config.principalHeader ?? 'X-Toolhost-Principal']: headerText(principal.id),
      [this.config.tenantHeader ?? 'X-Toolhost-Tenant']: headerText(principal.tenant),
    };
    const claims: Record<string, string> = {};
    for (const [claim, header] of Object.entries(this.config.claimHeaders ?? {})) {
      const v = claimText(principal.claims?.[claim]);
      if (v === undefined) continue;
      claims[claim] = v;
      headers[header] = headerText(v);
    }
    const secrets: string[] = [];
    if (this.signer) {
      const jws = await this.statement(principal, owner, claims, this.signer);
      headers[this.signer.header] = jws;
      secrets.push(jws);
    }
    const key = `${owner}#${createHash('sha256').update(JSON.stringify(headers)).digest('base64url').slice(0, 22)}`;
    return { owner, key, headers, replacesShared: false, secrets };
  }

  private async statement(principal: Principal, owner: string, claims: Record<string, string>, signer: IdentitySigner): Promise<string> {
    const cacheKey = `${owner}\u0000${JSON.stringify(claims)}`;
    const now = Date.now();
    const cached = this.statements.get(cacheKey);
    if (cached && cached.renewAt > now) return cached.jws;
    const iat = Math.floor(now / 1000);
    const jws = await new SignJWT({ tenant: principal.tenant, ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(principal.id)
      .setAudience(signer.audience)
      .setIssuer('toolhost')
      .setIssuedAt(iat)
      .setExpirationTime(iat + signer.ttlSeconds)
      .sign(signer.key);
    if (this.statements.size >= MAX_CACHED) this.statements.delete(this.statements.keys().next().value!);
    // Renewed at two thirds of its life: an upstream never receives one about to expire.
    this.statements.set(cacheKey, { jws, renewAt: now + (signer.ttlSeconds * 1000 * 2) / 3 });
    return jws;
  }
}

// Test fixture for JWT tests: a real JWKS served over loopback HTTP by
// node:http, signing keys made with jose, and tokens signed with them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export const ISSUER = 'https://idp.test.example/';
export const AUDIENCE = 'toolhost-test';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

export async function makeKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, jwk };
}

export function jwksOf(...keys: SigningKey[]): { keys: JWK[] } {
  return { keys: keys.map((k) => k.jwk) };
}

let serial = 0;

/** A signed token: defaults to a valid one for ISSUER/AUDIENCE expiring in 5 minutes; `claims` override or (undefined) remove. */
export async function signToken(key: SigningKey, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = { iss: ISSUER, aud: AUDIENCE, sub: 'agent-1', iat: now, exp: now + 300, jti: `t${++serial}`, ...claims };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
  return new SignJWT(payload as JWTPayload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}

export const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

export type JwksMode = 'ok' | 'error' | 'reset';

export interface JwksServer {
  url: string;
  /** Number of JWKS requests answered (any mode). */
  hits: number;
  setKeys(jwks: unknown): void;
  setMode(mode: JwksMode): void;
  close(): Promise<void>;
}

export async function startJwksServer(initial: unknown): Promise<JwksServer> {
  let body = JSON.stringify(initial);
  let mode: JwksMode = 'ok';
  const state = { hits: 0 };
  const server: Server = createServer((req, res) => {
    state.hits++;
    if (mode === 'reset') {
      req.socket.destroy();
      return;
    }
    if (mode === 'error' || req.url !== '/.well-known/jwks.json') {
      res.writeHead(mode === 'error' ? 503 : 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get hits() {
      return state.hits;
    },
    setKeys: (jwks) => {
      body = JSON.stringify(jwks);
    },
    setMode: (m) => {
      mode = m;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export { eventually } from '../helpers/patience.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// What the load generator asks for: scenarios of requests, with the status
// each must be answered with, and the small answers (by id, 304, 401, 404)
// that `npm run bench` and bench/small-answers.ts both measure. The bytes
// toolhost answers with are collected once (`RouteBook`) for the baseline
// and bare fastify to answer with.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_ID, type TenantName } from './config.js';
import { get, type RawResponse } from './procs.js';
import { routeKey } from './shared.js';
import { toolName } from './tools.js';

export interface Req {
  path: string;
  headers: Record<string, string>;
}

export interface Scenario {
  name: string;
  /** Small answers: also measured on bare fastify. */
  small?: boolean;
  /** Seconds per run when not the default (large bodies need longer for enough requests). */
  duration?: number;
  /** Target ratio to the baseline (undefined: reported only). */
  target?: number;
  connections: number;
  expect: number;
  requests: Req[];
}

export function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export const toolPath = (i: number, tools: number, compact = false) => `/tools/${encodeURIComponent(`mcp:${SERVER_ID}.${toolName(i, tools)}`)}${compact ? '?view=compact' : ''}`;

/** The answers toolhost gave, by what selects their bytes: what the baseline and bare fastify serve. */
export class RouteBook {
  readonly routes = new Map<string, RawResponse>();

  constructor(private readonly url: string) {}

  /** Fetches from toolhost once. */
  async fetch(r: Req): Promise<RawResponse> {
    const key = routeKey(r.headers.authorization, r.path, r.headers['accept-encoding'], r.headers['if-none-match']);
    let res = this.routes.get(key);
    if (!res) {
      res = await get(this.url, r.path, r.headers);
      this.routes.set(key, res);
    }
    return res;
  }

  /** Writes the routes file bench/baseline.ts and bench/fastify-floor.ts read. */
  write(dir: string): string {
    const specs: { key: string; status: number; headers: Record<string, string>; contractHeaders: Record<string, string>; file?: string }[] = [];
    let n = 0;
    for (const [key, res] of this.routes) {
      const headers: Record<string, string> = {};
      if (res.body.length > 0 && res.headers['content-type']) headers['content-type'] = String(res.headers['content-type']);
      if (res.headers['content-encoding']) headers['content-encoding'] = String(res.headers['content-encoding']);
      // Every header toolhost sent but the ones node:http adds itself: what the contract asks for (ETag, Vary, ...).
      const contractHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) contractHeaders[name] = String(value);
      }
      let file: string | undefined;
      if (res.body.length > 0) {
        file = join(dir, `body-${n++}.bin`);
        writeFileSync(file, res.body);
      }
      specs.push({ key, status: res.status, headers, contractHeaders, file });
    }
    const file = join(dir, 'routes.json');
    writeFileSync(file, JSON.stringify(specs));
    return file;
  }
}

export interface SmallAnswerOptions {
  tools: number;
  /** Random tools of the caller that sees every tool. */
  sample: number[];
  auth: (tenant: TenantName) => string;
}

/** The small answers the issue sets ≥ 0.75× the baseline for: GET /tools/{id} (standard, compact). */
export async function byIdScenarios(book: RouteBook, o: SmallAnswerOptions): Promise<Scenario[]> {
  const list: Scenario[] = [];
  for (const compact of [false, true]) {
    const requests = o.sample.map((i) => ({ path: toolPath(i, o.tools, compact), headers: { authorization: o.auth('all') } }));
    for (const r of requests) if ((await book.fetch(r)).status !== 200) throw new Error(`${r.path}: not 200`);
    list.push({ name: `GET /tools/{id} ${compact ? 'compact' : 'standard'}`, small: true, target: 0.75, connections: 32, expect: 200, requests });
  }
  return list;
}

/** The rest of the small answers: revalidation (list and by id), no credential, an id the caller may not see. */
export async function refusalScenarios(book: RouteBook, o: SmallAnswerOptions): Promise<Scenario[]> {
  const list: Scenario[] = [];
  const mid = o.tools / 10;
  {
    const r = { path: '/tools', headers: { authorization: o.auth('mid') } };
    const etag = String((await book.fetch(r)).headers.etag);
    const inm = { path: '/tools', headers: { authorization: o.auth('mid'), 'if-none-match': etag } };
    if ((await book.fetch(inm)).status !== 304) throw new Error('no 304');
    list.push({ name: `GET /tools ${mid.toLocaleString('en-US')} If-None-Match (304)`, small: true, target: 0.75, connections: 32, expect: 304, requests: [inm] });
  }
  {
    const requests: Req[] = [];
    for (const i of o.sample.slice(0, 200)) {
      const plain = { path: toolPath(i, o.tools), headers: { authorization: o.auth('all') } };
      const etag = String((await book.fetch(plain)).headers.etag);
      const r = { path: plain.path, headers: { authorization: o.auth('all'), 'if-none-match': etag } };
      if ((await book.fetch(r)).status !== 304) throw new Error('no 304');
      requests.push(r);
    }
    list.push({ name: 'GET /tools/{id} If-None-Match (304)', small: true, target: 0.75, connections: 32, expect: 304, requests });
  }
  {
    const r = { path: '/tools', headers: {} };
    if ((await book.fetch(r)).status !== 401) throw new Error('no 401');
    list.push({ name: 'GET /tools without credential (401)', small: true, target: 0.75, connections: 32, expect: 401, requests: [r] });
  }
  {
    // Ids that exist but that the 50-tool tenant may not see.
    const requests = o.sample
      .filter((i) => i >= 50)
      .slice(0, 200)
      .map((i) => ({ path: toolPath(i, o.tools), headers: { authorization: o.auth('small') } }));
    for (const r of requests) if ((await book.fetch(r)).status !== 404) throw new Error(`${r.path}: not 404`);
    list.push({ name: 'GET /tools/{id} invisible (404)', small: true, target: 0.75, connections: 32, expect: 404, requests });
  }
  return list;
}

// Deterministic generator of realistic MCP tool definitions for the benchmark
// upstream (bench/upstream.ts). Every tool is a pure function of its index
// (and a revision counter), so the orchestrator, the upstream and the
// in-process build benchmark agree on names and content without talking.
//
// Input schemas mix what real MCP servers publish: flat objects, nested
// objects, enums, arrays of scalars and of objects, `$ref`/`$defs`, `anyOf`
// nullable fields and `allOf` compositions. Their serialized size follows a
// skewed distribution between 200 bytes and 20 KB:
//   55 %  200 B ..  1 KB     30 %  1 KB .. 4 KB
//   12 %  4 KB .. 10 KB       3 % 10 KB .. 20 KB
// (measured for 10,000 tools: median about 1.1 KB, mean about 2.6 KB, 29 MB
// of tool JSON in all; the bench prints the figures of each run).
import { prng } from '../test/compact/support/random.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObj = { [k: string]: Json };

export interface GeneratedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObj;
  outputSchema?: JsonObj;
  annotations?: JsonObj;
}

export const DOMAINS = ['crm', 'billing', 'repo', 'tickets', 'chat', 'drive', 'calendar', 'k8s', 'analytics', 'support'] as const;
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'archive', 'sync', 'export', 'import', 'assign', 'close'];
const NOUNS = ['contact', 'account', 'invoice', 'payment', 'issue', 'comment', 'file', 'folder', 'event', 'deployment', 'report', 'ticket', 'message', 'channel', 'label', 'project', 'user', 'team'];
const WORDS = (
  'the of a to in for with on by from at as is are be this that which when where it its each every only any all ' +
  'record records item items value values field fields page pages result results request response filter filters ' +
  'sort order limit offset cursor owner team project workspace organization account user users label labels ' +
  'status state priority created updated deleted archived visible hidden optional required default maximum minimum ' +
  'returns matching given identifier unique name title summary description body content attachment attachments ' +
  'timezone locale currency amount quantity range start end date time duration retry timeout webhook callback'
).split(' ');
const FORMATS = ['date-time', 'date', 'email', 'uri', 'uuid'];

class Gen {
  constructor(readonly r: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)];
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  sentence(minWords: number, maxWords: number): string {
    const n = this.int(minWords, maxWords);
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(this.pick(WORDS));
    const s = w.join(' ');
    return `${s[0].toUpperCase()}${s.slice(1)}.`;
  }
  ident(): string {
    return `${this.pick(WORDS)}_${this.pick(NOUNS)}${this.int(0, 99)}`;
  }
}

export function domainOf(i: number, total: number): string {
  return DOMAINS[Math.min(DOMAINS.length - 1, Math.floor((i * DOMAINS.length) / total))];
}

export function toolName(i: number, total: number): string {
  const g = new Gen(prng(i * 7 + 1));
  return `${domainOf(i, total)}_${g.pick(VERBS)}_${g.pick(NOUNS)}_${String(i).padStart(5, '0')}`;
}

/** Target serialized size of tool i's input schema (see the distribution above). */
export function targetSize(i: number): number {
  const g = new Gen(prng(i * 13 + 5));
  const u = g.r();
  if (u < 0.55) return g.int(200, 1000);
  if (u < 0.85) return g.int(1000, 4000);
  if (u < 0.97) return g.int(4000, 10_000);
  return g.int(10_000, 20_000);
}

const size = (v: Json): number => JSON.stringify(v).length;

function scalar(g: Gen, depth: number): JsonObj {
  switch (g.int(0, 5)) {
    case 0:
      return { type: 'string', description: g.sentence(4, 14), ...(g.chance(0.3) ? { maxLength: g.int(16, 4096) } : {}), ...(g.chance(0.2) ? { format: g.pick(FORMATS) } : {}) };
    case 1:
      return { type: 'integer', description: g.sentence(3, 10), minimum: 0, maximum: g.pick([10, 100, 1000, 10_000]), ...(g.chance(0.4) ? { default: g.int(1, 10) } : {}) };
    case 2:
      return { type: 'boolean', description: g.sentence(3, 10), ...(g.chance(0.5) ? { default: g.chance(0.5) } : {}) };
    case 3: {
      const n = g.int(2, 8);
      const values = Array.from({ length: n }, (_, k) => `${g.pick(WORDS)}_${k}`);
      return { type: 'string', enum: values, description: g.sentence(3, 10), ...(g.chance(0.5) ? { default: values[0] } : {}) };
    }
    case 4:
      return { type: 'number', description: g.sentence(3, 10), exclusiveMinimum: 0, ...(g.chance(0.3) ? { multipleOf: 0.01 } : {}) };
    default:
      return depth < 3
        ? { type: 'array', description: g.sentence(3, 10), items: { type: 'string', ...(g.chance(0.5) ? { pattern: '^[a-z0-9-]+$' } : {}) }, maxItems: g.int(5, 100), uniqueItems: g.chance(0.5) }
        : { type: 'string', description: g.sentence(3, 8) };
  }
}

/** One property value of the given style; may register `$defs`. */
function property(g: Gen, depth: number, style: number, defs: JsonObj): Json {
  const k = depth >= 4 ? 0 : g.int(0, 9);
  if (k <= 3) return scalar(g, depth);
  if (k === 4 || (k === 5 && style === 1)) {
    // nested object
    const props: JsonObj = {};
    const n = g.int(2, 5);
    for (let j = 0; j < n; j++) props[g.ident()] = property(g, depth + 1, style, defs);
    return { type: 'object', description: g.sentence(3, 10), properties: props, required: Object.keys(props).slice(0, g.int(0, 2)), additionalProperties: false };
  }
  if (k === 5) {
    // array of objects
    const props: JsonObj = {};
    const n = g.int(2, 4);
    for (let j = 0; j < n; j++) props[g.ident()] = scalar(g, depth + 2);
    return { type: 'array', description: g.sentence(3, 10), items: { type: 'object', properties: props, required: [Object.keys(props)[0]] }, minItems: 1, maxItems: g.int(10, 500) };
  }
  if (k === 6) {
    // anyOf nullable
    const inner = scalar(g, depth + 1);
    const description = inner.description;
    delete inner.description;
    return { anyOf: [inner, { type: 'null' }], description, default: null };
  }
  if (k === 7 && style >= 2) {
    // $ref to a shared definition
    const noun = g.pick(NOUNS);
    const name = `${noun[0].toUpperCase()}${noun.slice(1)}${g.int(0, 3)}`;
    if (!(name in defs)) {
      const props: JsonObj = {};
      const n = g.int(2, 5);
      for (let j = 0; j < n; j++) props[g.ident()] = scalar(g, depth + 2);
      defs[name] = { type: 'object', description: g.sentence(3, 10), properties: props, required: [Object.keys(props)[0]] };
    }
    return g.chance(0.3) ? { type: 'array', items: { $ref: `#/$defs/${name}` } } : { $ref: `#/$defs/${name}` };
  }
  if (k === 8 && style >= 3) {
    // allOf composition
    if (!('Base' in defs)) {
      defs.Base = { type: 'object', properties: { id: { type: 'string', format: 'uuid', description: 'Unique identifier.' }, createdAt: { type: 'string', format: 'date-time' } }, required: ['id'] };
    }
    const props: JsonObj = {};
    const n = g.int(1, 4);
    for (let j = 0; j < n; j++) props[g.ident()] = scalar(g, depth + 2);
    return { allOf: [{ $ref: '#/$defs/Base' }, { type: 'object', properties: props }], description: g.sentence(3, 10) };
  }
  return scalar(g, depth);
}

export function inputSchema(i: number, revision = 0): JsonObj {
  const g = new Gen(prng(i * 31 + 17 + revision * 1_000_003));
  const target = targetSize(i);
  // 0 flat, 1 nested, 2 refs, 3 refs + allOf, 4 flat with enums and nullable fields
  const style = i % 5;
  const defs: JsonObj = {};
  const props: JsonObj = {};
  const required: string[] = [];
  let bytes = 60;
  let misses = 0;
  while (bytes < target) {
    let key = g.ident();
    while (key in props) key = `${key}_x`;
    const defsBefore = Object.keys(defs);
    const value = property(g, 1, style, defs);
    let add = key.length + 4 + size(value);
    for (const d of Object.keys(defs)) if (!defsBefore.includes(d)) add += d.length + 4 + size(defs[d]);
    // Overshooting the target by much: try a smaller property (a few times) instead.
    if (bytes + add > target * 1.15 && misses < 8) {
      misses++;
      for (const d of Object.keys(defs)) if (!defsBefore.includes(d)) delete defs[d];
      continue;
    }
    props[key] = value;
    if (required.length < 3 && g.chance(0.35)) required.push(key);
    bytes += add;
    if (Object.keys(props).length > 400) break;
  }
  const schema: JsonObj = { type: 'object', properties: props };
  if (required.length > 0) schema.required = required;
  if (i % 3 === 0) schema.additionalProperties = false;
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  if (i % 7 === 0) schema.$schema = 'https://json-schema.org/draft/2020-12/schema';
  return schema;
}

export function makeTool(i: number, total: number, revision = 0): GeneratedTool {
  const g = new Gen(prng(i * 101 + 3));
  const name = toolName(i, total);
  const [domain, verb, noun] = name.split('_');
  let description = `${verb[0].toUpperCase()}${verb.slice(1)}s ${noun} records in ${domain}. ${g.sentence(8, 40)} ${g.chance(0.5) ? g.sentence(6, 24) : ''}`.trim();
  if (revision > 0) description += ` (revision ${revision})`;
  const tool: GeneratedTool = { name, description, inputSchema: inputSchema(i, revision) };
  if (g.chance(0.5)) tool.title = `${verb[0].toUpperCase()}${verb.slice(1)} ${noun} (${domain})`;
  if (g.chance(0.2)) {
    tool.outputSchema = { type: 'object', properties: { ok: { type: 'boolean' }, id: { type: 'string' }, items: { type: 'array', items: { type: 'object' } } }, required: ['ok'] };
  }
  if (g.chance(0.4)) {
    // Upstream claims; the host ignores them and classifies on its own.
    tool.annotations = { readOnlyHint: verb === 'get' || verb === 'list', destructiveHint: verb === 'delete', openWorldHint: true };
  }
  return tool;
}

export function makeTools(total: number): GeneratedTool[] {
  return Array.from({ length: total }, (_, i) => makeTool(i, total));
}

/** The three bench tenants' allowlists (all, one tenth, 50 tools). */
export function tenantGlobs(server: string): Record<'all' | 'mid' | 'small', string[]> {
  return {
    all: ['*'],
    mid: [`mcp:${server}.${DOMAINS[0]}_*`],
    small: ['0', '1', '2', '3', '4'].map((d) => `mcp:${server}.*_000${d}?`),
  };
}

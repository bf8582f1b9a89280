// Action names (the `<action>` in `connector:<connectorId>.<action>`).
//
// Rules, in this order:
// 1. An operationId inside the name grammar (NAME_PATTERN: `[A-Za-z0-9_]` then
//    up to 127 of `[A-Za-z0-9_./-]`) is used as is.
// 2. Any other operationId is sanitized: every run of characters outside
//    `[A-Za-z0-9_./-]` becomes one `_`; a leading `.`, `/` or `-` gets a `_`
//    prefix; the result is cut to 128 characters. An operationId that
//    sanitizes to nothing but `_` counts as absent.
// 3. An operation without (usable) operationId gets `<method>_<path>`: lower-
//    case method, then the path segments with `{}` removed, joined by `_`,
//    runs of other characters turned into `_`, runs of `_` collapsed, leading
//    and trailing `_` trimmed: `GET /pets/{petId}` → `get_pets_petId`,
//    `GET /` → `get`.
// 4. Collisions: names are handed out first to exact operationIds, then to
//    sanitized ones, then to derived ones; inside a class by path (byte order)
//    then method (get, put, post, delete, options, head, patch, trace). The
//    first keeps the bare name, later ones get `_2`, `_3`, ... (cut so the
//    whole name stays within 128 characters), each with a warning.
import { NAME_PATTERN } from '../../contract/tool-id.js';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

const MAX_NAME = 128;

export type NameKind = 'exact' | 'sanitized' | 'derived';

export interface NamingInput {
  method: HttpMethod;
  path: string;
  operationId?: string;
}

export interface AssignedName {
  action: string;
  kind: NameKind;
  /** The name before collision handling (what include/exclude globs see when there is no operationId). */
  base: string;
}

export function sanitizeName(raw: string): string | undefined {
  let s = raw.replace(/[^A-Za-z0-9_./-]+/g, '_');
  if (!/^[A-Za-z0-9_]/.test(s)) s = `_${s}`;
  s = s.slice(0, MAX_NAME);
  if (/^_*$/.test(s)) return undefined;
  return NAME_PATTERN.test(s) ? s : undefined;
}

export function deriveName(method: HttpMethod, path: string): string {
  const segs = path
    .split('/')
    .map((seg) => seg.replace(/[{}]/g, '').replace(/[^A-Za-z0-9_]+/g, '_'))
    .filter((seg) => seg !== '');
  const name = [method, ...segs].join('_').replace(/_+/g, '_').replace(/^_+|_+$/g, '');
  return name.slice(0, MAX_NAME).replace(/_+$/, '') || method;
}

function nameFor(op: NamingInput): { base: string; kind: NameKind } {
  if (typeof op.operationId === 'string' && op.operationId !== '') {
    if (NAME_PATTERN.test(op.operationId)) return { base: op.operationId, kind: 'exact' };
    const s = sanitizeName(op.operationId);
    if (s) return { base: s, kind: 'sanitized' };
  }
  return { base: deriveName(op.method, op.path), kind: 'derived' };
}

const KIND_ORDER: Record<NameKind, number> = { exact: 0, sanitized: 1, derived: 2 };

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Assigns every operation a unique action name; the result is indexed like `ops`. */
export function assignActionNames(ops: readonly NamingInput[], warn: (message: string) => void): AssignedName[] {
  const bases = ops.map(nameFor);
  const order = ops.map((_, i) => i);
  order.sort((a, b) => {
    const ka = KIND_ORDER[bases[a].kind] - KIND_ORDER[bases[b].kind];
    if (ka !== 0) return ka;
    const pa = byteCompare(ops[a].path, ops[b].path);
    if (pa !== 0) return pa;
    return HTTP_METHODS.indexOf(ops[a].method) - HTTP_METHODS.indexOf(ops[b].method);
  });
  const taken = new Set<string>();
  const out: AssignedName[] = new Array(ops.length);
  for (const i of order) {
    const { base, kind } = bases[i];
    let action = base;
    for (let n = 2; taken.has(action); n++) {
      const suffix = `_${n}`;
      action = base.slice(0, MAX_NAME - suffix.length) + suffix;
    }
    if (action !== base) {
      const op = ops[i];
      warn(
        `operation ${op.method.toUpperCase()} ${op.path}${op.operationId !== undefined ? ` (operationId ${JSON.stringify(op.operationId)})` : ''} named ${action}: ${JSON.stringify(base)} is already taken`,
      );
    }
    taken.add(action);
    out[i] = { action, kind, base };
  }
  return out;
}

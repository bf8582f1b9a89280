// No file in src/ reads or writes an underscore-prefixed member of a value
// (`x._a`, `x['_a']`, `'_a' in x`, `const { _a } = x`): by convention such
// a member is a dependency's private state, which an upgrade may move or
// change without notice. Toolhost's own classes use `private` names without
// the underscore, so every use found is a reach-in. Where a dependency has
// no public way to do something, toolhost owns that piece behind a small
// module with its own conformance tests (docs/architecture.md).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { underscoreMemberUses } from './code-shape.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/**
 * Members whose underscore is part of a published protocol, not a mark of
 * private state: MCP's `_meta` (the metadata member of requests, results and
 * items in the specification, public in the SDK's types,
 * `@modelcontextprotocol/sdk/types.js`).
 */
const PROTOCOL_MEMBERS = new Set(['_meta']);

/**
 * Files that still reach in, by path under src/. Each entry must still have
 * a use (a stale entry fails the test), so the list only shrinks.
 */
const KNOWN_REACH_INS: { file: string; reason: string }[] = [];

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [relative(SRC, join(dir, d.name))] : []));
}

const uses = sourceFiles().flatMap((file) =>
  underscoreMemberUses(file, readFileSync(join(SRC, file), 'utf8'))
    .filter((u) => !PROTOCOL_MEMBERS.has(u.member))
    .map((u) => ({ file, ...u })),
);

test('no file in src/ reads or writes an underscore-prefixed member of a value', () => {
  const known = new Set(KNOWN_REACH_INS.map((k) => k.file));
  const found = uses.filter((u) => !known.has(u.file)).map((u) => `src/${u.file}:${u.line}: ${u.member} (${u.text})`);
  assert.deepEqual(found, [], `reach-ins into private members; use a public API or own the piece behind a tested module:\n${found.join('\n')}`);
});

test('every known reach-in is still there (remove the entry once it is gone)', () => {
  const stale = KNOWN_REACH_INS.filter((k) => !uses.some((u) => u.file === k.file)).map((k) => k.file);
  assert.deepEqual(stale, []);
});

test('the scan finds every form of a use, and nothing in comments, strings or types', () => {
  const text = [
    'interface Internals { _hidden?: number }',
    '// a comment naming x._commented',
    "const s = 'x._quoted';",
    'a._read;',
    'a?._optional;',
    'a._written = 1;',
    "a['_indexed'];",
    "if ('_present' in a) {}",
    'const { _destructured } = a;',
    'const { _renamed: mine } = a;',
    'this._own;',
    'a._meta;',
  ].join('\n');
  const found = underscoreMemberUses('sample.ts', text).map((u) => `${u.line} ${u.member}`);
  assert.deepEqual(found, ['4 _read', '5 _optional', '6 _written', '7 _indexed', '8 _present', '9 _destructured', '10 _renamed', '11 _own', '12 _meta']);
});

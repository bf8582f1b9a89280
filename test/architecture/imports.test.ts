// The layers of src/ and the direction of their imports, as the table in
// docs/architecture.md states them: the test reads the table, so the doc and
// the check cannot disagree. Every import of every file in src/ (static,
// `export … from`, dynamic `import('…')`, type imports) must be one its
// layer's "may import" cell allows, and no file may reach itself through its
// imports.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findCycles, importsOf, layerOf, layerViolations, parseLayerTable, type Edge } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/**
 * Imports known to break a rule, each with why. The checks leave them out;
 * an entry that matches no import any more fails the test, so that it is
 * removed as soon as its import is gone. None today.
 */
const KNOWN_EXCEPTIONS: { from: string; to: string; reason: string }[] = [];
const isKnown = (e: Edge) => KNOWN_EXCEPTIONS.some((k) => k.from === e.from && k.to === e.to);

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [relative(SRC, join(dir, d.name))] : []));
}

/** Every relative import in src/ as an edge between two files; problems for what does not resolve to a file in src/. */
function srcImports(): { files: string[]; edges: Edge[]; unresolved: string[] } {
  const files = sourceFiles();
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const from of files) {
    for (const imp of importsOf(from, readFileSync(join(SRC, from), 'utf8'))) {
      if (!imp.specifier.startsWith('.')) continue; // a package or node: builtin
      const target = resolve(SRC, dirname(from), imp.specifier.replace(/\.js$/, '.ts'));
      const to = relative(SRC, target);
      if (to.startsWith('..') || !existsSync(target)) unresolved.push(`src/${from}:${imp.line}: '${imp.specifier}' is not a file in src/`);
      else edges.push({ from, to, line: imp.line, typeOnly: imp.typeOnly });
    }
  }
  return { files, edges, unresolved };
}

// Read inside the tests, so that a table that cannot be read fails them with its reason.
const layerRules = () => parseLayerTable(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));
const { files, edges, unresolved } = srcImports();

describe('src/ against the layer table of docs/architecture.md', () => {
  test('the table has one row per folder of src/, and every file is in a folder', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    assert.deepEqual(layerRules().map((r) => r.layer).sort(), [...folders].sort());
    assert.deepEqual(files.filter((f) => !f.includes('/')), []);
  });

  test('the folder map names every folder below a layer, and no other', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const map = doc.slice(doc.indexOf('## Folder map'), doc.indexOf('\n## ', doc.indexOf('## Folder map') + 1));
    const named = [...map.matchAll(/^\| `([a-z-]+\/[a-z-]+)\/` \|/gm)].map((m) => m[1]).sort();
    const nested = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => readdirSync(join(SRC, d.name), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${d.name}/${e.name}`))
      .sort();
    assert.ok(nested.length > 5, `${nested.length} folders`);
    assert.deepEqual(named, nested);
  });

  test('every import is one its layer may make', () => {
    // Not vacuous: the parse found the imports there are.
    assert.ok(files.length > 50 && edges.filter((e) => layerOf(e.from) !== layerOf(e.to)).length > 100, `${files.length} files, ${edges.length} imports`);
    assert.deepEqual(unresolved, []);
    assert.deepEqual(layerViolations(layerRules(), edges.filter((e) => !isKnown(e))), []);
  });

  test('no file reaches itself through its imports (type imports included)', () => {
    const graph = new Map<string, Set<string>>(files.map((f) => [f, new Set()]));
    for (const e of edges) if (!isKnown(e)) graph.get(e.from)!.add(e.to);
    assert.deepEqual(findCycles(graph).map((c) => c.map((f) => `src/${f}`).join(' → ')), []);
  });

  test('every known exception still names an import, and says why', () => {
    for (const k of KNOWN_EXCEPTIONS) {
      assert.ok(k.reason.length > 0);
      assert.ok(edges.some((e) => e.from === k.from && e.to === k.to), `src/${k.from} no longer imports src/${k.to}: remove it from KNOWN_EXCEPTIONS`);
    }
  });
});

describe('the checker itself, on made-up input', () => {
  test('finds every kind of import, and which are erased', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "import './d.js';",
      "export { e } from './e.js';",
      "export type { F } from './f.js';",
      "export * from './g.js';",
      'const h = await import(',
      "  './h.js');",
      "let i: import('./i.js').I;",
      'const j = await import(someVariable);',
      "import {",
      "  k,",
      "} from 'node:fs';",
    ].join('\n');
    assert.deepEqual(
      importsOf('x.ts', text).map((i) => `${i.specifier}:${i.line}:${i.typeOnly ? 'type' : 'value'}`),
      ['./a.js:1:value', './b.js:2:type', './c.js:3:value', './d.js:4:value', './e.js:5:value', './f.js:6:type', './g.js:7:value', './h.js:9:value', './i.js:10:type', 'node:fs:14:value'],
    );
  });

  const table = (...rows: string[]) => ['| layer | holds | may import |', '| --- | --- | --- |', ...rows, '', 'after'].join('\n');

  test('reads the table, and refuses one that allows an upward import or cannot be read', () => {
    const rules = parseLayerTable(table('| `low/` | x | nothing of ours |', '| `mid/` | x | `low/` (types only: `T`) |', '| `top/` | x | everything below |'));
    assert.deepEqual(
      rules.map((r) => [r.layer, Object.fromEntries(r.mayImport)]),
      [['low', {}], ['mid', { low: false }], ['top', { low: true, mid: true }]],
    );
    assert.throws(() => parseLayerTable(table('| `low/` | x | `top/` |', '| `top/` | x | — |')), /`low\/` may import `top\/`, which is not below it/);
    assert.throws(() => parseLayerTable(table('| `low/` | x | — |', '| `top/` | x | low |')), /cannot read "may import" cell/);
    assert.throws(() => parseLayerTable(table('| low | x | — |')), /layer cell/);
  });

  test('reports an upward import, an undeclared one, and a value import where only types may come', () => {
    const rules = parseLayerTable(table('| `low/` | x | — |', '| `mid/` | x | `low/` (types only) |', '| `top/` | x | `mid/` |'));
    const edge = (from: string, to: string, typeOnly = false): Edge => ({ from, to, line: 1, typeOnly });
    assert.deepEqual(layerViolations(rules, [edge('mid/a.ts', 'low/b.ts', true), edge('top/a.ts', 'mid/b.ts'), edge('low/a.ts', 'low/c.ts')]), []);
    assert.equal(layerViolations(rules, [edge('low/a.ts', 'mid/b.ts')]).length, 1);
    assert.equal(layerViolations(rules, [edge('top/a.ts', 'low/b.ts', true)]).length, 1);
    assert.match(layerViolations(rules, [edge('mid/a.ts', 'low/b.ts')])[0], /may import only types/);
  });

  test('finds each cycle, self-imports too, and nothing in a graph without one', () => {
    const graph = (pairs: [string, string][]) => {
      const g = new Map<string, Set<string>>();
      for (const [a, b] of pairs) {
        if (!g.has(a)) g.set(a, new Set());
        if (!g.has(b)) g.set(b, new Set());
        g.get(a)!.add(b);
      }
      return g;
    };
    assert.deepEqual(findCycles(graph([['a', 'b'], ['b', 'c'], ['a', 'c'], ['c', 'd']])), []);
    assert.deepEqual(
      findCycles(graph([['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd'], ['d', 'e'], ['e', 'e'], ['x', 'y'], ['y', 'x']])).sort(),
      [['a', 'b', 'c', 'a'], ['e', 'e'], ['x', 'y', 'x']],
    );
  });
});

// The pieces of the architecture test: every import a TypeScript file makes,
// the layer table of docs/architecture.md read as rules, and the import
// cycles of a file graph. Kept apart from the test so that the test can also
// run them on small made-up inputs and show they catch what they should.
import ts from 'typescript';

export interface Import {
  specifier: string;
  line: number;
  /** `import type` / `export type ... from` / `import('…').T` in a type: erased, no module is loaded. */
  typeOnly: boolean;
}

/** Static `import … from`, side-effect `import '…'`, `export … from`, `import('…')` with a literal, and `import('…')` types. */
export function importsOf(fileName: string, text: string): Import[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (specifier: ts.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(specifier)) return;
    found.push({ specifier: specifier.text, line: source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      // Under verbatimModuleSyntax `import { type A }` still loads the module: only `import type` is erased.
      add(node.moduleSpecifier, node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length > 0) {
      add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export interface LayerRule {
  layer: string;
  /** The layers it may import from; `true`: values too, `false`: `import type` only. */
  mayImport: Map<string, boolean>;
}

const NOTHING = new Set(['—', 'nothing of ours']);
const EVERYTHING_BELOW = 'everything below';
const LAYER_CELL = /^`([a-z][a-z-]*)\/`$/;
/** `folder/`, then an optional note in parentheses; a note starting "types only" allows `import type` only. */
const ALLOWED = /`([a-z][a-z-]*)\/`(?:\s*\(([^)]*)\))?/g;

/**
 * The rows of the table whose header is `| layer | holds | may import |`, in
 * order, lowest layer first. Throws on a cell it cannot read, and on a row
 * allowing a layer that is not below it: the doc is the rule, so it must say
 * exactly one thing.
 */
export function parseLayerTable(markdown: string): LayerRule[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^\|\s*layer\s*\|\s*holds\s*\|\s*may import\s*\|\s*$/.test(l));
  if (start < 0) throw new Error('no "| layer | holds | may import |" table');
  const rules: LayerRule[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.slice(1, -1).split(' | ').map((c) => c.trim());
    if (cells.length !== 3) throw new Error(`expected 3 cells: ${line}`);
    const [layerCell, , allowedCell] = cells;
    const layer = LAYER_CELL.exec(layerCell)?.[1];
    if (!layer) throw new Error(`layer cell is not a backticked folder like \`catalog/\`: ${layerCell}`);
    const below = rules.map((r) => r.layer);
    const mayImport = new Map<string, boolean>();
    if (allowedCell === EVERYTHING_BELOW) {
      for (const l of below) mayImport.set(l, true);
    } else if (!NOTHING.has(allowedCell)) {
      const rest = allowedCell.replace(ALLOWED, (_m, name: string, note: string | undefined) => {
        if (!below.includes(name)) throw new Error(`\`${layer}/\` may import \`${name}/\`, which is not below it in the table`);
        mayImport.set(name, !note?.startsWith('types only'));
        return '';
      });
      if (rest.replace(/[,\s]/g, '') !== '') throw new Error(`\`${layer}/\`: cannot read "may import" cell (backticked folders, "${EVERYTHING_BELOW}" or "nothing of ours"): ${allowedCell}`);
    }
    rules.push({ layer, mayImport });
  }
  return rules;
}

/**
 * Every cycle of the graph, one per strongly connected component that has
 * one (Tarjan), each given as a path of nodes that returns to its start.
 */
export function findCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const strongConnect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strongConnect(v);
  return components.map((c) => shortestCycle(graph, new Set(c)));
}

/** A shortest path from the component's first node (sorted) back to itself, inside the component. */
function shortestCycle(graph: Map<string, Set<string>>, component: Set<string>): string[] {
  const start = [...component].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  throw new Error(`no cycle through ${start}`);
}

/** One import between two files of src/, paths relative to src/. */
export interface Edge {
  from: string;
  to: string;
  line: number;
  typeOnly: boolean;
}

export const layerOf = (file: string): string => file.split('/')[0];

/** The imports the table does not allow, each as one line naming the file, the line and the rule. */
export function layerViolations(rules: LayerRule[], edges: Edge[]): string[] {
  const byLayer = new Map(rules.map((r) => [r.layer, r]));
  const out: string[] = [];
  for (const e of edges) {
    const [from, to] = [layerOf(e.from), layerOf(e.to)];
    if (from === to) continue;
    const rule = byLayer.get(from);
    const values = rule?.mayImport.get(to);
    if (!rule) out.push(`src/${e.from}:${e.line}: \`${from}/\` has no row in the layer table`);
    else if (values === undefined) out.push(`src/${e.from}:${e.line} imports src/${e.to}: \`${from}/\` may not import \`${to}/\``);
    else if (!values && !e.typeOnly) out.push(`src/${e.from}:${e.line} imports src/${e.to}: \`${from}/\` may import only types from \`${to}/\` (use \`import type\`)`);
  }
  return out;
}

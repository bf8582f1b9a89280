// The pieces of the code-shape tests (no-reach-ins.test.ts,
// function-length.test.ts), read with the TypeScript compiler so that
// comments and strings never count: every use of an underscore-prefixed
// member on a value, and every function longer than a bound with the comment
// directly above it. Kept apart from the tests so that they also run on
// small made-up inputs and show they catch what they should.
import ts from 'typescript';

export interface MemberUse {
  line: number;
  member: string;
  /** The expression as written, for the failure message. */
  text: string;
}

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

const underscored = (name: string) => name.startsWith('_');

/**
 * Reads and writes of an underscore-prefixed member on a value: `x._a`,
 * `x?._a`, `x['_a']`, `'_a' in x`, `const { _a } = x`. Private members of
 * a dependency by the common convention; types that describe them are not
 * uses, the expressions that touch them are.
 */
export function underscoreMemberUses(fileName: string, text: string): MemberUse[] {
  const source = parse(fileName, text);
  const found: MemberUse[] = [];
  const add = (node: ts.Node, member: string) =>
    found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, member, text: node.getText(source).split('\n')[0].slice(0, 120) });
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && underscored(node.name.text)) add(node, node.name.text);
    else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && underscored(node.argumentExpression.text)) add(node, node.argumentExpression.text);
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.InKeyword && ts.isStringLiteralLike(node.left) && underscored(node.left.text)) add(node, node.left.text);
    else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      const key = node.propertyName ?? node.name;
      if ((ts.isIdentifier(key) || ts.isStringLiteralLike(key)) && underscored(key.text)) add(node, key.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export interface LongFunction {
  /** A readable name: the function's own, or that of what it is assigned to, or `<callback>` in the function around it. */
  name: string;
  line: number;
  lines: number;
  /** The comment block ending on the line directly above the function's first line ('' if none). */
  commentAbove: string;
}

function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  const own = node.name !== undefined && (ts.isIdentifier(node.name) || ts.isStringLiteralLike(node.name) || ts.isPrivateIdentifier(node.name)) ? node.name.text : undefined;
  const parent = node.parent;
  let name = own;
  if (name === undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) name = parent.name.text;
  if (ts.isConstructorDeclaration(node)) name = 'constructor';
  const cls = ts.isClassLike(parent) ? parent : undefined;
  if (cls !== undefined && name !== undefined) return `${cls.name?.text ?? '<class>'}.${name}`;
  if (name !== undefined) return name;
  for (let up: ts.Node = parent; !ts.isSourceFile(up); up = up.parent) {
    if (ts.isFunctionLike(up)) return `<callback> in ${nameOf(up as ts.FunctionLikeDeclaration, source)}`;
  }
  return '<callback>';
}

/** The comment lines (`//` lines or one `/* … *\/` block) ending directly above line `line` (0-based). */
function commentAbove(lines: string[], line: number): string {
  let i = line - 1;
  const block: string[] = [];
  if (i >= 0 && lines[i].trim().endsWith('*/')) {
    while (i >= 0) {
      block.unshift(lines[i]);
      if (lines[i].trim().startsWith('/*')) break;
      i--;
    }
    return block.join('\n');
  }
  while (i >= 0 && lines[i].trim().startsWith('//')) block.unshift(lines[i--]);
  return block.join('\n');
}

/** Every function (declaration, method, accessor, constructor, arrow or function expression) longer than `max` lines. */
export function longFunctions(fileName: string, text: string, max: number): LongFunction[] {
  const source = parse(fileName, text);
  const lines = text.split('\n');
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const length = last - first + 1;
      if (length > max) found.push({ name: nameOf(fn, source), line: first + 1, lines: length, commentAbove: commentAbove(lines, first) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The words a comment directly above a long function says why with. */
export const LONG_BECAUSE = /over 80 lines because \S.{9,}/i;

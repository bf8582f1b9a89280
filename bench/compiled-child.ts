// The bench's toolhost child as users run toolhost: compiled JavaScript on
// plain node, importing the built `dist/` (what `npm start` and the container
// run), not the TypeScript sources through tsx, whose loader thread and
// import hooks would be measured with it (docs/benchmarks.md "Cold start,
// list_changed and memory").
//
// The child script and the bench modules it imports are transpiled (types
// erased, nothing else) into a temp dir; its imports of `../src/X.js` point
// at `dist/X.js`, package imports at the files they resolve to from bench/.
// `npm run build` first (`npm run bench` does).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { REPO_ROOT } from './config.js';

const DIST = join(REPO_ROOT, 'dist');

/** Where `specifier`, imported by a bench module, points in the compiled copy. */
function rewrite(specifier: string, outDir: string, done: Map<string, string>): string {
  if (specifier.startsWith('../src/')) {
    const file = join(DIST, specifier.slice('../src/'.length));
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
    return pathToFileURL(file).href;
  }
  if (specifier.startsWith('./')) return pathToFileURL(compileOne(join(REPO_ROOT, 'bench', specifier.replace(/\.js$/, '.ts')), outDir, done)).href;
  if (specifier.startsWith('node:')) return specifier;
  return import.meta.resolve(specifier);
}

function compileOne(source: string, outDir: string, done: Map<string, string>): string {
  const known = done.get(source);
  if (known !== undefined) return known;
  const out = join(outDir, basename(source).replace(/\.ts$/, '.mjs'));
  done.set(source, out);
  const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    fileName: source,
  });
  // Static and dynamic imports alike; type-only imports are gone already.
  const text = outputText.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g, (_m, lead: string, q: string, spec: string) => `${lead}${q}${rewrite(spec, outDir, done)}${q}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  return out;
}

/** The bench script `script` (a .ts file in bench/) compiled into `outDir`, runnable with plain node: its path. */
export function compiledChild(script: string, outDir: string): string {
  if (!existsSync(join(DIST, 'host/serve.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  return compileOne(script, outDir, new Map());
}

/** For checks by hand: `npx tsx bench/compiled-child.ts bench/toolhost-child.ts DIR` prints the compiled path. */
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) console.log(compiledChild(process.argv[2], process.argv[3]));

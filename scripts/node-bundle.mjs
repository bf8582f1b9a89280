// How the test runner turns TypeScript into plain JavaScript node can load
// without a loader: esbuild (the compiler tsx itself runs on) bundles a
// program's own files into one module; packages stay imports, found through
// the repository's node_modules because bundles are written below it. Each
// source file keeps its own `import.meta.url` (bundling would otherwise give
// every file the bundle's), so paths a module finds beside itself still
// resolve. Names are kept (`keepNames`) so errors and classes read as in the
// source, and the inline source map lets a failure name the source line.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

/** An esbuild plugin: every TypeScript file outside node_modules sees its own URL as `import.meta.url`. */
export const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, async ({ path }) => {
      if (path.includes('/node_modules/')) return undefined;
      const text = await readFile(path, 'utf8');
      return { contents: text.replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(path).href)), loader: 'ts' };
    });
  },
};

/** esbuild options shared by every bundle the tests run; a synchronous build (which cannot run plugins) uses them without `ownImportMetaUrl`. */
export const nodeBundleOptions = {
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  keepNames: true,
  logLevel: 'warning',
};

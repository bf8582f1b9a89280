// How a test starts one of its TypeScript child programs (an MCP upstream
// fixture, a second writer): as one plain JavaScript file, not through tsx.
// Started through tsx, a child pays the loader and the resolution of every
// TypeScript import on each start, about 0.8 s of CPU more than plain node on
// this machine, and the suite starts such children dozens of times. esbuild
// bundles the program's own files into one module once per test process, with
// the options the test runner bundles with (scripts/node-bundle.mjs). Bundles
// are named by their content, so test processes running side by side share
// them and a changed fixture gets a new one.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { buildSync } from 'esbuild';
import { nodeBundleOptions } from '../../scripts/node-bundle.mjs';

const CACHE = new URL('../../node_modules/.cache/toolhost-test-programs/', import.meta.url).pathname;
const built = new Map<string, string>();

function bundle(entry: string): string {
  const { outputFiles } = buildSync({ ...nodeBundleOptions, entryPoints: [entry], write: false, logLevel: 'silent' });
  const text = outputFiles[0].text;
  const file = join(CACHE, `${basename(entry, '.ts')}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(CACHE, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, file);
  }
  return file;
}

/** The node arguments that run the TypeScript program `entry` (an absolute path); its own arguments follow them. */
export function programArgs(entry: string): string[] {
  let file = built.get(entry);
  if (file === undefined) {
    file = bundle(entry);
    built.set(entry, file);
  }
  return [file];
}

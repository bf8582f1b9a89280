#!/usr/bin/env node
// The `toolhost` command: runs the compiled CLI (dist/, made by `npm run build`,
// which `npm ci` runs through `prepare`) with plain node, no loader.
try {
  await import('../dist/cli/main.js');
} catch (err) {
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
    process.stderr.write('toolhost: no build found; run `npm run build` (or `npm ci`, which builds) first\n');
    process.exit(2);
  }
  throw err;
}

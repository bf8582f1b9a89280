// The test files of one set: `fast` (what `npm test` runs) or `e2e` (the
// end-to-end checks that start several processes, install the packed package
// or drive Chromium: `npm run test:e2e`, which .ci/run runs after `npm test`).
// A file is in `e2e` when it lives under test/e2e/ or test/ui/; every other
// test/*/*.test.ts is `fast`. Run directly, prints the set's files.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const E2E = new Set(['e2e', 'ui']);

export function testFiles(set) {
  if (set !== 'fast' && set !== 'e2e') throw new Error('usage: fast|e2e');
  const root = new URL('../test/', import.meta.url).pathname;
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && E2E.has(d.name) === (set === 'e2e'))
    .flatMap((d) => readdirSync(join(root, d.name)).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${d.name}/${f}`))
    .sort();
}

if (import.meta.url === new URL(process.argv[1], 'file://').href) {
  try {
    console.log(testFiles(process.argv[2]).join('\n'));
  } catch (error) {
    console.error(`node scripts/test-files.mjs fast|e2e: ${error.message}`);
    process.exit(2);
  }
}

// Prints the test files of one set for the test runner: `fast` (what
// `npm test` runs) or `e2e` (the end-to-end checks that start several
// processes, install the packed package or drive Chromium: `npm run
// test:e2e`, which .ci/run runs after `npm test`). A file is in `e2e` when it
// lives under test/e2e/ or test/ui/; every other test/*/*.test.ts is `fast`.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const set = process.argv[2];
if (set !== 'fast' && set !== 'e2e') {
  console.error('usage: node scripts/test-files.mjs fast|e2e');
  process.exit(2);
}
const root = new URL('../test/', import.meta.url).pathname;
const E2E = new Set(['e2e', 'ui']);
const files = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory() && E2E.has(d.name) === (set === 'e2e'))
  .flatMap((d) => readdirSync(join(root, d.name)).filter((f) => f.endsWith('.test.ts')).map((f) => `test/${d.name}/${f}`))
  .sort();
console.log(files.join('\n'));

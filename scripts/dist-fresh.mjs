// Whether dist/ was built after every file it is built from was last
// changed: `npm ci` builds it (the prepare script), so neither a second
// prepare nor `npm test` right after it needs to build it again.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** True when dist/ holds a build newer than src/, ui/ and the TypeScript configs under `root`. */
export function distIsFresh(root) {
  const built = join(root, 'dist/cli/main.js');
  const sources = ['src', 'ui', 'tsconfig.json', 'tsconfig.build.json', 'ui/tsconfig.json'].map((p) => join(root, p)).filter(existsSync);
  return existsSync(built) && existsSync(join(root, 'dist/ui')) && statSync(built).mtimeMs >= Math.max(...sources.map(newest));
}

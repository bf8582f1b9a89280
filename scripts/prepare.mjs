// `npm ci` / `npm install` in a checkout builds dist/ (README, CI and the
// tests run the build); an installed copy (a packed tarball has no .git and
// ships dist/) is never rebuilt, and a checkout whose dist/ is newer than
// every source file is not built twice (`npm pack` runs prepack, which
// builds, then prepare).
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(join(root, '.git'))) process.exit(0);

function newest(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const built = join(root, 'dist/cli/main.js');
const sources = ['src', 'ui', 'tsconfig.json', 'tsconfig.build.json'].map((p) => join(root, p)).filter(existsSync);
if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources.map(newest))) process.exit(0);
execSync('npm run build', { cwd: root, stdio: 'inherit' });

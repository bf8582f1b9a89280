// `npm ci` / `npm install` in a checkout builds dist/ (README, CI and the
// tests run the build); an installed copy (a packed tarball has no .git and
// ships dist/) is never rebuilt, and a checkout whose dist/ is newer than
// every source file is not built twice (`npm pack` runs prepack, which
// builds, then prepare).
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(join(root, '.git'))) process.exit(0);
// Imported only in a checkout: an installed copy ships this file alone.
const { distIsFresh } = await import('./dist-fresh.mjs');
if (distIsFresh(root)) process.exit(0);
execSync('npm run build', { cwd: root, stdio: 'inherit' });

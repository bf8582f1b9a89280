// Reloads the host when its config file changes. The directory is watched and
// the content compared (auth/watch.ts), so an editor's rename-over and the
// `..data` symlink swap of a Kubernetes ConfigMap volume are both seen, and a
// touch that changes nothing reloads nothing.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { watchFileText, type FileWatch } from '../auth/watch.js';
import type { ConfigReloader } from './reload.js';

export function watchConfigFile(file: string, reloader: ConfigReloader, logger: Logger, debounceMs?: number): FileWatch {
  let initial: string | undefined;
  try {
    initial = readFileSync(file, 'utf8');
  } catch {
    // Read at start a moment ago; a file gone since is reported by the watch.
  }
  return watchFileText(
    file,
    initial,
    {
      onText: () => void reloader.reloadFile('config file changed').catch((err: unknown) => logger.error({ err }, 'config reload failed')),
      onError: (message) => logger.error({ problems: [message] }, `config file unreadable; still serving the last good config: ${message}`),
    },
    { debounceMs, logger },
  );
}

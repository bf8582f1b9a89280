// Watches one file for changes the way deployments actually change files:
// editors that write a temp file and rename it over the original, and
// Kubernetes volumes that swap a `..data` symlink. So the directory is
// watched, not the file; any event there schedules one debounced re-read, and
// the consumer compares content, so events for other files cost one read.
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';

export const DEFAULT_DEBOUNCE_MS = 150;

export interface FileWatch {
  close(): void;
}

/**
 * Calls `onText(text)` after the file changes (debounced), with the file's new
 * content, or `onError(message)` when it cannot be read. Unchanged content is
 * not reported.
 */
export function watchFileText(
  file: string,
  initialText: string | undefined,
  handlers: { onText: (text: string) => void; onError: (message: string) => void },
  options: { debounceMs?: number; logger?: Logger } = {},
): FileWatch {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  let lastText = initialText;
  let lastError: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const check = (): void => {
    timer = undefined;
    if (closed) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const message = `${file}: cannot read file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
      if (message !== lastError) handlers.onError(message);
      lastError = message;
      return;
    }
    lastError = undefined;
    if (text === lastText) return;
    lastText = text;
    handlers.onText(text);
  };

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, () => {
      if (closed) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(check, debounceMs);
      timer.unref();
    });
    watcher.on('error', (err) => options.logger?.error({ file: basename(file), err: err.message }, 'file watch failed; changes are no longer picked up'));
  } catch (err) {
    options.logger?.error({ file, err: (err as Error).message }, 'cannot watch file; changes are not picked up without a restart');
  }

  return {
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}

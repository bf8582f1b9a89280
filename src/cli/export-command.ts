// `toolhost config export`: the effective configuration as YAML, the file
// with the admin API's changes stored in the event store's database over it
// (docs/admin.md), literal secrets masked as the admin API masks them.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { loadConfigFile } from '../config/load.js';
import { EventLog } from '../events/sqlite/log.js';
import type { EventStore } from '../events/store.js';
import { layeredConfig, readStoredLayer } from '../host/admin.js';
import { maskedConfig } from '../host/admin-view.js';
import { openPostgresEvents } from '../host/postgres-events-config.js';

/** Opens the event store the config names, if it exists; nothing is created. */
async function openStore(loaded: ReturnType<typeof loadConfigFile>, env: NodeJS.ProcessEnv, stops: (() => unknown)[]): Promise<EventStore | undefined> {
  const events = loaded.config.events;
  if (loaded.config.admin === undefined || events === undefined) return undefined;
  if (events.postgres !== undefined) {
    return openPostgresEvents(events, { env, configDir: loaded.dir, logger: pino({ level: 'silent' }), metrics: undefined, onStop: (stop) => stops.push(stop) });
  }
  const file = resolve(loaded.dir, events.file!);
  if (!existsSync(file)) return undefined;
  const log = EventLog.open(file, { createIfMissing: false });
  stops.push(() => log.close());
  return log;
}

export async function runConfigExport(configFile: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const loaded = loadConfigFile(configFile);
  const stops: (() => unknown)[] = [];
  try {
    const store = await openStore(loaded, env, stops);
    const effective = store?.configChanges === undefined ? loaded : layeredConfig(loaded, (await readStoredLayer(store.configChanges)).layer);
    return stringify(maskedConfig(effective.config));
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

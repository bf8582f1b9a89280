// Micro-benchmark of one `GET /events?limit=1000` page, without HTTP: the
// body as built before (rows parsed into objects, then JSON.stringify of the
// whole page) against the body joined from the JSON SQLite builds per row,
// and the longest stretch the event loop is held while a page is assembled
// in chunks (src/http/event-pages.ts). Run: npx tsx bench/events-page.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../src/events/sqlite/log.js';
import { ToolSession } from '../src/events/session.js';

const PAGE = 1000;
const CHUNK = 250;
const ROUNDS = 200;

const dir = mkdtempSync(join(tmpdir(), 'toolhost-bench-events-'));
const log = EventLog.open(join(dir, 'events.sqlite'));
try {
  const who = { tenant: 'acme', principal: 'bench-agent' };
  for (let i = 0; i < PAGE / 4 + 10; i++) {
    const s = ToolSession.open(log, who, `openwop:text.tool${i}`);
    s.returned(s.called(`openwop:text.tool${i}`), `openwop:text.tool${i}`, 'ok', 1.25);
    await s.finish('completed');
  }

  const time = async (what: string, build: () => Promise<string>): Promise<void> => {
    let bytes = 0;
    const start = performance.now();
    for (let i = 0; i < ROUNDS; i++) bytes += (await build()).length;
    const ms = (performance.now() - start) / ROUNDS;
    console.log(`${what.padEnd(44)} ${ms.toFixed(3)} ms per page (${Math.round(bytes / ROUNDS / 1024)} KiB)`);
  };

  await time('objects + JSON.stringify (before)', async () => {
    const events = await log.readAfter('acme', -1, PAGE);
    return JSON.stringify({ events, next: events[events.length - 1].sequence });
  });
  await time('stored JSON joined, one read', async () => {
    const rows = await log.readAfterSerialized('acme', -1, PAGE);
    return `{"events":[${rows.map((r) => r.json).join(',')}],"next":${rows[rows.length - 1].sequence}}`;
  });
  await time(`one chunk of ${CHUNK} (longest hold of the loop)`, async () => (await log.readAfterSerialized('acme', -1, CHUNK)).map((r) => r.json).join(','));
} finally {
  log.close();
  rmSync(dir, { recursive: true, force: true });
}

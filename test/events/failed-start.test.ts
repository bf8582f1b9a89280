// A start that fails leaves nothing behind: with a stdio MCP source (the
// fixture, a real child process) and an events file that cannot be opened,
// serve() rejects, no fixture process of ours is alive, and no timer, child
// or socket keeps the process running.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { serve } from '../../src/host/serve.js';
import { FIXTURE, root } from '../front-door/front-door-helpers.js';
import { tempDir, writeConfig } from '../helpers/server.js';
import { waitFor } from './helpers.js';
import { programArgs } from '../helpers/fixture-command.js';

/** Pids of live processes whose command line holds `marker` (zombies have none). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) pids.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

/** The kinds of resources that keep a process alive: timers, children, pipes, sockets, watchers. */
const KEEP_ALIVE = new Set(['Timeout', 'ChildProcess', 'ProcessWrap', 'PipeWrap', 'TCPWrap', 'TCPServerWrap', 'FSEventWrap', 'StatWatcher']);
const keepAlive = () => process.getActiveResourcesInfo().filter((r) => KEEP_ALIVE.has(r));

function configWithFixture(marker: string, eventsFile: string, dir: string): string {
  return writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      events: { file: eventsFile },
      sources: {
        mcp: [
          {
            id: 'fx',
            transport: 'stdio',
            command: process.execPath,
            args: [...programArgs(FIXTURE), '--transport', 'stdio', '--marker', marker],
            cwd: root,
            refreshIntervalMs: 0,
          },
        ],
      },
    },
    dir,
  );
}

for (const [what, prepare] of [
  ['whose directory is a regular file', (dir: string) => (writeFileSync(join(dir, 'blocker'), ''), 'blocker/events.sqlite')],
  ['that is a directory', (dir: string) => (mkdirSync(join(dir, 'events.sqlite')), 'events.sqlite')],
] as const) {
  test(`an events file ${what}: serve() rejects and stops the MCP child and every timer`, { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const baseline = keepAlive();
    const dir = tempDir('toolhost-failed-start-');
    const marker = `failed-start-${randomUUID()}`;
    const config = configWithFixture(marker, prepare(dir), dir);

    await assert.rejects(serve(config, { host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) }), (err: Error) => {
      assert.match(err.message, /events\.sqlite|ENOTDIR|EEXIST|unable to open database/);
      return true;
    });

    await waitFor(() => processesWith(marker).length === 0, 20_000, 'the fixture child to be gone');
    await waitFor(() => keepAlive().length <= baseline.length, 20_000, `nothing left keeping the process alive (have ${keepAlive().join(', ')})`);
  });
}

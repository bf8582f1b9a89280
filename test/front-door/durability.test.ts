// Nothing is lost when the host is killed right after a call returns:
// the real CLI in a child process, SIGKILL, then the SQLite log read back.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { readableMcpName } from '../../src/catalog/tool-names.js';
import { EventLog } from '../../src/events/sqlite/log.js';
import { connect, root, startApi, writeWorld } from './front-door-helpers.js';

test('SIGKILL right after a call returns: the whole session is in the log after restart', async () => {
  const api = await startApi();
  const world = writeWorld(api.url);
  const child = spawn(process.execPath, ['--import', 'tsx', `${root}src/cli/main.ts`, 'serve', '--config', world.configFile, '--port', '0'], {
    env: { ...world.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let out = '';
    while (!/listening on (\S+)/.test(out)) out += String((await once(child.stdout!, 'data'))[0]);
    const url = /listening on (\S+)/.exec(out)![1];
    const client = await connect(url, 'ka');
    const result = await client.callTool({ name: readableMcpName('openwop:t.upper'), arguments: { text: 'x' } });
    assert.equal(result.isError, undefined);
    child.kill('SIGKILL');
    await once(child, 'exit');
  } finally {
    child.kill('SIGKILL');
    api.server.close();
  }
  const log = EventLog.open(world.eventsFile);
  try {
    const events = await log.readAfter('a', -1, 100);
    assert.deepEqual(
      events.map((e) => e.type),
      ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed'],
    );
    assert.equal(new Set(events.map((e) => e.sessionId)).size, 1);
    assert.equal(events.at(-1)!.payload.outcome, 'completed');
  } finally {
    log.close();
  }
});

// The serving process's log is buffered (src/cli/logger.ts, docs/deploy.md
// "Logging"): the built command, run as a deployment runs it, writes every
// audit line of the requests it answered before it exits on SIGTERM, and a
// line does not wait for a stop or for more traffic to be written. A start
// refused for a missing event log is one line on stderr.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { tempDir, writeConfig } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/toolhost.js');
const KEY = 'serve-log-test-key';

function start(): { child: ChildProcess; output: { text: string }; url: Promise<string> } {
  const dir = tempDir('toolhost-serve-log-');
  const file = writeConfig(
    {
      auth: { defaultRateLimit: false },
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'agent', tenant: 'acme', keyHash: hashApiKey(KEY) }],
      sources: { nodePacks: [{ path: join(ROOT, 'examples/demo/packs/text') }] },
    },
    dir,
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--host', '127.0.0.1', '--port', '0', '--log-format', 'json'], {
    cwd: dir,
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout!.on('data', (c: Buffer) => (output.text += c.toString()));
  const url = new Promise<string>((resolve, reject) => {
    const look = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.text);
      if (m) resolve(m[1]);
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${output.text}`)));
  });
  return { child, output, url };
}

const auditLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { audit?: boolean; status?: number; route?: string })
    .filter((l) => l.audit === true);

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

test('every audit line of the requests answered is in the output after SIGTERM', async () => {
  const { child, output, url } = start();
  try {
    const base = await url;
    const statuses: number[] = [];
    // Fewer bytes than one batch, and then many batches: both the tail and whole batches must arrive.
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${base}/tools${i % 3 === 2 ? '/openwop:text.nope' : ''}`, { headers: i % 5 === 4 ? {} : { authorization: `Bearer ${KEY}` } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
    const lines = auditLines(output.text);
    assert.equal(lines.length, statuses.length, 'an audit line per request');
    assert.deepEqual(
      lines.map((l) => l.status),
      statuses,
    );
  } finally {
    await stop(child);
  }
});

test('a line is written within a moment when traffic is low, without a stop', async () => {
  const { child, output, url } = start();
  try {
    const base = await url;
    const res = await fetch(`${base}/tools`, { headers: { authorization: `Bearer ${KEY}` } });
    await res.arrayBuffer();
    const deadline = Date.now() + 5000;
    while (auditLines(output.text).length === 0) {
      assert.ok(Date.now() < deadline, 'the audit line of a lone request was still buffered after 5 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(auditLines(output.text)[0].route, '/tools');
  } finally {
    await stop(child);
  }
});

test('a start refused for a missing event log says why in one line, without a stack trace', async () => {
  const dir = tempDir();
  const file = writeConfig({ tenants: { acme: { tools: ['*'] } }, events: { file: 'gone/events.sqlite', createIfMissing: false } }, dir);
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--host', '127.0.0.1', '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 1);
  assert.match(stderr, /^toolhost: cannot open the event store: .*gone\/events\.sqlite: the event log does not exist and events\.createIfMissing is false[^\n]*\n$/);
});

// Durability (CONTRACT.md "Tool sessions": a durable log): a process that
// appended a whole session and is then SIGKILLed loses none of it. The child
// writes "done" only after append() has returned for the last event; the
// parent kills it the moment it reads that line, before any clean shutdown.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { EventLog } from '../../src/events/sqlite/log.js';
import { logFile } from './helpers.js';
import { programArgs } from '../helpers/fixture-command.js';

const CHILD = fileURLToPath(new URL('./durability-child.ts', import.meta.url));

interface ChildReport {
  ids: string[];
  groups: number;
  appends: number;
}

function runAndKill(file: string, sessions: number): Promise<ChildReport & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...programArgs(CHILD), file, String(sessions)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let report: ChildReport | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not finish in time; stderr: ${err}`));
    }, 60_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (report === undefined && /\ndone\n/.test(out)) {
        child.kill('SIGKILL'); // at once: no close(), no checkpoint, no exit handlers
        report = JSON.parse(out.slice(0, out.indexOf('\n'))) as ChildReport;
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (report === undefined) reject(new Error(`child exited before "done": ${err}`));
      else resolve({ ...report, signal });
    });
  });
}

test('a SIGKILL right after the calls return loses no event', async () => {
  const file = logFile();
  const { ids, signal, groups, appends } = await runAndKill(file, 3);
  assert.equal(signal, 'SIGKILL');
  assert.equal(ids.length, 3);
  assert.equal(appends, 6);
  assert.ok(groups <= 2, `the three sessions' write-ahead records shared a commit, and so did their answers (${groups} commits)`);
  assert.ok(existsSync(`${file}-wal`), 'the events sat in the WAL, never checkpointed by a clean close');

  const log = EventLog.open(file);
  try {
    for (const id of ids) {
      assert.deepEqual(
        (await log.readSession('acme', id)).map((e) => e.type),
        ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed'],
        `session ${id} complete`,
      );
    }
    const all = await log.readAfter('acme', -1, 1000);
    assert.deepEqual(all.map((e) => e.sequence), [...Array(12).keys()]);
    assert.equal((await log.append([{ type: 'tool.session.opened', tenant: 'acme', principal: 'p', sessionId: 'next', payload: { sessionId: 'next', toolId: 't' } }]))[0].sequence, 12);
  } finally {
    log.close();
  }

  // A second killed writer on the same file goes on from the stream's end.
  const again = await runAndKill(file, 1);
  const reopened = EventLog.open(file);
  try {
    assert.deepEqual((await reopened.readSession('acme', again.ids[0])).map((e) => e.sequence), [13, 14, 15, 16]);
  } finally {
    reopened.close();
  }
});

test('a SIGKILL right after many grouped sessions resolve loses none of them', async () => {
  const file = logFile();
  const sessions = 200;
  const { ids, groups, appends } = await runAndKill(file, sessions);
  assert.equal(appends, 2 * sessions);
  assert.ok(groups < appends / 10, `commits were shared (${groups} commits for ${appends} appends)`);
  const log = EventLog.open(file);
  try {
    const all = await log.readAfter('acme', -1, 10_000);
    assert.deepEqual(all.map((e) => e.sequence), [...Array(4 * sessions).keys()], 'gap-free');
    const bySession = new Map<string, string[]>();
    for (const e of all) bySession.set(e.sessionId, [...(bySession.get(e.sessionId) ?? []), e.type]);
    assert.deepEqual([...bySession.keys()].sort(), [...ids].sort());
    for (const types of bySession.values()) assert.deepEqual(types, ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed']);
  } finally {
    await log.close();
  }
});

// The audit lines' queue (src/http/audit-lines.ts): a line says what the
// request was when it was answered, lines leave in order in the turn that
// queued them, and flush() writes what is still queued (the host's close).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import type { Principal } from '../../src/auth/principal.js';
import { AuditLines } from '../../src/http/audit-lines.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ base: undefined, timestamp: false }, stream) };
}

const agent = { id: 'agent', tenant: 'acme', kind: 'api-key' } as unknown as Principal;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('queued lines leave together, in order, in the turn that queued them, saying what each request was then', async () => {
  const { lines, logger } = capture();
  const audit = new AuditLines(logger);
  const refused = { method: 'GET', principal: null as Principal | null, authFailure: 'unknown or revoked API key' as string | null };
  audit.write('/tools', { method: 'GET', principal: agent, authFailure: null }, 200, 1.23456);
  audit.write('/tools/*', refused, 401, 0.5);
  audit.write('/healthz', { method: 'GET', principal: null, authFailure: null }, 200, 0.1);
  // The request record changing after its answer does not change its line.
  refused.authFailure = 'changed later';
  assert.equal(lines.length, 0, 'nothing is formatted while requests are being answered');
  await nextTurn();
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  assert.deepEqual(lines, [
    { level: 30, audit: true, principal: 'agent', tenant: 'acme', kind: 'api-key', method: 'GET', route: '/tools', status: 200, durationMs: 1.235, msg: 'request' },
    { level: 30, audit: true, principal: null, method: 'GET', route: '/tools/*', status: 401, durationMs: 0.5, reason: 'unknown or revoked API key', msg: 'request refused' },
  ]);
});

test('flush() writes what is queued at once; the turn then has nothing left to write', async () => {
  const { lines, logger } = capture();
  const audit = new AuditLines(logger);
  audit.write('/tools', { method: 'GET', principal: agent, authFailure: null }, 304, 2);
  audit.flush();
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  assert.equal(lines.length, 1);
  await nextTurn();
  assert.equal(lines.length, 1, 'no line written twice');
  audit.write('/tools', { method: 'POST', principal: agent, authFailure: null }, 200, 2);
  await nextTurn();
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  assert.deepEqual(lines.map((l) => l.method), ['GET', 'POST'], 'a new turn is scheduled after a flush');
});

// The ToolSession bracket (CONTRACT.md "Tool sessions"): opened before the
// first call event, a toolCalled/toolReturned pair per call, closed last and
// once; payloads hold identifiers, status and duration only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EventLogUnavailableError, type AppendInput, type EventLog, type ToolEvent } from '../../src/events/sqlite/log.js';
import type { AppendOptions, EventStore } from '../../src/events/store.js';
import { ToolSession } from '../../src/events/session.js';
import { ACME, GLOBEX, openTempLog } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A session id grows with time (UUID version 7): the log's session index takes it on its last page. */
const TIME_ORDERED = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The bracket rules, checked on one session's events as read back from the log. */
function assertBracket(events: ToolEvent[], sessionId: string, toolId: string): void {
  assert.ok(events.length >= 2);
  assert.equal(events[0].type, 'tool.session.opened');
  assert.deepEqual(events[0].payload, { sessionId, toolId });
  const last = events[events.length - 1];
  assert.equal(last.type, 'tool.session.closed');
  assert.deepEqual(Object.keys(last.payload).sort(), ['outcome', 'sessionId', 'toolId']);
  assert.equal(events.filter((e) => e.type === 'tool.session.opened').length, 1);
  assert.equal(events.filter((e) => e.type === 'tool.session.closed').length, 1);
  const open = new Map<string, string>();
  for (const e of events.slice(1, -1)) {
    assert.equal(e.payload.sessionId, sessionId);
    if (e.type === 'agent.toolCalled') {
      assert.deepEqual(Object.keys(e.payload).sort(), ['callId', 'sessionId', 'toolId']);
      assert.ok(!open.has(String(e.payload.callId)));
      open.set(String(e.payload.callId), String(e.payload.toolId));
    } else {
      assert.equal(e.type, 'agent.toolReturned');
      assert.deepEqual(Object.keys(e.payload).sort(), ['callId', 'durationMs', 'sessionId', 'status', 'toolId']);
      assert.equal(open.get(String(e.payload.callId)), e.payload.toolId, 'returned after its own call, same tool');
      open.delete(String(e.payload.callId));
      assert.ok(Number.isInteger(e.payload.durationMs) && (e.payload.durationMs as number) >= 0);
    }
  }
  assert.equal(open.size, 0, 'every call returned before the close');
  for (let i = 1; i < events.length; i++) assert.equal(events[i].sequence, events[i - 1].sequence + 1);
}

test('a session brackets its calls: opened, called/returned per call, closed; all with the session id', async () => {
  const { log } = openTempLog();
  try {
    const s = ToolSession.open(log, ACME, 'workflow:shout');
    assert.match(s.sessionId, TIME_ORDERED);
    assert.ok(ToolSession.open(log, ACME, 'workflow:shout').sessionId > s.sessionId, 'a later session sorts after');
    const c1 = s.called('openwop:text.uppercase');
    assert.match(c1, UUID);
    s.returned(c1, 'openwop:text.uppercase', 'ok', 12.6);
    const c2 = s.called('openwop:text.reverse');
    s.returned(c2, 'openwop:text.reverse', 'error', 4);
    s.close('failed');
    assert.equal(s.outcome, 'failed');
    await s.commit();

    const events = await log.readSession('acme', s.sessionId);
    assert.deepEqual(
      events.map((e) => e.type),
      ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed'],
    );
    assert.deepEqual(events.map((e) => e.payload), [
      { sessionId: s.sessionId, toolId: 'workflow:shout' },
      { sessionId: s.sessionId, toolId: 'openwop:text.uppercase', callId: c1 },
      { sessionId: s.sessionId, toolId: 'openwop:text.uppercase', callId: c1, status: 'ok', durationMs: 13 },
      { sessionId: s.sessionId, toolId: 'openwop:text.reverse', callId: c2 },
      { sessionId: s.sessionId, toolId: 'openwop:text.reverse', callId: c2, status: 'error', durationMs: 4 },
      { sessionId: s.sessionId, toolId: 'workflow:shout', outcome: 'failed' },
    ]);
    assert.ok(events.every((e) => e.tenant === 'acme' && e.principal === 'acme-agent' && e.sessionId === s.sessionId));
    assertBracket(events, s.sessionId, 'workflow:shout');
    assert.deepEqual(await log.readSession('globex', s.sessionId), [], 'invisible to another tenant');
  } finally {
    log.close();
  }
});

test('close is idempotent; a refused call still gets its full bracket', async () => {
  const { log } = openTempLog();
  try {
    const s = ToolSession.open(log, GLOBEX, 'x-host-acme-run-command');
    const c = s.called('x-host-acme-run-command');
    s.returned(c, 'x-host-acme-run-command', 'refused', 0);
    s.close('failed');
    s.close('completed');
    s.close('cancelled');
    await s.commit();
    const events = await log.readSession('globex', s.sessionId);
    assert.equal(events.length, 4);
    assert.deepEqual(events[3].payload, { sessionId: s.sessionId, toolId: 'x-host-acme-run-command', outcome: 'failed' });
    assert.equal(s.outcome, 'failed');
    assertBracket(events, s.sessionId, 'x-host-acme-run-command');
  } finally {
    log.close();
  }
});

test('close returns every outstanding call as cancelled first; a late returned is ignored; misuse throws', async () => {
  const { log } = openTempLog();
  try {
    const s = ToolSession.open(log, ACME, 'workflow:w');
    const c1 = s.called('openwop:a');
    const c2 = s.called('openwop:b');
    s.returned(c1, 'openwop:a', 'ok', 1);
    assert.throws(() => s.returned('no-such-call', 'openwop:a', 'ok', 1), /issued no call/);
    assert.throws(() => s.returned(c2, 'openwop:a', 'ok', 1), /was made to openwop:b/);
    s.close('cancelled');
    s.returned(c2, 'openwop:b', 'ok', 99); // the call's own end, racing the cancellation: no-op
    s.returned(c1, 'openwop:a', 'ok', 1); // a double return: no-op
    assert.throws(() => s.called('openwop:c'), /closed/);
    await s.commit();

    const events = await log.readSession('acme', s.sessionId);
    assert.deepEqual(
      events.map((e) => [e.type, e.payload.callId ?? null, e.payload.status ?? e.payload.outcome ?? null]),
      [
        ['tool.session.opened', null, null],
        ['agent.toolCalled', c1, null],
        ['agent.toolCalled', c2, null],
        ['agent.toolReturned', c1, 'ok'],
        ['agent.toolReturned', c2, 'cancelled'],
        ['tool.session.closed', null, 'cancelled'],
      ],
    );
    assertBracket(events, s.sessionId, 'workflow:w');
  } finally {
    log.close();
  }
});

test('durations are whole non-negative milliseconds whatever the caller measured', async () => {
  const { log } = openTempLog();
  try {
    const s = ToolSession.open(log, ACME, 't');
    const durations = [0.4, -5, Number.NaN, Number.POSITIVE_INFINITY, 1234.5];
    for (const d of durations) s.returned(s.called('t'), 't', 'timeout', d);
    await s.finish('completed');
    const got = (await log.readSession('acme', s.sessionId)).filter((e) => e.type === 'agent.toolReturned').map((e) => e.payload.durationMs);
    assert.deepEqual(got, [0, 0, 0, 0, 1235]);
  } finally {
    log.close();
  }
});

test('property: any interleaving of calls, returns and closes leaves a complete, content-free bracket', async () => {
  const { log } = openTempLog();
  const statuses = ['ok', 'error', 'invalid', 'refused', 'timeout', 'cancelled'] as const;
  const step = fc.oneof(
    fc.record({ op: fc.constant('call' as const), tool: fc.constantFrom('openwop:a', 'mcp:s.b', 'connector:c.d') }),
    fc.record({ op: fc.constant('return' as const), pick: fc.nat(), status: fc.constantFrom(...statuses), ms: fc.double({ noNaN: false }) }),
    fc.record({ op: fc.constant('close' as const), outcome: fc.constantFrom('completed', 'failed', 'cancelled') as fc.Arbitrary<'completed' | 'failed' | 'cancelled'> }),
  );
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), fc.constantFrom('completed', 'failed', 'cancelled') as fc.Arbitrary<'completed' | 'failed' | 'cancelled'>, fc.array(fc.boolean(), { maxLength: 12 }), async (steps, finalOutcome, commitAfter) => {
        const s = ToolSession.open(log, ACME, 'workflow:p');
        const calls: Array<[string, string]> = [];
        for (const [i, st] of steps.entries()) {
          if (st.op === 'call') {
            if (s.outcome === undefined) calls.push([s.called(st.tool), st.tool]);
          } else if (st.op === 'return') {
            if (calls.length > 0) {
              const [id, tool] = calls[st.pick % calls.length];
              s.returned(id, tool, st.status, st.ms);
            }
          } else s.close(st.outcome);
          // Commits at arbitrary points (write-ahead or not) change nothing of the bracket.
          if (commitAfter[i]) await s.commit({ writeAhead: i % 2 === 0 });
        }
        await s.finish(finalOutcome);
        const events = await log.readSession('acme', s.sessionId);
        assertBracket(events, s.sessionId, 'workflow:p');
        const allowed = new Set(['sessionId', 'toolId', 'callId', 'status', 'durationMs', 'outcome']);
        assert.ok(events.every((e) => Object.keys(e.payload).every((k) => allowed.has(k))));
      }),
      { numRuns: 60 },
    );
  } finally {
    log.close();
  }
});

test('a toolReturned the log refused is recorded by the next commit with the status the call ended with, not as cancelled', async () => {
  const { log } = openTempLog();
  try {
    // The real log behind one injected storage fault: the first commit holding a toolReturned is refused as on a full disk.
    let refuseNext = true;
    const flaky: EventStore = Object.assign(Object.create(log) as EventLog, {
      append: (events: readonly AppendInput[], options?: AppendOptions) => {
        if (refuseNext && events.some((e) => e.type === 'agent.toolReturned')) {
          refuseNext = false;
          return Promise.reject(new EventLogUnavailableError({ reason: 'disk_full', code: 'SQLITE_FULL', message: 'database or disk is full' }));
        }
        return log.append(events, options);
      },
    });
    const toolId = 'openwop:text.uppercase';
    const session = ToolSession.open(flaky, ACME, toolId);
    const callId = session.called(toolId);
    await session.commit({ writeAhead: true });
    assert.equal(session.recorded, true);
    session.returned(callId, toolId, 'ok', 7);
    await assert.rejects(session.commit(), EventLogUnavailableError);
    assert.equal((await log.readSession(ACME.tenant, session.sessionId)).length, 2, 'the refused commit stored nothing');
    session.close('failed');
    await session.commit();
    const events = await log.readSession(ACME.tenant, session.sessionId);
    assertBracket(events, session.sessionId, toolId);
    assert.deepEqual(events[2].payload, { sessionId: session.sessionId, toolId, callId, status: 'ok', durationMs: 7 });
    assert.deepEqual(events[3].payload.outcome, 'failed');
  } finally {
    log.close();
  }
});

test('events reach the log only through commit, one append per commit, in the order they were made', async () => {
  const { log } = openTempLog();
  try {
    const appended: number[] = [];
    const counting: EventStore = Object.assign(Object.create(log) as EventLog, {
      append: (events: readonly AppendInput[], options?: AppendOptions) => {
        appended.push(events.length);
        return log.append(events, options);
      },
    });
    const s = ToolSession.open(counting, ACME, 'workflow:w');
    const c1 = s.called('openwop:a');
    assert.deepEqual(await log.readSession('acme', s.sessionId), [], 'buffered until committed');
    // Two commits started together still store in order.
    const first = s.commit({ writeAhead: true });
    s.returned(c1, 'openwop:a', 'ok', 1);
    const c2 = s.called('openwop:b');
    const second = s.commit({ writeAhead: true });
    await Promise.all([first, second]);
    s.returned(c2, 'openwop:b', 'ok', 1);
    await s.finish('completed');
    await s.commit(); // nothing buffered: no append
    assert.deepEqual(appended, [2, 2, 2]);
    const events = await log.readSession('acme', s.sessionId);
    assertBracket(events, s.sessionId, 'workflow:w');
    assert.deepEqual(events.map((e) => e.payload.callId ?? null), [null, c1, c1, c2, c2, null]);
  } finally {
    log.close();
  }
});

// The guarantees every EventStore gives (src/events/store.ts), written once and
// run against each engine: the SQLite log and the PostgreSQL store.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { AppendInput, ToolEvent } from '../../src/events/event-types.js';
import { openTail, type EventStore, type Tail } from '../../src/events/store.js';
import { waitFor } from './helpers.js';

export type OpenStore = (options?: { maxEvents?: number; retentionDays?: number }) => Promise<EventStore>;

export function opened(tenant: string, sessionId: string, toolId = 'demo.echo'): AppendInput {
  return { type: 'tool.session.opened', tenant, principal: `${tenant}-agent`, sessionId, payload: { sessionId, toolId } };
}

export function returned(tenant: string, sessionId: string, durationMs: number): AppendInput {
  return { type: 'agent.toolReturned', tenant, principal: `${tenant}-agent`, sessionId, payload: { sessionId, toolId: 'demo.echo', callId: `${sessionId}-c`, status: 'ok', durationMs } };
}

export function conformance(name: string, open: OpenStore): Array<[string, (t: TestContext) => Promise<void>]> {
  const withStore = async (options: Parameters<OpenStore>[0], body: (store: EventStore) => Promise<void>) => {
    const store = await open(options);
    try {
      await body(store);
    } finally {
      await store.close();
    }
  };
  return [
    [
      `${name}: each tenant's stream numbers from 0 with no gap, in the order given`,
      () =>
        withStore({}, async (store) => {
          assert.equal(await store.lastSequence('acme'), -1);
          const first = await store.append([opened('acme', 's1'), opened('globex', 'g1'), returned('acme', 's1', 1.5)]);
          assert.deepEqual(first.map((e) => [e.tenant, e.sequence]), [['acme', 0], ['globex', 0], ['acme', 1]]);
          const second = await store.append([opened('acme', 's2')]);
          assert.equal(second[0].sequence, 2);
          assert.equal(await store.lastSequence('acme'), 2);
          assert.equal(await store.lastSequence('globex'), 0);
        }),
    ],
    [
      `${name}: the wire JSON is JSON.stringify of the returned event, byte for byte`,
      () =>
        withStore({}, async (store) => {
          const events = await store.append([opened('acme', 'sé"\\x'), returned('acme', 'sé"\\x', 0.30000000000000004)]);
          const page = await store.readAfterSerialized('acme', -1, 10);
          assert.deepEqual(page.map((p) => p.json), events.map((e) => JSON.stringify(e)));
          assert.deepEqual(page.map((p) => [p.sequence, p.type]), events.map((e) => [e.sequence, e.type]));
          assert.deepEqual(await store.readSessionSerialized('acme', 'sé"\\x'), events.map((e) => JSON.stringify(e)));
          assert.deepEqual(await store.readSessionSerialized('globex', 'sé"\\x'), [], 'another tenant sees nothing');
        }),
    ],
    [
      `${name}: readAfterSerialized pages by sequence and limit`,
      () =>
        withStore({}, async (store) => {
          for (let i = 0; i < 5; i++) await store.append([opened('acme', `s${i}`)]);
          assert.deepEqual((await store.readAfterSerialized('acme', 1, 2)).map((p) => p.sequence), [2, 3]);
          assert.deepEqual((await store.readAfterSerialized('acme', 4, 2)).map((p) => p.sequence), []);
          assert.deepEqual(await store.readAfterSerialized('acme', -1, 0), []);
        }),
    ],
    [
      `${name}: a payload that is not content-free is refused and nothing of the append is stored`,
      () =>
        withStore({}, async (store) => {
          const bad = { ...opened('acme', 's1'), payload: { sessionId: 's1', toolId: 'x', arguments: 'secret' } } as unknown as AppendInput;
          await assert.rejects(store.append([opened('acme', 's0'), bad]), TypeError);
          assert.equal(await store.lastSequence('acme'), -1);
        }),
    ],
    [
      `${name}: a subscriber gets each later event of its tenant once, in order`,
      () =>
        withStore({}, async (store) => {
          const seen: ToolEvent[] = [];
          const unsubscribe = store.subscribe('acme', (e) => seen.push(e));
          assert.equal(store.subscriberCount('acme'), 1);
          await store.append([opened('acme', 's1'), opened('globex', 'g1')]);
          await store.append([returned('acme', 's1', 2)]);
          await until(() => seen.length >= 2);
          assert.deepEqual(seen.map((e) => e.sequence), [0, 1]);
          unsubscribe();
          assert.equal(store.subscriberCount(), 0);
          // A witness subscribed meanwhile: once it has the next event, an unsubscribed listener would have had it too.
          const witness: ToolEvent[] = [];
          const stop = store.subscribe('acme', (e) => witness.push(e));
          await store.append([opened('acme', 's2')]);
          await until(() => witness.some((e) => e.sessionId === 's2'));
          stop();
          assert.equal(seen.length, 2);
        }),
    ],
    [
      `${name}: tails opened under concurrent commits: every event committed after one opened reaches it, once, in order`,
      () =>
        withStore({}, async (store) => {
          // Three writers commit all along; eight tails open one after another meanwhile (GET /events/stream opens one before its 200).
          const tails: Array<{ tail: Tail; seen: number[] }> = [];
          const late: Array<{ opened: typeof tails; sequence: number }> = [];
          let writing = true;
          let commits = 0;
          const writers = [0, 1, 2].map(async (w) => {
            for (let i = 0; writing; i++) {
              const openedBefore = [...tails];
              const [e] = await store.append([opened('acme', `w${w}-${i}`)]);
              late.push({ opened: openedBefore, sequence: e.sequence });
              commits++;
            }
          });
          for (let k = 0; k < 8; k++) {
            await until(() => commits >= 4 * (k + 1));
            const seen: number[] = [];
            tails.push({ tail: await openTail(store, 'acme', (e) => seen.push(e.sequence)), seen });
          }
          writing = false;
          await Promise.all(writers);
          const last = await store.lastSequence('acme');
          for (const { tail, seen } of tails) {
            await until(() => last === tail.start || seen.at(-1) === last);
            const after = seen.filter((s) => s > tail.start);
            assert.deepEqual(after, Array.from({ length: last - tail.start }, (_, i) => tail.start + 1 + i), `tail from ${tail.start}`);
            tail.unsubscribe();
          }
          // An append begun once a tail was open is above that tail's start.
          for (const { opened: before, sequence } of late) for (const { tail } of before) assert.ok(sequence > tail.start, `${sequence} > ${tail.start}`);
        }),
    ],
    [
      `${name}: maxEvents prunes the oldest; a pruned stream goes on from its last sequence`,
      () =>
        withStore({ maxEvents: 3 }, async (store) => {
          for (let i = 0; i < 5; i++) await store.append([opened('acme', `s${i}`)]);
          assert.equal(await store.prune(), 2);
          assert.deepEqual((await store.readAfterSerialized('acme', -1, 10)).map((p) => p.sequence), [2, 3, 4]);
          const [next] = await store.append([opened('acme', 's5')]);
          assert.equal(next.sequence, 5);
        }),
    ],
    [
      `${name}: retentionDays prunes by age`,
      () =>
        withStore({ retentionDays: 1 }, async (store) => {
          await store.append([opened('acme', 's1'), opened('acme', 's2')]);
          assert.equal(await store.prune(Date.now()), 0);
          assert.equal(await store.prune(Date.now() + 2 * 86_400_000), 2);
          assert.equal(await store.lastSequence('acme'), 1);
        }),
    ],
  ];
}

/** Polls until `predicate` holds (10 s by default). */
export const until = (predicate: () => boolean, timeoutMs = 10_000): Promise<void> => waitFor(predicate, timeoutMs, 'the store').then(() => undefined);

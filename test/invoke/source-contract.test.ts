// A source owns its calls (sources/raw-tool.ts ToolSource.invoke): the
// invocation layer routes a call to the source that owns the toolId and
// knows nothing of kinds. Here two sources the host has never seen (written
// in this file, both claiming kind `mcp` though neither is an MCP client)
// are put in the same registry as a real workflow source and called through
// the same entry point as /mcp's tools/call, with a real event log: its
// write-ahead record is committed before a tool runs, and a refused one
// refuses the call.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import { principalKey, type Principal } from '../../src/auth/principal.js';
import { CatalogStore } from '../../src/catalog/store.js';
import { compileTenant } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import { EventLog, EventLogUnavailableError, type AppendInput } from '../../src/events/sqlite/log.js';
import type { AppendOptions, EventStore } from '../../src/events/store.js';
import { callCatalogTool } from '../../src/invoke/call.js';
import type { ApprovalPrompt, InvokeDeps } from '../../src/invoke/types.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { CallAbort, resultOf, type DispatchOutcome } from '../../src/sources/call-result.js';
import type { InvokeContext, RawTool, ToolSource } from '../../src/sources/raw-tool.js';
import { SourceRegistry } from '../../src/sources/registry.js';
import { loadWorkflows } from '../../src/sources/workflow/index.js';

const dir = mkdtempSync(join(tmpdir(), 'toolhost-source-contract-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Seen {
  toolId: string;
  args: Record<string, unknown>;
  context: InvokeContext;
}

/** A source of one namespace: answers who it is and what it was given; `slow` never finishes by itself. */
function probeSource(name: string): ToolSource & { seen: Seen[] } {
  const id = `mcp:${name}`;
  const tools: RawTool[] = ['echo', 'slow'].map((t) => ({ source: 'mcp', toolId: `${id}.${t}`, origin: 'test' }));
  const seen: Seen[] = [];
  return {
    id,
    kind: 'mcp',
    seen,
    start: async () => {},
    stop: async () => {},
    tools: () => tools,
    health: () => ({ id, kind: 'mcp', state: 'connected', toolCount: tools.length }),
    owns: (toolId) => toolId.startsWith(`${id}.`),
    invoke(toolId, args, context): Promise<DispatchOutcome> {
      seen.push({ toolId, args, context });
      if (toolId.endsWith('.slow')) {
        return new Promise((_, reject) => setTimeout(() => reject(new CallAbort('timeout', `${name} gave up`)), 20));
      }
      return Promise.resolve({ status: 'ok', result: resultOf({ from: name, got: args }) });
    },
  };
}

const first = probeSource('first');
const second = probeSource('second');
writeWorkflow();
const workflows = loadWorkflows([{ path: join(dir, 'both.yaml') }], dir);
const sources = new SourceRegistry([first, second, workflows]);
const events = EventLog.open(join(dir, 'events.db'));
after(() => events.close());
const store = new CatalogStore({
  sources: sources.list,
  policy: new Policy({}),
  tenants: new Map([['t', compileTenant('t', ['*'])]]),
  logger: pino({ level: 'silent' }),
  metrics: createMetrics(),
  build: { isMissingStepFatal: (toolId) => sources.sourceFor(toolId) === undefined },
});
store.initialBuild();
const deps: InvokeDeps = { store, sources, events, logger: pino({ level: 'silent' }), callTimeoutMs: 4321 };
const principal: Principal = { id: 'p', tenant: 't', scopes: new Set(), kind: 'api-key', key: principalKey('api-key', 't', 'p') };

function writeWorkflow(): void {
  // Step 2 takes step 1's result: the host's step runner threads it through, whatever source made it.
  const steps = [
    { tool: 'mcp:first.echo', with: { text: { $input: 'text' } } },
    { tool: 'mcp:second.echo', with: { previous: { $step: 0, path: 'from' } } },
  ];
  writeFileSync(join(dir, 'both.yaml'), JSON.stringify({ id: 'both', steps }));
}

const call = (toolId: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
  callCatalogTool(deps, { principal, toolId, requested: toolId, args, signal, approve: async () => 'accept' });

const lastSessionEvents = async () => {
  const all = await events.readAfter('t', -1, 10_000);
  const opened = all.filter((e) => e.type === 'tool.session.opened').at(-1)!;
  return all.filter((e) => e.sessionId === opened.sessionId).map((e) => [e.type, e.payload.toolId, e.payload.status ?? e.payload.outcome]);
};

test('each call reaches the source that owns its toolId, with the call context', async () => {
  const controller = new AbortController();
  const a = await call('mcp:first.echo', { n: 1 }, controller.signal);
  const b = await call('mcp:second.echo', { n: 2 });
  assert.deepEqual(a.structuredContent, { from: 'first', got: { n: 1 } });
  assert.deepEqual(b.structuredContent, { from: 'second', got: { n: 2 } });
  assert.deepEqual(first.seen.map((s) => s.toolId), ['mcp:first.echo']);
  assert.deepEqual(second.seen.map((s) => s.toolId), ['mcp:second.echo']);
  assert.equal(first.seen[0].context.signal, controller.signal, 'the caller\'s cancellation is handed down');
  assert.equal(first.seen[0].context.defaultTimeoutMs, 4321, 'the host\'s default deadline is handed down');
  assert.deepEqual(await lastSessionEvents(), [
    ['tool.session.opened', 'mcp:second.echo', undefined],
    ['agent.toolCalled', 'mcp:second.echo', undefined],
    ['agent.toolReturned', 'mcp:second.echo', 'ok'],
    ['tool.session.closed', 'mcp:second.echo', 'completed'],
  ]);
});

test('an abort thrown by the source is the call\'s outcome and is recorded as such', async () => {
  const result = await call('mcp:first.slow');
  assert.equal(result.isError, true);
  assert.deepEqual(result.content, [{ type: 'text', text: 'first gave up' }]);
  assert.deepEqual((await lastSessionEvents()).map((e) => e[2]), [undefined, undefined, 'timeout', 'failed']);
});

test('a workflow\'s steps run through the same routing, each step in the workflow\'s session', async () => {
  first.seen.length = 0;
  second.seen.length = 0;
  const result = await call('workflow:both', { text: 'hi' });
  assert.deepEqual(first.seen.map((s) => s.args), [{ text: 'hi' }]);
  assert.deepEqual(second.seen.map((s) => s.args), [{ previous: 'first' }]);
  assert.deepEqual(result.structuredContent, { from: 'second', got: { previous: 'first' } });
  assert.deepEqual(await lastSessionEvents(), [
    ['tool.session.opened', 'workflow:both', undefined],
    ['agent.toolCalled', 'mcp:first.echo', undefined],
    ['agent.toolReturned', 'mcp:first.echo', 'ok'],
    ['agent.toolCalled', 'mcp:second.echo', undefined],
    ['agent.toolReturned', 'mcp:second.echo', 'ok'],
    ['tool.session.closed', 'workflow:both', 'completed'],
  ]);
});

test('a missing step is a config error unless a source owns its namespace', () => {
  assert.equal(sources.sourceFor('mcp:first.not-listed-yet'), first, 'an upstream may list it later');
  assert.equal(sources.sourceFor('mcp:third.echo'), undefined);
  assert.equal(sources.sourceFor('workflow:absent'), undefined, 'a static source owns only what it lists');
  assert.equal(sources.sourceFor('workflow:both'), workflows);
});

/** The real log, with the write-ahead appends numbered in `refuse` refused as on a full disk. */
function refusingWriteAhead(refuse: Set<number>): EventStore {
  let writeAheads = 0;
  return Object.assign(Object.create(events) as EventLog, {
    append: (batch: readonly AppendInput[], options?: AppendOptions) => {
      if (options?.writeAhead && refuse.has(++writeAheads)) {
        return Promise.reject(new EventLogUnavailableError({ reason: 'disk_full', code: 'SQLITE_FULL', message: 'database or disk is full' }));
      }
      return events.append(batch, options);
    },
  });
}

test('the write-ahead record (opened, toolCalled) is committed before the tool runs; the answer record after it', async () => {
  const before = await events.lastSequence('t');
  const original = first.invoke;
  let storedWhenRun: string[] = [];
  first.invoke = async (toolId, args, context) => {
    storedWhenRun = (await events.readAfter('t', before, 100)).map((e) => e.type);
    return original.call(first, toolId, args, context);
  };
  try {
    await call('mcp:first.echo', { n: 3 });
  } finally {
    first.invoke = original;
  }
  assert.deepEqual(storedWhenRun, ['tool.session.opened', 'agent.toolCalled']);
  assert.deepEqual((await events.readAfter('t', before, 100)).map((e) => e.type), ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed']);
});

test('a refused write-ahead record refuses the call: the tool does not run and nothing of the session is stored', async () => {
  first.seen.length = 0;
  const before = await events.lastSequence('t');
  const refusing = { ...deps, events: refusingWriteAhead(new Set([1])) };
  await assert.rejects(
    callCatalogTool(refusing, { principal, toolId: 'mcp:first.echo', requested: 'mcp:first.echo', args: {}, approve: async () => 'accept' }),
    EventLogUnavailableError,
  );
  assert.equal(first.seen.length, 0, 'the tool did not run');
  assert.equal(await events.lastSequence('t'), before);
});

test('a workflow step whose write-ahead record is refused does not run; the steps before it are closed in the record', async () => {
  first.seen.length = 0;
  second.seen.length = 0;
  const refusing = { ...deps, events: refusingWriteAhead(new Set([2])) };
  await assert.rejects(
    callCatalogTool(refusing, { principal, toolId: 'workflow:both', requested: 'workflow:both', args: { text: 'hi' }, approve: async () => 'accept' }),
    EventLogUnavailableError,
  );
  assert.equal(first.seen.length, 1);
  assert.equal(second.seen.length, 0, 'the refused step did not run');
  assert.deepEqual(await lastSessionEvents(), [
    ['tool.session.opened', 'workflow:both', undefined],
    ['agent.toolCalled', 'mcp:first.echo', undefined],
    ['agent.toolReturned', 'mcp:first.echo', 'ok'],
    ['agent.toolCalled', 'mcp:second.echo', undefined],
    ['agent.toolReturned', 'mcp:second.echo', 'refused'],
    ['tool.session.closed', 'workflow:both', 'failed'],
  ]);
});

/** A store of the same sources where `mcp:first.*` is read-only (tier read), asking for approval every time when `approval` is set. */
function readOnlyFirst(approval?: 'always'): CatalogStore {
  const readStore = new CatalogStore({
    sources: sources.list,
    policy: new Policy({ rules: [{ match: 'mcp:first.*', safetyTier: 'read', ...(approval ? { approval } : {}) }] }),
    tenants: new Map([['t', compileTenant('t', ['*'])]]),
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(),
    build: { isMissingStepFatal: (toolId) => sources.sourceFor(toolId) === undefined },
  });
  readStore.initialBuild();
  return readStore;
}

/** Those sources with `events.writeAhead: changes`. */
function changesOnlyDeps(log: EventStore = events, approval?: 'always'): InvokeDeps {
  return { ...deps, store: readOnlyFirst(approval), events: log, writeAhead: 'changes' };
}

/** The real log, each append seen: its event types and whether it was a write-ahead record. */
function countingLog(): { log: EventStore; appends: Array<{ types: string[]; writeAhead: boolean }> } {
  const appends: Array<{ types: string[]; writeAhead: boolean }> = [];
  const log = Object.assign(Object.create(events) as EventLog, {
    append: (batch: readonly AppendInput[], options?: AppendOptions) => {
      appends.push({ types: batch.map((e) => e.type), writeAhead: options?.writeAhead === true });
      return events.append(batch, options);
    },
  });
  return { log, appends };
}

/** Calls `toolId` through `through`; returns the tenant's event types stored at the moment its tool ran. */
async function storedWhenRun(through: InvokeDeps, source: ReturnType<typeof probeSource>, toolId: string, approve: ApprovalPrompt = async () => 'accept'): Promise<string[]> {
  const before = await events.lastSequence('t');
  const original = source.invoke;
  let whenRun: string[] | undefined;
  source.invoke = async (id, args, context) => {
    whenRun = (await events.readAfter('t', before, 100)).map((e) => e.type);
    return original.call(source, id, args, context);
  };
  try {
    await callCatalogTool(through, { principal, toolId, requested: toolId, args: {}, approve });
  } finally {
    source.invoke = original;
  }
  assert.ok(whenRun !== undefined, 'the tool ran');
  return whenRun;
}

const WHOLE = ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed'];

test('events.writeAhead changes: a read-only tool runs before its record, which is one commit, made before its answer', async () => {
  const { log, appends } = countingLog();
  assert.deepEqual(await storedWhenRun(changesOnlyDeps(log), first, 'mcp:first.echo'), [], 'nothing of the call was committed before the tool ran');
  assert.deepEqual(appends, [{ types: WHOLE, writeAhead: false }]);
});

test('events.writeAhead changes: a tool that may change something keeps its write-ahead record', async () => {
  const { log, appends } = countingLog();
  assert.deepEqual(await storedWhenRun(changesOnlyDeps(log), second, 'mcp:second.echo'), WHOLE.slice(0, 2));
  assert.deepEqual(appends, [
    { types: WHOLE.slice(0, 2), writeAhead: true },
    { types: WHOLE.slice(2), writeAhead: false },
  ]);
});

test('events.writeAhead changes: a read-only call that ends in an abort is recorded whole, in one commit', async () => {
  const { log, appends } = countingLog();
  const result = await callCatalogTool(changesOnlyDeps(log), { principal, toolId: 'mcp:first.slow', requested: 'mcp:first.slow', args: {}, approve: async () => 'accept' });
  assert.equal(result.isError, true);
  assert.deepEqual(appends, [{ types: WHOLE, writeAhead: false }]);
  assert.deepEqual((await lastSessionEvents()).map((e) => e[2]), [undefined, undefined, 'timeout', 'failed']);
});

test('events.writeAhead changes: a read-only call that asks for approval commits its opened before asking, the rest after the tool', async () => {
  const { log, appends } = countingLog();
  const needsApproval = changesOnlyDeps(log, 'always');
  let askedWith: string[] | undefined;
  const before = await events.lastSequence('t');
  const whenRun = await storedWhenRun(needsApproval, first, 'mcp:first.echo', async () => {
    askedWith = (await events.readAfter('t', before, 100)).map((e) => e.type);
    return 'accept';
  });
  assert.deepEqual(askedWith, ['tool.session.opened'], 'recorded before a person is asked');
  assert.deepEqual(whenRun, ['tool.session.opened']);
  assert.deepEqual(appends, [
    { types: ['tool.session.opened'], writeAhead: true },
    { types: WHOLE.slice(1), writeAhead: false },
  ]);
});

test('events.writeAhead changes: a read-only call whose record is refused gets no answer, though its tool ran', async () => {
  let appends = 0;
  const refusingAll = Object.assign(Object.create(events) as EventLog, {
    append: () => {
      appends++;
      return Promise.reject(new EventLogUnavailableError({ reason: 'disk_full', code: 'SQLITE_FULL', message: 'database or disk is full' }));
    },
  });
  first.seen.length = 0;
  const outcomes: string[] = [];
  const counted: InvokeDeps = { ...changesOnlyDeps(refusingAll), toolCalls: { observe: (call) => void outcomes.push(call.outcome), outputSchemaMismatch: () => {} } };
  await assert.rejects(
    callCatalogTool(counted, { principal, toolId: 'mcp:first.echo', requested: 'mcp:first.echo', args: {}, approve: async () => 'accept' }),
    EventLogUnavailableError,
  );
  assert.equal(first.seen.length, 1, 'the read ran; its answer was held back');
  assert.equal(appends, 1, 'one commit was asked for, after the tool ran');
  assert.deepEqual(outcomes, ['error'], 'the call is counted as the caller saw it');
});

// What operations see: the metrics a dashboard is built from, with bounded
// labels, and OpenTelemetry spans (an in-process exporter) for HTTP requests
// and tool calls, the upstream hop as a child, never carrying arguments,
// results or credentials.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createTracing, tracingRequested } from '../../src/observability/tracing.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';
import { API_SECRET, CANARY_ARG, CANARY_RESULT, connect, startApi, writeWorld } from '../front-door/front-door-helpers.js';
import { readableMcpName } from '../../src/catalog/tool-names.js';

async function metricsText(url: string): Promise<string> {
  return (await request(url, '/metrics')).text;
}

/** The value of one series in Prometheus text, or undefined when it is absent. */
function series(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    const got = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(got).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('metrics and traces of a running host', () => {
  const exporter = new InMemorySpanExporter();
  let api: Awaited<ReturnType<typeof startApi>>;
  let server: TestServer;

  before(async () => {
    api = await startApi();
    const world = writeWorld(api.url);
    server = await startTestServer(world.configFile, { env: world.env, spanExporter: exporter });
  });
  after(async () => {
    await server.close();
    api.server.close();
  });

  test('a tool call is counted by source, tier and outcome, without a toolId label by default', async () => {
    const client = await connect(server.url, 'ka');
    try {
      const ok = await client.callTool({ name: readableMcpName('openwop:t.upper'), arguments: { text: CANARY_ARG } });
      assert.equal(ok.isError, undefined);
      await client.callTool({ name: readableMcpName('openwop:t.fail'), arguments: {} });
      await client.callTool({ name: readableMcpName('connector:items.getItem'), arguments: { id: 'w1' } });
      const text = await metricsText(server.url);
      assert.equal(series(text, 'toolhost_tool_calls_total', { source: 'node-pack', tier: 'pure', outcome: 'ok' }), 1, text);
      assert.equal(series(text, 'toolhost_tool_calls_total', { source: 'node-pack', tier: 'pure', outcome: 'error' }), 1);
      assert.equal(series(text, 'toolhost_tool_calls_total', { source: 'connector', tier: 'read', outcome: 'ok' }), 1);
      assert.equal(series(text, 'toolhost_tool_call_seconds_count', { source: 'node-pack', tier: 'pure', outcome: 'ok' }), 1);
      assert.doesNotMatch(text, /tool="/, 'toolIds are labels only when metrics.toolLabels allows');
      assert.equal(series(text, 'toolhost_mcp_sessions', {}) ?? Number(/^toolhost_mcp_sessions (\d+)/m.exec(text)?.[1]), 1);
    } finally {
      await client.close();
    }
  });

  test('HTTP requests by route pattern and status; refused credentials by reason; no credential in any label', async () => {
    await request(server.url, '/tools', { token: 'ka' });
    await request(server.url, '/tools/openwop%3At.upper', { token: 'ka' });
    await request(server.url, '/tools', { token: 'not-a-key' });
    await request(server.url, '/tools', { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' });
    await request(server.url, '/tools');
    await request(server.url, '/no/such/path', { token: 'ka' });
    const text = await metricsText(server.url);
    assert.ok((series(text, 'toolhost_http_requests_total', { route: '/tools', method: 'GET', status: '200' }) ?? 0) >= 1, text);
    assert.ok((series(text, 'toolhost_http_requests_total', { route: '/tools/*', method: 'GET', status: '200' }) ?? 0) >= 1);
    assert.ok((series(text, 'toolhost_http_requests_total', { route: '/tools', method: 'GET', status: '401' }) ?? 0) >= 3);
    assert.equal(series(text, 'toolhost_http_requests_total', { route: 'unrouted', method: 'GET', status: '404' }), 1);
    assert.equal(series(text, 'toolhost_auth_failures_total', { reason: 'invalid_api_key' }), 1);
    assert.equal(series(text, 'toolhost_auth_failures_total', { reason: 'invalid_jwt' }), 1);
    assert.equal(series(text, 'toolhost_auth_failures_total', { reason: 'missing' }), 1);
    for (const secret of ['not-a-key', 'eyJhbGciOiJIUzI1NiJ9', API_SECRET, CANARY_ARG, '/no/such/path']) assert.ok(!text.includes(secret), `${secret} in /metrics`);
  });

  test('spans: the HTTP request, its tools/call and the upstream hop as a child; ids and outcomes, never arguments or results', async () => {
    exporter.reset();
    const client = await connect(server.url, 'ka');
    try {
      await client.callTool({ name: readableMcpName('openwop:t.upper'), arguments: { text: CANARY_ARG } });
    } finally {
      await client.close();
    }
    const spans = exporter.getFinishedSpans();
    const call = spans.find((s) => s.name === 'tools/call');
    assert.ok(call, spans.map((s) => s.name).join(', '));
    assert.equal(call.attributes['toolhost.tool_id'], 'openwop:t.upper');
    assert.equal(call.attributes['toolhost.outcome'], 'ok');
    const hop = spans.find((s) => s.name === 'upstream node-pack');
    assert.ok(hop);
    assert.equal(hop.parentSpanContext?.spanId, call.spanContext().spanId, 'the upstream hop is a child of the call');
    const http = spans.find((s) => s.spanContext().spanId === call.parentSpanContext?.spanId);
    assert.ok(http, 'the call is a child of an HTTP span');
    assert.equal(http.name, 'POST /mcp');
    assert.equal(http.attributes['http.response.status_code'], 200);
    assertClean(spans, [CANARY_ARG, CANARY_RESULT, 'ka', API_SECRET]);
  });

  test('a connector call carries the traceparent of its upstream span', async () => {
    exporter.reset();
    const client = await connect(server.url, 'ka');
    try {
      await client.callTool({ name: readableMcpName('connector:items.getItem'), arguments: { id: 'w2' } });
    } finally {
      await client.close();
    }
    const hop = exporter.getFinishedSpans().find((s) => s.name === 'upstream connector');
    assert.ok(hop);
    const sent = api.seen.at(-1)?.traceparent;
    assert.equal(sent, `00-${hop.spanContext().traceId}-${hop.spanContext().spanId}-01`);
  });

  test("a request's traceparent is continued", async () => {
    exporter.reset();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await fetch(`${server.url}/tools`, { headers: { authorization: 'Bearer ka', traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    const span = exporter.getFinishedSpans().find((s) => s.name === 'GET /tools');
    assert.ok(span);
    assert.equal(span.spanContext().traceId, traceId);
    assert.equal(span.parentSpanContext?.spanId, '00f067aa0ba902b7');
  });
});

function assertClean(spans: ReadableSpan[], secrets: string[]): void {
  const text = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
  for (const secret of secrets) {
    const pattern = secret === 'ka' ? /"ka"|Bearer ka/ : new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    assert.doesNotMatch(text, pattern, `a span carries ${secret}`);
  }
}

describe('tool labels where the operator allows them', () => {
  test('metrics.toolLabels: true labels tool-call series with the toolId', async () => {
    const api = await startApi();
    const world = writeWorld(api.url, { metrics: { toolLabels: true } });
    const server = await startTestServer(world.configFile, { env: world.env });
    try {
      const client = await connect(server.url, 'ka');
      await client.callTool({ name: readableMcpName('openwop:t.upper'), arguments: { text: 'x' } });
      await client.close();
      const text = await metricsText(server.url);
      assert.equal(series(text, 'toolhost_tool_calls_total', { source: 'node-pack', tier: 'pure', outcome: 'ok', tool: 'openwop:t.upper' }), 1, text);
    } finally {
      await server.close();
      api.server.close();
    }
  });
});

describe('tracing is off unless OTEL_* asks for it', () => {
  test('the environment decides', async () => {
    assert.equal(tracingRequested({}), false);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
    assert.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }), true);
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
    assert.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' }), false);
    assert.equal(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }), false);
    assert.equal((await createTracing({})).enabled, false);
  });
});

// OpenTelemetry tracing, off unless the standard `OTEL_*` variables ask for it
// (docs/deploy.md "Tracing"): a span per HTTP request, one per `tools/call`
// with the upstream hop as its child, and `traceparent` on the requests the
// host makes to MCP HTTP upstreams and connector APIs. Spans carry ids, names,
// tiers and outcomes: never arguments, results or credentials.
//
// Each host gets its own tracer provider (tests run several hosts in one
// process); only the context manager is process-wide, since the API keeps one.
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { IMPLEMENTATION } from '../contract/protocol.js';

export { SpanKind, SpanStatusCode, type Span };

export interface Tracing {
  readonly enabled: boolean;
  /** Runs `fn` inside a new span (a child of the active one), ending it when `fn` settles; a plain call when tracing is off. */
  inSpan<T>(name: string, kind: SpanKind, attributes: Record<string, string | number | boolean>, fn: (span: Span | undefined) => Promise<T>): Promise<T>;
  /** Starts a span for an incoming request, continuing the caller's `traceparent` when it sent one. */
  startServerSpan(name: string, headers: Record<string, string | string[] | undefined>): Span | undefined;
  /** Runs `fn` with `span` as the active span. */
  withSpan<T>(span: Span | undefined, fn: () => T): T;
  /** Adds `traceparent` (and `tracestate`) of the active span to outgoing headers. */
  injectHeaders(headers: Record<string, string>): void;
  shutdown(): Promise<void>;
}

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

/** Tracing that does nothing: the default, and what a host without OTEL_* settings uses. */
export const DISABLED_TRACING: Tracing = {
  enabled: false,
  inSpan: (_name, _kind, _attributes, fn) => fn(undefined),
  startServerSpan: () => undefined,
  withSpan: (_span, fn) => fn(),
  injectHeaders: () => undefined,
  shutdown: async () => undefined,
};

let contextManagerInstalled = false;

/** Whether the environment asks for traces: an OTLP endpoint or `OTEL_TRACES_EXPORTER=otlp`, and not `OTEL_SDK_DISABLED`. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').toLowerCase();
  if (exporter === 'none') return false;
  if (exporter.split(',').includes('otlp')) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * The host's tracing. `exporter` is for tests (spans exported one by one as
 * they end); otherwise the OTLP/HTTP exporter, configured by the standard
 * variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `..._HEADERS`...), batches spans.
 */
export async function createTracing(env: NodeJS.ProcessEnv, exporter?: SpanExporter): Promise<Tracing> {
  if (exporter === undefined && !tracingRequested(env)) return DISABLED_TRACING;
  // The SDK is loaded only when tracing is on: a host without it starts without that code.
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { resourceFromAttributes }, { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor }] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  if (!contextManagerInstalled) contextManagerInstalled = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const propagator = new W3CTraceContextPropagator();
  const processor = exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter());
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || IMPLEMENTATION.name, 'service.version': IMPLEMENTATION.version }),
    spanProcessors: [processor],
  });
  const tracer: Tracer = provider.getTracer(IMPLEMENTATION.name, IMPLEMENTATION.version);
  return {
    enabled: true,
    async inSpan(name, kind, attributes, fn) {
      return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
        try {
          return await fn(span);
        } catch (err) {
          // The error's class only: messages can quote arguments or upstream text.
          span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    startServerSpan(name, headers) {
      const parent: Context = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
      return tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
    },
    withSpan(span, fn) {
      return span === undefined ? fn() : context.with(trace.setSpan(context.active(), span), fn);
    },
    injectHeaders(headers) {
      propagator.inject(context.active(), headers, { set: (carrier, key, value) => void (carrier[key] = value) });
    },
    shutdown: () => provider.shutdown(),
  };
}

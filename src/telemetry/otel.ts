/**
 * OpenTelemetry behind the gateway's `OperationTracer`. Imported only when tracing is on
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or a test's exporter), so its packages cost nothing otherwise.
 * Nothing global is registered: the tracer is handed to one gateway, and the parent of each
 * span is passed explicitly (the operation's span rides on its meter), not through an
 * async-context manager.
 */
import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { OperationSpan, OperationTracer } from '../operation/tracer.js';
import type { UpstreamCallRecord, UpstreamCallStart } from '../operation/upstream-calls.js';

export interface OtelTracingOptions {
  /** @default 'plans-graphql-gateway' */
  serviceName?: string;
  /** OTLP/HTTP collector base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint?: string;
  /** Send spans here instead (tests pass an in-memory exporter); exported one by one. */
  exporter?: SpanExporter;
}

export interface OtelTracing {
  readonly tracer: OperationTracer;
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

export async function createOtelTracing({
  serviceName = 'plans-graphql-gateway',
  endpoint,
  exporter,
}: OtelTracingOptions): Promise<OtelTracing> {
  let processor: BatchSpanProcessor | SimpleSpanProcessor;
  if (exporter) processor = new SimpleSpanProcessor({ exporter });
  else if (endpoint) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processor = new BatchSpanProcessor({
      exporter: new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }),
    });
  } else throw new TypeError('createOtelTracing: give an endpoint or an exporter');
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('plans-graphql-gateway');
  const propagator = new W3CTraceContextPropagator();

  return {
    shutdown: () => provider.shutdown(),
    tracer: {
      startOperation(request) {
        const parent = propagator.extract(ROOT_CONTEXT, headersOf(request), defaultTextMapGetter);
        const span = tracer.startSpan(
          'graphql.operation',
          {
            kind: SpanKind.SERVER,
            attributes: {
              'http.request.method': request.method,
              'url.path': new URL(request.url).pathname,
            },
          },
          parent,
        );
        return operationSpan(span, trace.setSpan(parent, span));
      },
    },
  };

  function operationSpan(span: Span, context: Context): OperationSpan {
    return {
      traceId: span.spanContext().traceId,
      describe({ name, type }) {
        span.updateName(`${type ?? 'graphql'} ${name ?? 'anonymous'}`);
        if (name) span.setAttribute('graphql.operation.name', name);
        if (type) span.setAttribute('graphql.operation.type', type);
      },
      upstream(call: UpstreamCallStart) {
        const child = tracer.startSpan(
          `upstream ${call.operationId}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              'http.request.method': call.method,
              'upstream.operation_id': call.operationId,
              'http.request.resend_count': call.attempt - 1,
            },
          },
          context,
        );
        const headers: Record<string, string> = {};
        propagator.inject(trace.setSpan(context, child), headers, defaultTextMapSetter);
        return {
          headers,
          end(record: UpstreamCallRecord) {
            if (record.status !== null)
              child.setAttribute('http.response.status_code', record.status);
            if (record.errorKind !== null) {
              child.setAttribute('error.type', record.errorKind);
              child.setStatus({ code: SpanStatusCode.ERROR });
            }
            child.end();
          },
        };
      },
      end({ errorCodes, stale }) {
        if (errorCodes.length > 0) {
          span.setAttribute('graphql.error.codes', [...new Set(errorCodes)]);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        if (stale) span.setAttribute('gateway.stale', true);
        span.end();
      },
    };
  }
}

// Private: the propagator reads a plain carrier.
function headersOf(request: Request): Record<string, string> {
  const carrier: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate']) {
    const value = request.headers.get(name);
    if (value !== null) carrier[name] = value;
  }
  return carrier;
}

/**
 * Decodes what an OTLP exporter sends (ExportTraceServiceRequest, ExportMetricsServiceRequest) in
 * its protobuf and JSON encodings into one plain shape, so a test reads spans and metrics the same
 * way whatever the protocol. Written from the OTLP protos (opentelemetry-proto v1: common, resource,
 * trace and metrics .proto field numbers below); @opentelemetry/otlp-transformer 0.223 only encodes
 * requests (its own writer) and has no decoder of them to reuse.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  /** SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

export interface ReceivedPoint {
  attributes: Record<string, unknown>;
  /** Histograms: how many values were recorded. */
  count?: number;
  /** Histograms: their sum; sums and gauges: the value. */
  sum?: number;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  kind: 'histogram' | 'sum' | 'gauge' | 'other';
  points: ReceivedPoint[];
  resource: Record<string, unknown>;
}

/** A message's fields by number, each a list of raw values (varint/fixed as bigint, length-delimited as bytes). */
type Fields = Map<number, (bigint | Buffer)[]>;

function readVarint(buf: Buffer, at: { pos: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (at.pos >= buf.length) throw new Error('truncated varint');
    const byte = buf[at.pos++];
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

function fieldsOf(buf: Buffer): Fields {
  const fields: Fields = new Map();
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const tag = Number(readVarint(buf, at));
    const [number, wireType] = [tag >>> 3, tag & 7];
    let value: bigint | Buffer;
    if (wireType === 0) value = readVarint(buf, at);
    else if (wireType === 1) {
      value = buf.readBigUInt64LE(at.pos);
      at.pos += 8;
    } else if (wireType === 2) {
      const length = Number(readVarint(buf, at));
      value = buf.subarray(at.pos, at.pos + length);
      at.pos += length;
    } else if (wireType === 5) {
      value = BigInt(buf.readUInt32LE(at.pos));
      at.pos += 4;
    } else throw new Error(`unsupported wire type ${wireType}`);
    fields.set(number, [...(fields.get(number) ?? []), value]);
  }
  return fields;
}

const bytes = (f: Fields, n: number): Buffer[] => (f.get(n) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));
const first = (f: Fields, n: number) => f.get(n)?.[0];
const str = (f: Fields, n: number): string => {
  const v = first(f, n);
  return Buffer.isBuffer(v) ? v.toString('utf8') : '';
};
const hex = (f: Fields, n: number): string => {
  const v = first(f, n);
  return Buffer.isBuffer(v) ? v.toString('hex') : '';
};
const int = (f: Fields, n: number): bigint => {
  const v = first(f, n);
  return typeof v === 'bigint' ? v : 0n;
};
const double = (v: bigint | Buffer | undefined): number | undefined => {
  if (typeof v !== 'bigint') return undefined;
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b.readDoubleLE(0);
};
const signed = (v: bigint): bigint => (v >= 1n << 63n ? v - (1n << 64n) : v);

/** AnyValue: string 1, bool 2, int 3, double 4, array 5, kvlist 6, bytes 7. */
function anyValue(buf: Buffer): unknown {
  const f = fieldsOf(buf);
  if (f.has(1)) return str(f, 1);
  if (f.has(2)) return int(f, 2) !== 0n;
  if (f.has(3)) return Number(signed(int(f, 3)));
  if (f.has(4)) return double(first(f, 4));
  if (f.has(5)) return bytes(fieldsOf(bytes(f, 5)[0]), 1).map(anyValue);
  if (f.has(6)) return keyValues(bytes(fieldsOf(bytes(f, 6)[0]), 1));
  if (f.has(7)) return bytes(f, 7)[0];
  return null;
}

/** KeyValue: key 1, value 2. */
function keyValues(list: Buffer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) {
    const f = fieldsOf(kv);
    out[str(f, 1)] = bytes(f, 2).length ? anyValue(bytes(f, 2)[0]) : null;
  }
  return out;
}

/** Resource: attributes 1. */
const resourceOf = (buf: Buffer | undefined) => (buf ? keyValues(bytes(fieldsOf(buf), 1)) : {});

/** ExportTraceServiceRequest: resource_spans 1 → ResourceSpans (resource 1, scope_spans 2) → ScopeSpans (scope 1, spans 2). */
export function decodeTracesProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of bytes(fieldsOf(body), 1)) {
    const rsf = fieldsOf(rs);
    const resource = resourceOf(bytes(rsf, 1)[0]);
    for (const ss of bytes(rsf, 2)) {
      const ssf = fieldsOf(ss);
      const scope = bytes(ssf, 1).length ? str(fieldsOf(bytes(ssf, 1)[0]), 1) : '';
      for (const sp of bytes(ssf, 2)) {
        // Span: trace_id 1, span_id 2, trace_state 3, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, status 15 (message 2, code 3).
        const f = fieldsOf(sp);
        const status = bytes(f, 15).length ? fieldsOf(bytes(f, 15)[0]) : new Map();
        spans.push({
          traceId: hex(f, 1),
          spanId: hex(f, 2),
          traceState: str(f, 3),
          parentSpanId: hex(f, 4),
          name: str(f, 5),
          kind: Number(int(f, 6)),
          startNs: int(f, 7),
          endNs: int(f, 8),
          attributes: keyValues(bytes(f, 9)),
          status: { code: Number(int(status, 3)), message: str(status, 2) },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}

/** A packed or unpacked repeated fixed64 / double field. */
function repeated64(f: Fields, n: number): bigint[] {
  return (f.get(n) ?? []).flatMap((v) =>
    typeof v === 'bigint' ? [v] : Array.from({ length: v.length / 8 }, (_, i) => v.readBigUInt64LE(i * 8)),
  );
}

/**
 * ExportMetricsServiceRequest: resource_metrics 1 → (resource 1, scope_metrics 2) → (scope 1,
 * metrics 2) → Metric: name 1, unit 3, gauge 5, sum 7, histogram 9. Histogram data point:
 * attributes 9, count 4, sum 5; number data point: attributes 7, as_double 4, as_int 6.
 */
export function decodeMetricsProtobuf(body: Buffer): ReceivedMetric[] {
  const metrics: ReceivedMetric[] = [];
  for (const rm of bytes(fieldsOf(body), 1)) {
    const rmf = fieldsOf(rm);
    const resource = resourceOf(bytes(rmf, 1)[0]);
    for (const sm of bytes(rmf, 2)) {
      for (const m of bytes(fieldsOf(sm), 2)) {
        const f = fieldsOf(m);
        const [histogram, sum, gauge] = [bytes(f, 9)[0], bytes(f, 7)[0], bytes(f, 5)[0]];
        const data = histogram ?? sum ?? gauge;
        const points = data
          ? bytes(fieldsOf(data), 1).map((p): ReceivedPoint => {
              const pf = fieldsOf(p);
              if (histogram)
                return { attributes: keyValues(bytes(pf, 9)), count: Number(repeated64(pf, 4)[0] ?? 0n), sum: double(first(pf, 5)) };
              const value = pf.has(4) ? double(first(pf, 4)) : Number(signed(int(pf, 6)));
              return { attributes: keyValues(bytes(pf, 7)), sum: value };
            })
          : [];
        metrics.push({
          name: str(f, 1),
          unit: str(f, 3),
          kind: histogram ? 'histogram' : sum ? 'sum' : gauge ? 'gauge' : 'other',
          points,
          resource,
        });
      }
    }
  }
  return metrics;
}

/** OTLP/JSON's AnyValue: {stringValue | boolValue | intValue (a string) | doubleValue | arrayValue | kvlistValue}. */
function jsonValue(v: Record<string, any> | undefined): unknown {
  if (!v) return null;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(jsonValue);
  if ('kvlistValue' in v) return jsonAttributes(v.kvlistValue.values);
  return null;
}

const jsonAttributes = (list: { key: string; value: Record<string, any> }[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));

/** OTLP/JSON ids are hex strings (base64 in some encoders: both are read). */
const jsonId = (id: string | undefined): string =>
  !id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

export function decodeTracesJson(body: any): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs: any) =>
    (rs.scopeSpans ?? []).flatMap((ss: any) =>
      (ss.spans ?? []).map((sp: any): ReceivedSpan => ({
        traceId: jsonId(sp.traceId),
        spanId: jsonId(sp.spanId),
        parentSpanId: jsonId(sp.parentSpanId),
        traceState: sp.traceState ?? '',
        name: sp.name,
        kind: Number(sp.kind ?? 0),
        startNs: BigInt(sp.startTimeUnixNano ?? 0),
        endNs: BigInt(sp.endTimeUnixNano ?? 0),
        attributes: jsonAttributes(sp.attributes),
        status: { code: Number(sp.status?.code ?? 0), message: sp.status?.message ?? '' },
        resource: jsonAttributes(rs.resource?.attributes),
        scope: ss.scope?.name ?? '',
      })),
    ),
  );
}

export function decodeMetricsJson(body: any): ReceivedMetric[] {
  return (body.resourceMetrics ?? []).flatMap((rm: any) =>
    (rm.scopeMetrics ?? []).flatMap((sm: any) =>
      (sm.metrics ?? []).map((m: any): ReceivedMetric => {
        const data = m.histogram ?? m.sum ?? m.gauge;
        return {
          name: m.name,
          unit: m.unit ?? '',
          kind: m.histogram ? 'histogram' : m.sum ? 'sum' : m.gauge ? 'gauge' : 'other',
          points: (data?.dataPoints ?? []).map((p: any) => ({
            attributes: jsonAttributes(p.attributes),
            ...(m.histogram
              ? { count: Number(p.count), sum: p.sum === undefined ? undefined : Number(p.sum) }
              : { sum: Number(p.asDouble ?? p.asInt) }),
          })),
          resource: jsonAttributes(rm.resource?.attributes),
        };
      }),
    ),
  );
}

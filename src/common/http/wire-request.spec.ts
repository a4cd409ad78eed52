import { NO_TRACE, PassiveTrace } from '../../telemetry/request-trace';
import { clientAddressOf, wireRequestOf } from './wire-request';

describe('WireRequest', () => {
  it('keeps an IPv4 or IPv6 client address and drops anything else', () => {
    expect(clientAddressOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressOf('2001:db8::1')).toBe('2001:db8::1');
    expect(clientAddressOf('::ffff:127.0.0.1')).toBe('::ffff:127.0.0.1');
    for (const notAnAddress of ['not-an-ip', '', '203.0.113.7, 10.0.0.1', `${'9'.repeat(300)}.1.2.3`, '1.2.3.4:80', undefined, null, 42]) {
      expect(clientAddressOf(notAnAddress)).toBeUndefined();
    }
  });

  it('redacts credentials in the URL, reads the request id and the trace context, once', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const wire = wireRequestOf({
      body: { a: 1 },
      headers: { 'x-request-id': 'req-1', traceparent, tracestate: 'k=v' },
      url: '/v1/responses?api_key=pk_abcdefghijklmnopqrstu&limit=2',
      ip: 'nonsense',
    });
    expect(wire).toEqual({
      body: { a: 1 },
      headers: { 'x-request-id': 'req-1', traceparent, tracestate: 'k=v' },
      url: '/v1/responses?api_key=[REDACTED]&limit=2',
      ip: undefined,
      requestId: 'req-1',
      trace: { traceparent, tracestate: 'k=v' },
      // The export is off here: the trace knows its id, for the request log (docs/observability.md).
      telemetry: new PassiveTrace('4bf92f3577b34da6a3ce929d0e0e4736'),
    });
    // A background job builds it again from what was stored: nothing changes.
    expect(wireRequestOf(wire)).toEqual(wire);
  });

  it('takes no trace context from a repeated header', () => {
    const wire = wireRequestOf({ body: null, headers: { traceparent: ['a', 'b'] as never }, url: '/', ip: undefined });
    expect(wire.trace).toEqual({});
    expect(wire.telemetry).toBe(NO_TRACE);
  });
});

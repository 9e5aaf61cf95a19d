import { StartupError } from '../env/load-env';
import { tracingConfig } from './tracing';

describe('tracingConfig', () => {
  it('leaves tracing off unless a collector is named', () => {
    expect(tracingConfig('inference', {})).toBeNull();
    expect(tracingConfig('inference', { OTEL_SERVICE_NAME: 'x' })).toBeNull();
  });

  it('traces to the endpoint named, the traces endpoint first, under the app name or OTEL_SERVICE_NAME', () => {
    expect(tracingConfig('inference', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      serviceName: 'inference',
      endpoint: 'http://collector:4318',
    });
    expect(
      tracingConfig('inference', {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/v1/traces',
        OTEL_SERVICE_NAME: 'inference-eu',
      }),
    ).toEqual({ serviceName: 'inference-eu', endpoint: 'https://traces.example/v1/traces' });
  });

  it('stays off with OTEL_SDK_DISABLED=true, whatever else is set', () => {
    expect(
      tracingConfig('billing', { OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeNull();
  });

  it('refuses to start with an endpoint that is no http(s) URL, naming the variable', () => {
    expect(() => tracingConfig('auth', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      StartupError,
    );
    expect(() => tracingConfig('auth', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://c:4317' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL/,
    );
  });
});

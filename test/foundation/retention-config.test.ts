import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { loadInferenceConfig } from '../../subgraphs/inference/inference-config.js';
import { loadTracingConfig } from '../../subgraphs/tracing/tracing-config.js';

/** The retention settings: unset keeps forever; a value outside 1–36500 whole days stops start-up with its name. */
const days = (env: Record<string, string>) => {
  const config = loadConfig(env);
  return {
    events: config.retention.eventDays,
    usage: loadInferenceConfig(config).usageRetentionDays,
    traces: loadTracingConfig(config).traceRetentionDays,
  };
};

it('reads the retentions in days, unset (or empty) as forever', () => {
  expect(days({})).toEqual({ events: undefined, usage: undefined, traces: undefined });
  expect(days({ TRELLIS_EVENT_RETENTION_DAYS: '7', TRELLIS_USAGE_RETENTION_DAYS: '90', TRELLIS_TRACE_RETENTION_DAYS: '' })).toEqual({ events: 7, usage: 90, traces: undefined });
  expect(loadConfig({}).retention).toMatchObject({ intervalMs: 60_000, batchSize: 1_000, pauseMs: 50 });
});

it('refuses zero, negative, fractional, absurd and non-numeric retentions, naming the variable', () => {
  for (const name of ['TRELLIS_EVENT_RETENTION_DAYS', 'TRELLIS_USAGE_RETENTION_DAYS', 'TRELLIS_TRACE_RETENTION_DAYS']) {
    for (const value of ['0', '-1', '1.5', '36501', 'thirty']) {
      expect(() => days({ [name]: value })).toThrow(ConfigError);
      expect(() => days({ [name]: value })).toThrow(`${name} must be an integer between 1 and 36500, got "${value}"`);
    }
  }
  expect(() => loadConfig({ TRELLIS_RETENTION_BATCH_SIZE: '0' })).toThrow('TRELLIS_RETENTION_BATCH_SIZE must be an integer between 1 and 100000');
});

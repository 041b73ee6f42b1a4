import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { REPO_ROOT } from '../../support/processes.js';
import { parsePrometheusText, samplesOf } from './prometheus-text.js';
import { promtoolProblems } from './promtool.js';

/**
 * The Grafana dashboard in the repository (deploy/grafana/trellis.json) against the one-process platform's real
 * `/metrics`: every metric a panel or variable queries is exposed, with the `service` and `process` labels its
 * variables select on. A renamed or dropped metric fails here instead of leaving a panel empty.
 */
const DASHBOARD = path.join(REPO_ROOT, 'deploy/grafana/trellis.json');

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
}, 120_000);
afterAll(async () => {
  await platform?.close();
});

interface Dashboard {
  templating: { list: { name: string; type: string; query: string | { query: string } }[] };
  panels: { title: string; targets: { expr: string }[] }[];
}

/** The metric names a PromQL expression reads (Trellis' metrics all start with trellis_). */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\btrellis_[a-zA-Z0-9_:]+/g)].map((match) => match[0]);
}

describe('the Grafana dashboard', () => {
  it('queries only metrics the platform exposes, by service and process', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
    // A request first: the latency histogram has series once a request was answered.
    expect((await platform.fetch('/healthz')).status).toBe(200);
    const text = await (await platform.fetch('/metrics')).text();
    const families = parsePrometheusText(text);
    const samples = samplesOf(families);
    // A family is exposed once declared (# TYPE), with or without series yet (dead letters have none until one).
    const exposed = new Set([
      ...samples.map((sample) => sample.name),
      ...[...families.values()].flatMap((family) =>
        family.type === 'histogram' ? ['_bucket', '_sum', '_count'].map((suffix) => family.name + suffix) : [family.name],
      ),
    ]);

    const queries = [
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr }))),
      ...dashboard.templating.list
        .filter((variable) => variable.type === 'query')
        .map((variable) => ({ where: `variable ${variable.name}`, expr: typeof variable.query === 'string' ? variable.query : variable.query.query })),
    ];
    expect(queries.length).toBeGreaterThan(10);
    for (const { where, expr } of queries) {
      const names = metricNames(expr);
      expect(names.length, `${where} queries no Trellis metric: ${expr}`).toBeGreaterThan(0);
      for (const name of names) expect(exposed.has(name), `${where} queries ${name}, which /metrics does not expose`).toBe(true);
    }
    // The background workers' metrics are among them (this platform runs every worker).
    const queried = new Set(queries.flatMap(({ expr }) => metricNames(expr)));
    for (const name of [
      'trellis_webhook_delivery_attempts_total',
      'trellis_automation_engine_lag_seconds',
      'trellis_training_queue_jobs',
      'trellis_event_consumer_lag_seconds',
      'trellis_dead_letter_records_total',
    ]) {
      expect(queried.has(name), name).toBe(true);
    }
    // The variables select on these labels: every series has them.
    expect(dashboard.templating.list.map((variable) => variable.name)).toEqual(expect.arrayContaining(['service', 'process']));
    for (const sample of samples) expect(sample.labels, sample.name).toMatchObject({ service: 'platform', process: '0' });
    expect(await promtoolProblems(text)).toEqual([]);
  });

  it('has the one-process platform ready, and alive', async () => {
    const ready = await platform.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: [{ check: 'database', ok: true }] });
    expect((await platform.fetch('/healthz')).status).toBe(200);
  });
});

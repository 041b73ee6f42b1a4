import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The links the Weave SDKs print (`https://<host>/<entity>/<project>/r/call/<id>`, `/weave/objects/<name>/versions/
 * <digest>`), opened in a browser signed in to the dashboard: they land on the call, in its trace, and on the
 * object's version.
 */
let harness: DashboardHarness;
let callId: string;
let traceId: string;
let digests: string[];

const post = (path: string, body: unknown) => harness.postJson(path, body);

beforeAll(async () => {
  harness = await startDashboardHarness();
  const project_id = 'trellis/links';
  const started = new Date(Date.now() - 60_000).toISOString();
  const root = await post('/traces/call/start', { start: { project_id, op_name: 'weave:///trellis/links/op/answer:abc', started_at: started, attributes: {}, inputs: { question: 'why?' } } });
  const child = await post('/traces/call/start', {
    start: { project_id, op_name: 'weave:///trellis/links/op/lookup_facts:def', trace_id: root.trace_id, parent_id: root.id, started_at: started, attributes: {}, inputs: { topic: 'sky' } },
  });
  await post('/traces/call/end', { end: { project_id, id: child.id, ended_at: new Date().toISOString(), output: 'Rayleigh scattering', summary: {} } });
  await post('/traces/call/end', { end: { project_id, id: root.id, ended_at: new Date().toISOString(), output: 'because', summary: {} } });
  callId = child.id;
  traceId = root.trace_id;
  digests = [];
  for (const rows of [['sky', 'sea'], ['sky', 'sea', 'grass']]) {
    const created = await post('/traces/obj/create', { obj: { project_id, object_id: 'colour-questions', val: { _type: 'Dataset', rows } } });
    digests.push(created.digest);
  }
  await harness.signIn();
}, 120_000);
afterAll(() => harness?.close());

describe('the links the Weave SDKs print, in the dashboard', () => {
  it("opens a call link on the call's trace with the call selected", async () => {
    const { page } = harness;
    await page.goto(`${harness.platform.url}/trellis/links/r/call/${callId}`);
    await page.waitForURL((url) => url.pathname === `/ui/traces/trellis/links/${traceId}` && url.searchParams.get('call') === callId);
    await page.getByRole('heading', { name: /lookup_facts/ }).first().waitFor();
    await expect.poll(() => page.locator('main').textContent()).toContain('Rayleigh scattering');
    expect(harness.problems).toEqual([]);
  });

  it("opens an object link on that version, with the object's other versions", async () => {
    const { page } = harness;
    await page.goto(`${harness.platform.url}/trellis/links/weave/objects/colour-questions/versions/${digests[0]}`);
    await page.waitForURL(`**/ui/objects/trellis/links/colour-questions/${digests[0]}`);
    await page.getByRole('heading', { name: 'colour-questions:v0' }).waitFor();
    const versions = page.getByRole('table');
    await expect.poll(() => versions.getByRole('row').count()).toBe(3);
    expect(await page.locator('main').textContent()).toContain('Dataset');
    await versions.getByRole('link', { name: 'v1' }).click();
    await page.getByRole('heading', { name: 'colour-questions:v1' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('grass');
    await harness.checkAccessibility('object version');
    await harness.screenshot('object-version');
    expect(harness.problems).toEqual([]);
  });

  it('says so when a linked call is not there', async () => {
    const { page } = harness;
    await page.goto(`${harness.platform.url}/trellis/links/r/call/0192f0aa-0000-7000-8000-000000000000`);
    await page.getByRole('heading', { name: 'Call not found' }).waitFor();
  });
});

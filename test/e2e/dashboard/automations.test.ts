import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVersion, TEST_ENV } from '../../../subgraphs/automations/test/helpers.js';
import { Receiver } from '../../../subgraphs/automations/test/receiver.js';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * The Automations page end to end: a secret, a webhook (tested against a loopback receiver) and an automation are
 * made through the UI; an artifact version created through the public graph triggers a delivery that appears live
 * with the receiver's 200; Redeliver adds a second attempt; the server's validation message lands next to the
 * field; the secret's value never reaches the page.
 */
const SECRET_VALUE = 'tok-e2e-Zq7Vb93Xw1';
let harness: DashboardHarness;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await new Receiver().start();
  receiver.responder = (request) => ({ status: 200, body: request.body.includes('"test":true') ? 'pong from the test receiver' : 'delivery accepted' });
  // Delivery workers on (the harness defaults them off), loopback webhooks admitted.
  harness = await startDashboardHarness({ env: TEST_ENV, workers: true });
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

async function pageHasNoSecret(): Promise<void> {
  const html = await harness.page.content();
  expect(html).not.toContain(SECRET_VALUE);
  const inputs = (await harness.page.evaluate(`[...document.querySelectorAll('input, textarea')].map((element) => element.value)`)) as string[];
  expect(inputs).not.toContain(SECRET_VALUE);
}

describe('dashboard: Automations', () => {
  it('creates a secret (write-only) and a webhook, and tests the webhook against a real receiver', async () => {
    const { page } = harness;
    await harness.signIn();
    await harness.open('/automations?team=trellis');
    await page.getByRole('heading', { level: 1, name: 'Automations' }).waitFor();
    await page.getByText('No secrets yet.').waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await page.getByText('No automations yet.').waitFor();
    await page.getByText('No deliveries yet.').waitFor();

    await page.getByLabel('Secret name').fill('HOOK_TOKEN');
    await page.getByLabel('Value', { exact: true }).fill(SECRET_VALUE);
    await page.getByRole('button', { name: 'Add secret' }).click();
    await page.getByRole('status').filter({ hasText: 'Secret HOOK_TOKEN stored' }).waitFor();
    await page.getByTestId('secrets').getByText('HOOK_TOKEN', { exact: true }).waitFor();
    expect(await page.getByLabel('Value', { exact: true }).inputValue()).toBe('');
    await pageHasNoSecret();

    await page.getByLabel('Webhook name').fill('ci-receiver');
    await page.getByLabel('Endpoint URL').fill(receiver.url('/hook'));
    await page.getByLabel('Access token secret').selectOption('HOOK_TOKEN');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const webhook = page.locator('li[data-webhook="ci-receiver"]');
    await webhook.waitFor();
    expect(await webhook.textContent()).toContain(receiver.url('/hook'));

    await webhook.getByRole('button', { name: 'Test webhook ci-receiver' }).click();
    const answer = webhook.getByTestId('webhook-test-result');
    await answer.waitFor();
    expect(await answer.getByTestId('http-status').textContent()).toBe('200');
    expect(await answer.textContent()).toContain('pong from the test receiver');
    const [test] = await receiver.waitFor(1);
    expect(test!.headers.authorization).toBe(`Bearer ${SECRET_VALUE}`);
    await pageHasNoSecret();
  });

  it('shows the server\'s validation messages next to the fields, then creates the automation', async () => {
    const { page } = harness;
    await page.getByRole('button', { name: 'New automation' }).click();
    const form = page.getByRole('form', { name: 'New automation' });
    await form.getByLabel('Name', { exact: true }).fill('notify-ci');
    await form.getByLabel('Project', { exact: true }).fill('default');
    await form.getByLabel('Event').selectOption('CREATE_ARTIFACT');

    // No webhook chosen: the server's refusal is shown, nothing is created.
    await form.getByRole('button', { name: 'Create automation' }).click();
    const formAlert = form.getByTestId('automation-form-errors');
    await formAlert.waitFor();
    const noWebhook = (await formAlert.textContent()) ?? '';
    expect(noWebhook.length).toBeGreaterThan(10);

    // An unknown variable in the template: the message sits under the payload field.
    await form.getByLabel('Webhook').selectOption({ label: 'ci-receiver' });
    await form.getByLabel(/Payload template/).fill('{"version": "${artifact_version_string}", "oops": "${no_such_variable}"}');
    await form.getByRole('button', { name: 'Create automation' }).click();
    const payloadError = page.getByTestId('field-error-automation-payload');
    await payloadError.waitFor();
    expect(await payloadError.textContent()).toContain('Unknown payload variable ${no_such_variable}');
    expect(await form.getByLabel(/Payload template/).getAttribute('aria-invalid')).toBe('true');
    await harness.checkAccessibility('automations form with errors');

    await form.getByLabel(/Payload template/).fill('{"version": "${artifact_version_string}", "by": "${event_author}", "token": "${HOOK_TOKEN}"}');
    await form.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('status').filter({ hasText: 'Automation notify-ci created' }).waitFor();
    const row = page.getByTestId('automations').getByRole('row', { name: /notify-ci/ });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/CREATE_ARTIFACT.*project default.*ci-receiver.*active/);

    // Edit (updateAutomation): the same server checks, then the change is saved.
    await row.getByRole('button', { name: 'Edit notify-ci' }).click();
    const edit = page.getByRole('form', { name: 'Edit automation notify-ci' });
    expect(await edit.getByLabel('Name', { exact: true }).inputValue()).toBe('notify-ci');
    const template = await edit.getByLabel(/Payload template/).inputValue();
    await edit.getByLabel(/Payload template/).fill('{"version": ${artifact_version_string}');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByTestId('field-error-automation-payload').textContent()).toContain('not valid JSON');
    await edit.getByLabel(/Payload template/).fill(template);
    await edit.getByLabel('Description (optional)').fill('Tells CI about new versions');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Automation notify-ci saved' }).waitFor();
    await row.filter({ hasText: 'Tells CI about new versions' }).waitFor();
  });

  it('shows a triggered delivery live with the receiver\'s 200, and Redeliver adds a second attempt', async () => {
    const { page, platform } = harness;
    const log = page.getByTestId('delivery-log');
    await log.getByTestId('live-indicator').filter({ hasText: 'Live' }).waitFor();
    const before = receiver.requests.length;

    // An event through the public graph; the page is not reloaded: the delivery arrives over the subscription.
    await createVersion(platform, { collection: 'dashboard-model' });
    const row = log.getByRole('row', { name: /CREATE_ARTIFACT/ });
    await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
    expect(await row.getByTestId('http-status').textContent()).toBe('200');
    const [delivered] = (await receiver.waitFor(before + 1)).slice(before);
    expect(delivered!.body).toContain(SECRET_VALUE); // the receiver gets the value; the page shows [redacted]

    await row.getByRole('button', { name: /^Details \(delivery/ }).click();
    const detail = page.getByTestId('delivery-detail');
    await detail.waitFor();
    await expect.poll(() => detail.getByTestId('delivery-attempt').count()).toBe(1);
    expect(await detail.getByTestId('delivery-attempt').first().textContent()).toMatch(/^1.*200.*delivery accepted/);
    expect(await detail.getByTestId('json-viewer').textContent()).toContain('[redacted]');
    await page.evaluate('window.scrollTo(0, 0)');
    await harness.screenshot('automations');

    await detail.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => detail.getByTestId('delivery-attempt').count(), { timeout: 15_000 }).toBe(2);
    expect(await detail.getByTestId('delivery-attempt').nth(1).textContent()).toMatch(/^2.*200/);
    const redelivered = await receiver.waitFor(before + 2);
    expect(redelivered[before + 1]!.headers['x-service-delivery']).toBe(delivered!.headers['x-service-delivery']);
    await row.filter({ hasText: 'succeeded' }).waitFor();
    expect(await row.textContent()).toMatch(/succeeded\s*200\s*2/);

    await pageHasNoSecret();
    await harness.checkAccessibility('automations');
    await detail.scrollIntoViewIfNeeded();
    await page.getByRole('heading', { name: 'Delivery log' }).evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await harness.screenshot('automations-deliveries');
    expect(harness.problems).toEqual([]);
  });
});

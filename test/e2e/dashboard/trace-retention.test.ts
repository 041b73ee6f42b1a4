import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * Settings → Trace retention: an admin sees what applies to a project (the platform default here, 30 days), sets the
 * project's own retention, is refused an absurd one with the server's code and message, and goes back to the default;
 * a member is refused (FORBIDDEN) and changes nothing.
 */
let harness: DashboardHarness;
let member: { key: string };
beforeAll(async () => {
  harness = await startDashboardHarness({ env: { TRELLIS_TRACE_RETENTION_DAYS: '30' } });
  member = await harness.platform.createUser('retention-member', { trellis: 'MEMBER' });
  await harness.signIn();
});
afterAll(() => harness?.close());

const retentionOf = async () =>
  (await harness.platform.graphql('{ project(entity: "trellis", name: "default") { traceRetentionDays } }')).body.data.project.traceRetentionDays;

describe('dashboard: trace retention', () => {
  it('lets an admin set the retention of a project and go back to the platform default', async () => {
    const { page } = harness;
    await harness.open('/settings?project=trellis%2Fdefault');
    const form = page.getByRole('form', { name: 'Trace retention of trellis/default' });
    await form.waitFor();
    await expect.poll(() => page.getByTestId('retention-effective').textContent()).toBe('Traces are kept 30 days (the platform default).');

    await form.getByLabel('Days to keep traces').fill('7');
    await form.getByRole('button', { name: 'Save retention' }).click();
    await expect.poll(() => page.getByTestId('retention-effective').textContent()).toBe('Traces are kept 7 days (this project’s setting).');
    expect(await retentionOf()).toBe(7);
    await harness.checkAccessibility('settings (trace retention)');

    // Beyond the server's bound: refused with the catalogue code and the message, nothing changed.
    await form.getByLabel('Days to keep traces').fill('99999');
    await form.getByRole('button', { name: 'Save retention' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/^BAD_USER_INPUT: .*between 1 and 36500/);
    expect(await retentionOf()).toBe(7);

    await page.getByRole('button', { name: 'Use the platform default' }).click();
    await expect.poll(() => page.getByTestId('retention-effective').textContent()).toBe('Traces are kept 30 days (the platform default).');
    expect(await retentionOf()).toBeNull();
    expect(harness.problems.filter((problem) => problem.startsWith('page error'))).toEqual([]);
  });

  it('shows a member the server refusing the change', async () => {
    const { page } = harness;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await harness.signIn(member.key);
    await harness.open('/settings?project=trellis%2Fdefault');
    const form = page.getByRole('form', { name: 'Trace retention of trellis/default' });
    await form.waitFor();
    await form.getByLabel('Days to keep traces').fill('3');
    await form.getByRole('button', { name: 'Save retention' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/^FORBIDDEN: /);
    expect(await retentionOf()).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

let harness: DashboardHarness;
let member: { key: string };
beforeAll(async () => {
  harness = await startDashboardHarness();
  await harness.platform.createUser('erin');
  member = await harness.platform.createUser('frank', { trellis: 'MEMBER' });
  await harness.platform.createUser('gina', { hidden: 'ADMIN' });
  expect((await harness.platform.graphql('mutation { createProject(entity: "hidden", name: "secret") { fullName } }')).body.errors).toBeUndefined();
  await harness.signIn();
});
afterAll(() => harness?.close());

const viewerStatus = async (key: string) => (await harness.platform.graphql('{ viewer { username } }', {}, key)).status;

describe('dashboard: Settings', () => {
  it('creates an API key and shows it once; revoking it stops it working', async () => {
    const { page } = harness;
    await harness.open('/settings');
    const keys = page.getByRole('table', { name: 'Your API keys' });
    await keys.waitFor();
    await page.getByLabel('New key name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('The new key laptop');
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key.length).toBeGreaterThan(20);
    expect(await viewerStatus(key)).toBe(200);
    await keys.getByRole('row', { name: /laptop/ }).waitFor();
    expect(page.url()).not.toContain(key);
    await harness.checkAccessibility('settings');
    await harness.screenshot('settings', { mask: [shown] });

    // Once: after "Done" (or a reload) the key is nowhere on the page, only its prefix.
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await keys.getByRole('row', { name: /laptop/ }).waitFor();
    expect(await page.content()).not.toContain(key);

    await page.getByRole('button', { name: 'Revoke key laptop' }).click();
    await page.getByRole('button', { name: 'Confirm revoke “laptop”' }).click();
    await expect.poll(() => keys.getByRole('row', { name: /laptop/ }).textContent()).toMatch(/revoked/);
    expect(await viewerStatus(key)).toBe(401);
  });

  it('lets a team admin add a member, change their role and remove them, and shows the server\'s refusal', async () => {
    const { page } = harness;
    await harness.open('/settings');
    const team = page.locator('section[data-team="trellis"]');
    const members = team.getByRole('table', { name: 'Members of trellis' });
    await members.waitFor();
    await team.getByLabel('Username').fill('erin');
    await team.getByRole('button', { name: 'Add member' }).click();
    await members.getByRole('row', { name: /erin/ }).waitFor();

    await team.getByLabel('Role of erin in trellis').selectOption('ADMIN');
    await expect.poll(async () => (await harness.platform.graphql('{ team(name: "trellis") { members { username role } } }')).body.data.team.members).toContainEqual({ username: 'erin', role: 'ADMIN' });

    // Removing asks first; keeping them changes nothing.
    await team.getByRole('button', { name: 'Remove erin from trellis' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove erin from trellis?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('erin loses access to trellis');
    await dialog.getByRole('button', { name: 'Keep them' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await members.getByRole('row', { name: /erin/ }).count()).toBe(1);
    await team.getByRole('button', { name: 'Remove erin from trellis' }).click();
    await dialog.getByRole('button', { name: 'Yes, remove' }).click();
    await expect.poll(() => members.getByRole('row', { name: /erin/ }).count()).toBe(0);

    // Refused by the server: the catalogue code and its message, not a generic failure.
    await team.getByLabel('Username').fill('nobody-here');
    await team.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(() => team.getByRole('alert').textContent()).toMatch(/^[A-Z_]+: .+/);
    expect(harness.problems.filter((problem) => problem.startsWith('page error'))).toEqual([]);
  });

  it('shows a member (not an admin) the team read-only, saying why', async () => {
    const { page } = harness;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await harness.signIn(member.key);
    await harness.open('/settings');
    const team = page.locator('section[data-team="trellis"]');
    await expect.poll(() => team.getByTestId('members-read-only').textContent()).toContain('Only admins of trellis');
    expect(await team.getByRole('button', { name: /Remove/ }).count()).toBe(0);
    await harness.checkAccessibility('settings (member)');

    // A project of a team frank is not in: the graph answers null (it does not say whether it exists), and so does the page.
    await harness.open('/traces?project=hidden%2Fsecret');
    await page.getByText('There is no project hidden/secret you can see.').waitFor();
    await harness.checkAccessibility('traces (refused)');
  });
});

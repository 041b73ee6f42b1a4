import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardHarness, type DashboardHarness } from './harness.js';

/**
 * What surrounds every page: the colour scheme follows the system setting (and stays readable: axe's contrast rules
 * run in both), and the GraphQL explorer linked from the layout opens signed in for the tab.
 */
let harness: DashboardHarness;
beforeAll(async () => {
  harness = await startDashboardHarness();
  await harness.postJson('/traces/call/upsert_batch', {
    batch: [
      {
        mode: 'start',
        req: { start: { project_id: 'trellis/default', id: 'appearance-call', trace_id: 'appearance-trace', op_name: 'appearance_op', started_at: new Date().toISOString(), inputs: { q: 'hi' }, attributes: {} } },
      },
    ],
  });
});
afterAll(() => harness?.close());

const PAGES = ['/', '/traces', '/evaluations', '/inference', '/training', '/automations', '/settings'];

/** The page's computed background and text colours, as [r, g, b]. */
async function colours(): Promise<{ background: number[]; text: number[] }> {
  // A string: the test files are type-checked without the DOM library.
  return harness.page.evaluate(`(() => {
    const rgb = (value) => (value.match(/\\d+(\\.\\d+)?/g) ?? []).slice(0, 3).map(Number);
    const main = document.querySelector('main') ?? document.body;
    return { background: rgb(getComputedStyle(document.documentElement).backgroundColor), text: rgb(getComputedStyle(main).color) };
  })()`);
}
const luminance = (rgb: number[]) => (0.2126 * rgb[0]! + 0.7152 * rgb[1]! + 0.0722 * rgb[2]!) / 255;

describe('dashboard appearance', () => {
  it('follows the system colour scheme, and every page stays accessible in dark mode', async () => {
    const { page } = harness;
    await page.emulateMedia({ colorScheme: 'light' });
    await harness.open('/');
    await harness.signIn();
    const light = await colours();
    expect(luminance(light.background)).toBeGreaterThan(0.8);

    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await colours();
    expect(luminance(dark.background)).toBeLessThan(0.2);
    expect(luminance(dark.text)).toBeGreaterThan(0.7);
    for (const pathUnderUi of PAGES) {
      await harness.open(pathUnderUi);
      await page.locator('main h1').first().waitFor();
      await page.locator('.state-loading').first().waitFor({ state: 'detached' }).catch(() => undefined);
      await harness.checkAccessibility(`${pathUnderUi} in dark mode`);
    }
    await harness.open('/');
    await page.getByRole('heading', { name: 'Recent traces' }).waitFor();
    await harness.screenshot('home-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('fits every total in its card: large counts are shortened, the exact figure in the title', async () => {
    const { page } = harness;
    await harness.open('/');
    await page.getByRole('heading', { name: 'Recent traces' }).waitFor();
    const overflowing = await page.locator('.stat dd').evaluateAll((cells) =>
      cells.filter((cell) => cell.scrollWidth > cell.clientWidth + 1 || cell.getBoundingClientRect().right > cell.parentElement!.getBoundingClientRect().right).map((cell) => cell.textContent),
    );
    expect(overflowing).toEqual([]);
  });

  it('opens the GraphQL explorer from the layout signed in as the tab\'s user, and its starter query runs', async () => {
    const { page, platform } = harness;
    await harness.open('/');
    await page.getByTestId('signed-in-as').waitFor();
    await page.getByRole('link', { name: 'GraphQL explorer' }).click();
    await page.waitForURL(/\/graphql$/);
    // No key asked for: the dashboard's sign-in of this tab is reused.
    await expect.poll(() => page.locator('#signed-in-as').textContent()).toBe('Signed in as admin');
    expect(await page.locator('#sign-in').isHidden()).toBe(true);
    expect(page.url()).not.toContain(platform.adminKey);

    // The starter query (viewer with its default entity) runs without errors.
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(async () => (await page.locator('.result-window').textContent()) ?? '', { timeout: 10_000 }).toContain('"defaultEntity"');
    const result = (await page.locator('.result-window').textContent()) ?? '';
    expect(result).not.toContain('"errors"');
    expect(result).toContain('"name"');

    // Signing out of the explorer signs the tab out of the dashboard too (one sign-in per tab).
    await page.locator('#sign-out').click();
    await page.locator('#sign-in').waitFor();
    await harness.open('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});

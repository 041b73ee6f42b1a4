import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildDashboard } from '../../../server/dashboard/build.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * Browser tests of the dashboard: the platform (startTestPlatform, serving dist/dashboard, built here first when its
 * inputs changed) and Debian's Chromium driven by playwright-core (no browser download). One harness per test file:
 * one platform, one browser, one page.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../../docs/screenshots');
const requireHere = createRequire(import.meta.url);

export interface DashboardHarness {
  platform: TestPlatform;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors and failed requests seen so far (a CSP refusal shows up here). */
  problems: string[];
  /**
   * Forgets the problems seen so far — after a step that provokes a refusal on purpose. Waits first for the bodies of
   * refused responses still being read, which would otherwise land in `problems` after it was emptied.
   */
  forgetProblems(): Promise<void>;
  /** Opens /ui/<path> (path relative to /ui). */
  open(pathUnderUi: string): Promise<void>;
  /** Types the key into the sign-in form and waits for the layout. */
  signIn(key?: string): Promise<void>;
  /** Runs axe-core on the page; fails on serious or critical violations. */
  checkAccessibility(what: string): Promise<void>;
  /** docs/screenshots/<name>.png, 1280×800; `mask` hides secrets (a new key) behind a box. */
  screenshot(name: string, options?: { mask?: Locator[] }): Promise<void>;
  /** Seeds data: POSTs JSON to a REST path of the platform as the admin, expects 200, returns the parsed answer. */
  postJson(path: string, body: unknown): Promise<any>;
  close(): Promise<void>;
}

let axeSource: Promise<string> | undefined;

export async function startDashboardHarness(options: Parameters<typeof startTestPlatform>[0] = {}): Promise<DashboardHarness> {
  const [platform, browser] = await Promise.all([
    buildDashboard({ quiet: true }).then(() => startTestPlatform({ workers: false, ...options })),
    chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] }),
  ]);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  const bodiesBeingRead = new Set<Promise<void>>();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // A refused GraphQL request: its body says why (the console only says "400").
  page.on('response', (response) => {
    if (response.status() >= 400 && response.url().includes('/graphql')) {
      const reading = response.text().then(
        (body) => void problems.push(`${response.status()} ${new URL(response.url()).pathname}: ${body.slice(0, 500)}`),
        () => {},
      );
      bodiesBeingRead.add(reading);
      void reading.finally(() => bodiesBeingRead.delete(reading));
    }
  });

  const harness: DashboardHarness = {
    platform,
    browser,
    context,
    page,
    problems,
    async forgetProblems() {
      while (bodiesBeingRead.size > 0) await Promise.all(bodiesBeingRead);
      problems.length = 0;
    },
    async open(pathUnderUi) {
      await page.goto(`${platform.url}/ui${pathUnderUi.startsWith('/') ? pathUnderUi : `/${pathUnderUi}`}`);
    },
    async signIn(key = platform.adminKey) {
      if (!page.url().startsWith(platform.url)) await harness.open('/');
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('signed-in-as').waitFor();
    },
    async checkAccessibility(what) {
      axeSource ??= readFile(requireHere.resolve('axe-core/axe.min.js'), 'utf8');
      // Evaluated through the DevTools protocol, which the page's CSP does not restrict (an injected <script> would be refused).
      await page.evaluate(await axeSource);
      const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`)) as {
        id: string;
        impact: string | null;
        help: string;
        targets: string[];
      }[];
      const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
      expect(serious, `${what}: axe-core violations`).toEqual([]);
    },
    async postJson(pathname, body) {
      const response = await platform.fetch(pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      expect(response.status, `${pathname}: ${text}`).toBe(200);
      return JSON.parse(text);
    },
    async screenshot(name, options) {
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), animations: 'disabled', caret: 'hide', mask: options?.mask, maskColor: '#d9dde3' });
    },
    async close() {
      await browser.close().catch(() => {});
      await platform.close();
    },
  };
  return harness;
}

// What the catalog browser's tests do in the page (docs/ui.md "Tests"): sign
// in, read the virtualized catalog table whole, run axe-core under the page's
// own CSP. Page code is passed as strings: the repository's type check has no
// DOM library.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

export async function signIn(page: Page, url: string, credential: string): Promise<void> {
  await page.goto(`${url}/ui/`);
  await page.fill('#credential', credential);
  await page.click('form.sign-in button[type=submit]');
}

/** Every toolId the catalog table shows under the current filters, scrolling its window through the whole list. */
export async function tableToolIds(page: Page): Promise<string[]> {
  await page.waitForSelector('.table-scroll');
  return page.evaluate(`(async () => {
    const scroller = document.querySelector('.table-scroll');
    const seen = new Set();
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    scroller.scrollTop = 0;
    await frame();
    for (;;) {
      for (const a of document.querySelectorAll('table.tools td.tool-id a')) seen.add(a.textContent);
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
      scroller.scrollTop += scroller.clientHeight;
      await frame();
    }
    scroller.scrollTop = 0;
    return [...seen];
  })()`) as Promise<string[]>;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** A same-origin URL the test answers itself, so the page's `script-src 'self'` admits axe without bypassing the CSP. */
const AXE_PATH = '/ui-test-only/axe.min.js';

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/** Every violation axe reports, whatever its impact (the page has none left to tolerate). */
export async function axeViolations(page: Page, url: string): Promise<AxeViolation[]> {
  await page.route(`${url}${AXE_PATH}`, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: AXE_SOURCE }));
  const loaded = await page.evaluate('typeof window.axe');
  if (loaded !== 'object') await page.addScriptTag({ url: `${url}${AXE_PATH}` });
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`)) as AxeViolation[];
  return result;
}

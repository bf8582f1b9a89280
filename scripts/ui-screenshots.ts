// Screenshots of every page of the catalog browser for docs/ui.md: starts the
// demo host (its config copied into a temp dir, as the tests do), drives
// headless Chromium through sign-in, the catalog, a tool page, "Try it" with
// approval, Activity and Sources, and writes PNGs into docs/ui/.
//
//   npm run build && npm run ui:screenshots
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ACME_KEY, demoConfig, GLOBEX_KEY, startTestServer } from '../test/helpers/server.js';
import { launchBrowser } from '../test/ui/browser.js';

const OUT = fileURLToPath(new URL('../docs/ui/', import.meta.url));
mkdirSync(OUT, { recursive: true });

const server = await startTestServer(demoConfig());
const browser = await launchBrowser();
try {
  // A little history for Activity: an agent of each tenant calls a tool.
  for (const [key, name, args] of [
    [GLOBEX_KEY, 'openwop:text.uppercase', { text: 'hello' }],
    [ACME_KEY, 'mcp:everything.get-sum', { a: 2, b: 40 }],
    [ACME_KEY, 'openwop:notes.list', {}],
  ] as const) {
    const agent = new Client({ name: 'screenshot-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    await agent.callTool({ name, arguments: args });
    await agent.close();
  }

  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const shot = async (name: string, fullPage = false): Promise<void> => {
    await page.waitForTimeout(150);
    await page.screenshot({ path: `${OUT}${name}.png`, fullPage });
    console.log(`docs/ui/${name}.png`);
  };

  await page.goto(`${server.url}/ui/`);
  await page.fill('#credential', 'wrong-key');
  await page.click('form.sign-in button[type=submit]');
  await page.waitForSelector('#sign-in-problem:not(:empty)');
  await shot('sign-in-refused');

  await page.fill('#credential', ACME_KEY);
  await page.click('form.sign-in button[type=submit]');
  await page.waitForSelector('table.tools td.tool-id a');
  await shot('catalog');
  await page.selectOption('#catalog-tier', 'write');
  await page.fill('#catalog-search', 'ticket');
  await page.waitForTimeout(200);
  await shot('catalog-filtered');
  await page.selectOption('#catalog-tier', '');
  await page.fill('#catalog-search', '');

  await page.goto(`${server.url}/ui/#/tool/${encodeURIComponent('connector:tickets.createTicket')}`);
  await page.waitForSelector('#snippet-mcp');
  await shot('tool', true);

  await page.goto(`${server.url}/ui/#/tool/x-host-acme-run-command`);
  await page.waitForSelector('#snippet-mcp');
  await page.selectOption('.try-form select', { label: '"-s"' });
  await page.click('#call-tool');
  await page.waitForSelector('dialog.confirm[open]');
  await page.evaluate(`document.querySelector('#try-title').scrollIntoView({ block: 'start' })`);
  await shot('try-it-approval');
  await page.click('#approve-call');
  await page.waitForSelector('#call-events');
  await page.evaluate(`document.querySelector('#try-title').scrollIntoView({ block: 'start' })`);
  await shot('try-it-result');

  await page.goto(`${server.url}/ui/#/activity`);
  await page.waitForSelector('#live-state.state-live');
  await shot('activity');
  await page.locator('#sessions tr[data-session] a:text-is("Events")').first().click();
  await page.waitForSelector('#session-events');
  await shot('session');

  await page.goto(`${server.url}/ui/#/sources`);
  await page.waitForSelector('#sources');
  await shot('sources');
} finally {
  await browser.close();
  await server.close();
}

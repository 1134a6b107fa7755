import { launchChromium, serveBuiltApp } from './tests/browser/harness.ts';
const served = await serveBuiltApp('.bench/app-dist');
const browser = await launchChromium();
const ctx = await browser.newContext();
const page = await ctx.newPage();
const t0 = Date.now(); (globalThis as any).T0 = t0;
page.on('console', (m) => m.text().startsWith('MARK') && console.log(`${Date.now() - t0} console ${m.type()} ${m.text().slice(0, 150)}`));
page.on('worker', (w) => { console.log(`${Date.now() - t0} worker ${w.url().slice(-40)}`); w.on('console', (m) => m.text().startsWith('MARK') && console.log(`${Date.now() - t0} wconsole ${m.text().slice(0, 150)}`)); });
await page.goto(`${(served as any).origin ?? (served as any).url}/`, { waitUntil: 'load' });
console.log(`${Date.now() - t0} loaded`);
const button = page.getByTestId('run-demo');
await page.waitForFunction(() => !(document.querySelector('[data-testid=run-demo]') as HTMLButtonElement | null)?.disabled);
await button.click();
const tc = Date.now();
console.log(`${tc - t0} clicked`);
let last = '';
for (;;) {
  const text = await page.evaluate(() => {
    const s = document.querySelector('[data-testid=summary-cards]') ? 'DONE' : '';
    const p = document.querySelector('[data-testid=progress]')?.textContent ?? '';
    return (s + ' ' + p).replace(/\s+/g, ' ').slice(0, 140);
  });
  if (text !== last) { console.log(`${Date.now() - tc} ms after click: ${text}`); last = text; }
  if (text.startsWith('DONE')) break;
  await new Promise((r) => setTimeout(r, 50));
}
await browser.close(); await (served as any).close();
process.exit(0);

/**
 * Renders public/favicon.svg to the PNG icons of the web manifest (192 and 512 px, plus a
 * maskable 512 px with the safe-zone padding) with the same Chromium the browser tests use.
 *
 *   node --import tsx scripts/make-icons.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/browser/harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(path.join(root, 'public/favicon.svg'), 'utf8');
const browser = await launchChromium();
try {
  for (const [file, size, pad] of [
    ['icon-192.png', 192, 0],
    ['icon-512.png', 512, 0],
    ['icon-maskable-512.png', 512, 0.1],
  ] as const) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const inner = Math.round(size * (1 - 2 * pad));
    const html = `<html><body style="margin:0;background:${pad ? '#1f5f8b' : 'transparent'};display:grid;place-items:center;width:${size}px;height:${size}px">${svg.replace('<svg ', `<svg width="${inner}" height="${inner}" `)}</body></html>`;
    await page.setContent(html);
    await page.screenshot({ path: path.join(root, 'public', file), omitBackground: !pad });
    await page.close();
  }
} finally {
  await browser.close();
}
console.log('public/icon-192.png, icon-512.png, icon-maskable-512.png written');

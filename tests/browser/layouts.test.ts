/**
 * Every view (home, run in progress, results, case, playground, compare
 * runs, query, monitor) at 1280×800 and at a narrow 390×844, in light and
 * dark: no horizontal overflow of the document at the narrow width, body
 * text, headings and table cells at WCAG contrast ≥ 4.5 (3 for large text),
 * and every control reachable by Tab with a visible focus ring (≥ 3:1).
 * The compare view is checked against `sql-verdict diff` on the very two
 * reports the app exports. With UPDATE_SCREENSHOTS=1 it writes
 * docs/screenshots/compare.png, results-dark.png and results-narrow.png.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunDiff } from '../../src/core/gate/diff.ts';
import { repoRoot } from '../helpers/paths.ts';
import { launchChromium, openPage, runCli, serveBuiltApp, type ServedApp, BROWSER_TEST_MS } from './harness.ts';

// Each test starts the production app in Chromium beside the engine tests' workers: minutes, not seconds, on a busy
// CI machine (the suite's 60 s default is for the unit tests).
vi.setConfig({ testTimeout: BROWSER_TEST_MS });

const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(repoRoot, 'test-results');
mkdirSync(SHOTS, { recursive: true });
const WORK = mkdtempSync(path.join(tmpdir(), 'verdict-layouts-'));

const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 390, height: 844 };
const COMBOS = [
  { name: 'wide light', viewport: WIDE, scheme: 'light' },
  { name: 'wide dark', viewport: WIDE, scheme: 'dark' },
  { name: 'narrow light', viewport: NARROW, scheme: 'light' },
  { name: 'narrow dark', viewport: NARROW, scheme: 'dark' },
] as const;

let app: ServedApp;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const foreign: string[] = [];
const runIds: { demo?: string; strong?: string } = {};
const reports: { demo?: string; strong?: string } = {};

beforeAll(async () => {
  app = await serveBuiltApp();
  browser = await launchChromium();
  // One context for all views (the graded runs live in its IndexedDB); dark is the context's scheme, light is emulated per check.
  ({ page } = await openPage(
    browser,
    app.origin,
    { viewport: WIDE, colorScheme: 'dark', acceptDownloads: true },
    { foreign, pageErrors },
  ));
  await page.goto(`${app.origin}/`);
  await page.getByTestId('home').waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

interface Audit {
  overflow: { scrollWidth: number; innerWidth: number; culprits: string[] };
  contrast: { text: string; where: string; ratio: number; need: number; fg: string; bg: string }[];
}

/** Runs in the page: overflow and the contrast of every visible text element (WCAG relative luminance). */
function audit(): Audit {
  type RGBA = [number, number, number, number];
  const parse = (c: string): RGBA => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1]!
      .split(/[ ,/]+/)
      .filter(Boolean)
      .map(Number);
    return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
  };
  const over = (top: RGBA, under: RGBA): RGBA => {
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i: number) => (top[i]! * top[3] + under[i]! * under[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const lum = ([r, g, b]: RGBA) => {
    const ch = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
  };
  const ratio = (x: RGBA, y: RGBA) => {
    const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p);
    return (a! + 0.05) / (b! + 0.05);
  };
  const background = (el: Element): RGBA => {
    const layers: RGBA[] = [];
    for (let e: Element | null = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let acc: RGBA = parse(getComputedStyle(document.documentElement).backgroundColor);
    if (acc[3] === 0) acc = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) acc = over(layers[i]!, acc);
    return acc;
  };
  const hidden = (el: Element): boolean => {
    for (let e: Element | null = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.clipPath === 'inset(50%)' || Number(s.opacity) === 0)
        return true;
    }
    const r = el.getBoundingClientRect();
    return r.width < 2 || r.height < 2;
  };
  const contrast: Audit['contrast'] = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, script, style, option, select, [disabled], textarea, input')) continue;
    const own = [...el.childNodes].some(
      (n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim().length > 0,
    );
    if (!own || hidden(el)) continue;
    const s = getComputedStyle(el);
    const fg = over(parse(s.color), background(el));
    const bg = background(el);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    const need = large ? 3 : 4.5;
    const r = ratio(fg, bg);
    if (r < need) {
      const where = `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
      contrast.push({
        text: (el.textContent ?? '').trim().slice(0, 40),
        where,
        ratio: Math.round(r * 100) / 100,
        need,
        fg: s.color,
        bg: `rgb(${bg.slice(0, 3).map(Math.round).join(', ')})`,
      });
    }
  }
  const doc = document.scrollingElement!;
  const culprits =
    doc.scrollWidth > innerWidth + 1
      ? [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && !hidden(e))
          .slice(0, 8)
          .map((e) => `${e.tagName.toLowerCase()}.${typeof e.className === 'string' ? e.className : ''}`)
      : [];
  return { overflow: { scrollWidth: doc.scrollWidth, innerWidth, culprits }, contrast };
}

interface FocusStop {
  key: string;
  indicator: boolean;
  ringContrast: number;
}

/** Controls a keyboard user must reach (one per radio group), as stable keys. */
function controls(): string[] {
  const keyOf = (window as unknown as { __key: (e: Element) => string }).__key;
  const seenGroups = new Set<string>();
  const out: string[] = [];
  for (const el of document.querySelectorAll<HTMLElement>(
    'a[href], button, input, select, textarea, summary, [tabindex]',
  )) {
    if (el.matches(':disabled, [tabindex="-1"]') || el.closest('[inert]')) continue;
    // Inside a closed <details> only its summary is shown (and reachable).
    const closed = el.closest('details:not([open])');
    if (closed && el !== closed.querySelector(':scope > summary')) continue;
    if (el instanceof HTMLInputElement && el.type === 'hidden') continue;
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    if ((r.width === 0 && r.height === 0) || s.visibility === 'hidden' || el.closest('[hidden]')) continue;
    if (el instanceof HTMLInputElement && el.type === 'radio') {
      if (seenGroups.has(el.name)) continue;
      seenGroups.add(el.name);
      out.push(`radio:${el.name}`);
      continue;
    }
    out.push(keyOf(el));
  }
  return out;
}

const installKeys = () => {
  const ids = new WeakMap<Element, string>();
  let next = 0;
  (window as unknown as { __key: (e: Element) => string }).__key = (e: Element) => {
    if (e instanceof HTMLInputElement && e.type === 'radio') return `radio:${e.name}`;
    let k = ids.get(e);
    if (!k) {
      k = `${e.tagName.toLowerCase()}#${next++}:${(e.textContent ?? e.getAttribute('aria-label') ?? '').trim().slice(0, 30)}`;
      ids.set(e, k);
    }
    return k;
  };
};

/** The focused element: its key, and whether it shows a focus ring that stands out (3:1) from what is around it. */
function focusStop(): FocusStop | null {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const keyOf = (window as unknown as { __key: (e: Element) => string }).__key;
  const parse = (c: string) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    const p = m
      ? m[1]!
          .split(/[ ,/]+/)
          .filter(Boolean)
          .map(Number)
      : [0, 0, 0, 0];
    return [p[0]!, p[1]!, p[2]!, p[3] ?? 1] as const;
  };
  const lum = (c: readonly number[]) => {
    const ch = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(c[0]!) + 0.7152 * ch(c[1]!) + 0.0722 * ch(c[2]!);
  };
  let bgEl: Element | null = el.parentElement;
  let bg = parse('rgba(0,0,0,0)');
  while (bgEl && bg[3] === 0) {
    bg = parse(getComputedStyle(bgEl).backgroundColor);
    bgEl = bgEl.parentElement;
  }
  if (bg[3] === 0) bg = parse(getComputedStyle(document.documentElement).backgroundColor);
  const s = getComputedStyle(el);
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1;
  const shadow = s.boxShadow !== 'none';
  const ring = outline ? parse(s.outlineColor) : shadow ? parse(s.boxShadow) : bg;
  const [hi, lo] = [lum(ring), lum(bg)].sort((a, b) => b - a);
  return {
    key: keyOf(el),
    indicator: outline || shadow,
    ringContrast: Math.round(((hi! + 0.05) / (lo! + 0.05)) * 100) / 100,
  };
}

/** Tab from the top of the page until focus leaves it or comes round again. */
async function tabWalk(): Promise<{ expected: string[]; stops: FocusStop[]; end: string }> {
  await page.evaluate(installKeys);
  const expected = await page.evaluate(controls);
  await page.evaluate(() => {
    const start = document.createElement('span');
    start.tabIndex = -1;
    document.body.prepend(start);
    start.focus();
    start.remove();
  });
  const stops: FocusStop[] = [];
  const seen = new Set<string>();
  let end = 'limit';
  for (let i = 0; i < expected.length + 10; i++) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate(focusStop);
    if (!stop || seen.has(stop.key)) {
      end = stop
        ? `again ${stop.key}`
        : `left the page (${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80) ?? 'none')})`;
      break;
    }
    seen.add(stop.key);
    stops.push(stop);
  }
  return { expected, stops, end };
}

/** Check the current view in all four layouts; `ready` waits for the view's content after a resize. */
async function checkView(
  view: string,
  ready: () => Promise<void> = async () => undefined,
  shots: Record<string, string> = {},
): Promise<void> {
  for (const combo of COMBOS) {
    await page.setViewportSize(combo.viewport);
    await page.emulateMedia({ colorScheme: combo.scheme });
    await ready();
    await page.waitForTimeout(50);
    const where = `${view} (${combo.name})`;
    const a = await page.evaluate(audit);
    if (combo.viewport === NARROW)
      expect(
        a.overflow.scrollWidth,
        `${where}: horizontal overflow by ${a.overflow.culprits.join(', ')}`,
      ).toBeLessThanOrEqual(a.overflow.innerWidth + 1);
    expect(a.contrast, `${where}: low-contrast text`).toEqual([]);
    const walk = await tabWalk();
    const reached = new Set(walk.stops.map((s) => s.key));
    if (process.env.LAYOUT_DEBUG)
      console.log(
        where,
        `${walk.stops.length} tab stops for ${walk.expected.length} controls`,
        JSON.stringify(walk.stops.map((s) => s.key)),
        JSON.stringify(walk.expected),
        walk.end,
      );
    expect(
      walk.expected.filter((k) => !reached.has(k)),
      `${where}: controls Tab never reaches`,
    ).toEqual([]);
    expect(
      walk.stops.filter((s) => !s.indicator || s.ringContrast < 3),
      `${where}: focus without a visible ring`,
    ).toEqual([]);
    const shot = shots[combo.name];
    if (shot) await page.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
  }
  await page.setViewportSize(WIDE);
  await page.emulateMedia({ colorScheme: 'light' });
}

const text = async (testId: string) => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();
const runIdFromUrl = () => decodeURIComponent(new URL(page.url()).hash.replace(/^#\/runs\//, '').split('/')[0]!);

async function exportReport(name: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const file = path.join(WORK, `${name}.json`);
  await download.saveAs(file);
  return file;
}

describe('layouts: narrow and dark, keyboard, every view', () => {
  test('the checks catch what they look for (low contrast, overflow, a control without a focus ring)', async () => {
    await page.setViewportSize(NARROW);
    await page.evaluate(() => {
      const box = document.createElement('div');
      box.id = 'probe';
      // Styles set through the CSSOM: the page's CSP refuses style attributes in markup.
      const faint = Object.assign(document.createElement('p'), { textContent: 'faint' });
      faint.style.color = '#777';
      faint.style.background = '#888';
      const wide = Object.assign(document.createElement('div'), { textContent: 'wide' });
      wide.style.width = '600px';
      const bare = Object.assign(document.createElement('button'), { textContent: 'no ring' });
      bare.style.outline = 'none';
      box.append(faint, wide, bare);
      document.querySelector('main')!.append(box);
    });
    const a = await page.evaluate(audit);
    expect(a.contrast.map((c) => c.text)).toEqual(['faint']);
    expect(a.overflow.scrollWidth).toBeGreaterThan(a.overflow.innerWidth + 1);
    const walk = await tabWalk();
    expect(walk.stops.filter((s) => !s.indicator).map((s) => s.key)).toEqual([
      expect.stringMatching(/^button#\d+:no ring$/),
    ]);
    await page.evaluate(() => document.getElementById('probe')!.remove());
    await page.setViewportSize(WIDE);
  }, 60_000);

  test('home', async () => {
    await checkView('home');
  }, 120_000);

  test('run in progress, then results (demo run)', async () => {
    await page.getByTestId('run-demo').click();
    await page.getByTestId('progress').waitFor({ timeout: 60_000 });
    runIds.demo = runIdFromUrl();
    // The run view while it grades (it may finish during the later layouts: the view then shows results, also checked).
    await checkView('run');
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    await checkView('results', async () => undefined, {
      'wide dark': 'results-dark.png',
      'narrow light': 'results-narrow.png',
    });
    reports.demo = await exportReport('demo');
  }, 700_000);

  test('case, with the full results shown', async () => {
    await page.goto(`${app.origin}/#/runs/${encodeURIComponent(runIds.demo!)}/cases/retail-net-revenue-2024`);
    await page.getByTestId('case-view').waitFor();
    await page.getByTestId('show-full-results').click();
    await page.getByTestId('full-expected-scroll').waitFor({ timeout: 60_000 });
    // The case's full results: the report's differing cell is marked on both sides.
    expect(await page.locator('[data-testid=full-actual] td[data-differs]').count()).toBe(1);
    await checkView('case');
    // For a look by eye (not committed).
    await page
      .getByTestId('full-results')
      .screenshot({ path: path.join(repoRoot, 'test-results', 'case-full-results.png') });
  }, 240_000);

  test('playground', async () => {
    await page.goto(`${app.origin}/#/playground`);
    await expect.poll(() => text('verdict'), { timeout: 90_000 }).toMatch(/pass|fail/);
    await checkView('playground');
  }, 240_000);

  test('query', async () => {
    await page.goto(`${app.origin}/#/query`);
    await expect.poll(() => text('status'), { timeout: 90_000 }).not.toBe('');
    await checkView('query');
  }, 240_000);

  test('monitor', async () => {
    await page.goto(`${app.origin}/#/monitor`);
    await page.getByTestId('use-sample').click();
    await page.getByTestId('agents').waitFor({ timeout: 60_000 });
    await checkView('monitor');
  }, 240_000);

  test('compare runs: the demo run against the strong sample run, as `sql-verdict diff` reports them', async () => {
    await page.goto(`${app.origin}/`);
    await page.getByTestId('home').waitFor();
    await page.getByLabel(/execution_goldens\.yaml/).check();
    await page.getByLabel(/execution_goldens\.strong\.json/).check();
    await expect.poll(() => page.getByTestId('start').isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.getByTestId('start').click();
    await page.getByTestId('progress').waitFor({ timeout: 60_000 });
    runIds.strong = runIdFromUrl();
    await page.getByTestId('summary-cards').waitFor({ timeout: 600_000 });
    reports.strong = await exportReport('strong');

    const [cli, cliJson] = await Promise.all([
      runCli(['diff', '--report', reports.demo!, '--report', reports.strong!]),
      runCli(['diff', '--report', reports.demo!, '--report', reports.strong!, '--json']),
    ]);
    expect(cli.status, cli.stderr).toBe(0);
    const d = JSON.parse(cliJson.stdout) as RunDiff;
    const printedP = cli.stdout.match(/McNemar exact test: b=\d+, c=\d+, p=(\S+)/)![1]!;
    console.log(cli.stdout.trim());

    await page.goto(`${app.origin}/#/compare`);
    await page.getByTestId('cmp-a').selectOption(runIds.demo!);
    await page.getByTestId('cmp-b').selectOption(runIds.strong!);
    await page.getByTestId('cmp-result').waitFor();
    expect(await text('mcnemar-p')).toBe(printedP);
    expect(await page.getByTestId('mcnemar-p').getAttribute('data-exact')).toBe(
      `${d.mcnemar.p_exact.numerator}/${d.mcnemar.p_exact.denominator}`,
    );
    expect(Number(await text('cmp-fixed'))).toBe(d.counts.fixed);
    expect(Number(await text('cmp-regressed'))).toBe(d.counts.regressed);
    expect(Number(await text('cmp-unchanged-right'))).toBe(d.counts.unchanged_right);
    expect(Number(await text('cmp-unchanged-wrong'))).toBe(d.counts.unchanged_wrong);
    expect(d.counts.fixed).toBeGreaterThan(0);
    // Per case, in the corpus order: the same change as the CLI's.
    const rows = await page
      .locator('[data-testid=cmp-cases] tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [tr.querySelector('td')?.textContent ?? '', tr.getAttribute('data-change')]),
      );
    expect(rows).toEqual(d.cases.map((k) => [k.id, k.change]));
    await checkView('compare', async () => undefined, { 'wide light': 'compare.png' });
  }, 700_000);

  test('no request left the origin and the page raised no error', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

#!/usr/bin/env node
// The dashboard's render budget, measured in headless Chromium (one launch): for the index and
// the heaviest series page of a site, the time from navigation to the first frame painted with a
// chart (a MutationObserver sees the first chart's <svg> and waits two animation frames), the
// time until every chart of the page is painted (the load event, then two frames), and the page
// weight (every file the page loaded). Printed next to the goals (< 1 s, < 5 MB); each figure is
// the median of --runs loads (fresh page each time).
//
// Usage: node bench/dashboard_budget.js --site DIR [--runs N]
'use strict';

const fs = require('fs');
const path = require('path');
const { Browser, findChromium } = require('../tests/browser/cdp');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const site = path.resolve(args.site || '');
const runs = parseInt(args.runs || '5', 10);

// Runs in the page before anything else: stamps the first painted chart and the painted load.
const PROBE = `(() => {
  const frame2 = (f) => requestAnimationFrame(() => requestAnimationFrame(f));
  window.__budget = {};
  new MutationObserver((_, obs) => {
    if (document.querySelector('svg.chart, svg.spark')) {
      obs.disconnect();
      frame2(() => { window.__budget.first = performance.now(); });
    }
  }).observe(document, { childList: true, subtree: true });
  addEventListener('load', () => frame2(() => { window.__budget.all = performance.now(); }));
})();`;

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function measure(browser, file) {
  const firsts = [], alls = [];
  let weight = 0;
  for (let i = 0; i < runs; ++i) {
    const page = await browser.newPage(1280, 900);
    await page.send('Page.addScriptToEvaluateOnNewDocument', { source: PROBE });
    await page.goto('file://' + file);
    let b = {};
    for (let k = 0; k < 100 && !(b.first && b.all); ++k) {
      b = await page.eval('window.__budget');
      if (!(b.first && b.all)) await new Promise((r) => setTimeout(r, 20));
    }
    firsts.push(b.first);
    alls.push(b.all);
    const files = [...new Set(page.requests.filter((u) => u.startsWith('file://')))];
    weight = files.reduce((n, u) => n + fs.statSync(decodeURIComponent(new URL(u).pathname)).size, 0);
    const other = page.requests.filter((u) => !u.startsWith('file://'));
    if (other.length || page.problems.length) throw new Error(file + ': ' + other.concat(page.problems).join('; '));
    await browser.send('Target.closeTarget', { targetId: (await browser.send('Target.getTargets')).targetInfos.find((t) => t.type === 'page' && t.url.startsWith('file://')).targetId });
  }
  return { first: median(firsts), all: median(alls), weight };
}

function row(name, m) {
  const ms = (x) => (x.toFixed(0) + ' ms').padStart(8);
  const mb = (m.weight / 1e6).toFixed(2) + ' MB';
  console.log(`${name.padEnd(22)} first chart ${ms(m.first)} (goal < 1000 ms: ${m.first < 1000 ? 'met' : 'MISSED'})` +
    `   all charts ${ms(m.all)}   weight ${mb.padStart(8)} (goal < 5 MB: ${m.weight < 5e6 ? 'met' : 'MISSED'})`);
}

async function main() {
  const chromium = findChromium();
  if (!chromium) throw new Error('no chromium (set PERFSWEEP_CHROMIUM)');
  const series = fs.readdirSync(path.join(site, 'series')).filter((f) => f.endsWith('.html'))
    .map((f) => path.join(site, 'series', f));
  const heaviest = series.reduce((a, b) => (fs.statSync(a).size >= fs.statSync(b).size ? a : b));
  let total = 0, count = 0;
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else { total += fs.statSync(path.join(dir, e.name)).size; ++count; }
    }
  })(site);
  const browser = new Browser(chromium);
  try {
    row('index.html', await measure(browser, path.join(site, 'index.html')));
    row('heaviest series page', await measure(browser, heaviest));
  } finally {
    await browser.close();
  }
  console.log(`site: ${series.length} series pages, ${count} files, ${(total / 1e6).toFixed(1)} MB in all` +
    ` (a page loads only itself, the style sheet and the script); median of ${runs} loads each`);
}

main().catch((e) => { console.error('dashboard_budget: ' + (e && e.stack || e)); process.exit(1); });

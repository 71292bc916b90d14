#!/usr/bin/env node
// The demo's dashboard in a real browser (headless Chromium over the DevTools protocol, one
// launch for every page): every series' chart is drawn, the marks of the kept investigation
// (its regression, nightly window, hour window and culprit) sit where its result JSON says,
// hovering a point shows its label, commit, image and runner, no page logs an error and no page
// asks for anything but file:// URLs; the index is light, and dark in dark mode. Screenshots of
// the index and a series page go to --screenshots (CI keeps them as artifacts). With --perfsweep BIN
// it also draws a small history of 8 series (2 benchmarks x 2 metrics x 2 testbeds) with BIN and
// checks that the index sorts by its columns and filters by benchmark, metric, testbed, verdict.
//
// Usage: node check_dashboard.js --demo DIR [--screenshots DIR] [--perfsweep BIN]
// Exit 0 pass, 1 fail, 77 skipped (no Chromium here; in CI, where CI=true, that is a failure).
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const os = require('os');
const { Browser, findChromium } = require('./cdp');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.demo) {
  console.error('usage: check_dashboard.js --demo DIR [--screenshots DIR] [--perfsweep BIN]');
  process.exit(2);
}
const site = path.resolve(args.demo, 'dashboard');
const shots = path.resolve(args.screenshots || path.join(args.demo, 'screenshots'));
const failures = [];
function check(ok, what) {
  if (!ok) failures.push(what);
  return ok;
}
function near(a, b, tol = 0.6) { return Math.abs(a - b) <= tol; }
function utc(text) { // a date (midnight UTC) or an ISO 8601 time, in seconds
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? text + 'T00:00:00Z' : text) / 1000;
}

// What the page shows of its chart: the x scale, the marks, the drawn dots, the axis ticks.
const CHART_FACTS = `(() => {
  const svg = document.querySelector('svg.chart');
  if (!svg) return null;
  const num = (e, a) => parseFloat(e.getAttribute(a));
  const all = (s) => Array.from(svg.querySelectorAll(s));
  const dots = [];
  for (const p of all('.zoom .pts, .zoom .outl')) {
    const re = /M(-?[\\d.]+) (-?[\\d.]+)h0/g; let m;
    while ((m = re.exec(p.getAttribute('d')))) dots.push([parseFloat(m[1]), parseFloat(m[2])]);
  }
  const ctm = svg.getScreenCTM();
  return {
    scale: { x0: num(svg, 'data-x0'), x1: num(svg, 'data-x1'), t0: num(svg, 'data-t0'), t1: num(svg, 'data-t1'), axis: svg.getAttribute('data-axis') },
    ctm: { a: ctm.a, d: ctm.d, e: ctm.e, f: ctm.f },
    nightly: all('.zoom .mk-nightly').map((r) => ({ from: r.dataset.from, to: r.dataset.to, x: num(r, 'x'), w: num(r, 'width') })),
    hour: all('.zoom .mk-hour').map((r) => ({ from: r.dataset.from, to: r.dataset.to, x: num(r, 'x'), w: num(r, 'width') })),
    culprit: all('.zoom .mk-culprit').map((l) => ({ sha: l.dataset.sha, time: l.dataset.time, x: num(l, 'x1') })),
    regressions: all('.zoom .cp.regression').map((l) => ({ before: l.dataset.before, after: l.dataset.after, x: num(l, 'x1') })),
    labels: all('.mk-labels text').map((t) => t.textContent),
    dots,
    okPoints: JSON.parse(document.querySelector('figure.series-chart script').textContent).v.filter((v) => v !== null).length,
    ticks: all('.axis.x text:not(.sub)').map((t) => ({ label: t.textContent, x: num(t, 'x') })),
    size: { w: svg.getBoundingClientRect().width, h: svg.getBoundingClientRect().height },
  };
})()`;

async function hoverText(page, facts, x, y) {
  const c = facts.ctm;
  await page.mouse(c.a * x + c.e, c.d * y + c.f);
  return page.eval(`(() => { const t = document.querySelector('.tip'); return t.hidden ? '' : t.innerText; })()`);
}

function checkPage(page, name) {
  const bad = page.requests.filter((u) => !u.startsWith('file://'));
  check(bad.length === 0, `${name}: requests other than file://: ${bad.join(', ')}`);
  check(page.problems.length === 0, `${name}: errors in the page: ${page.problems.join(' | ')}`);
  page.requests.length = 0;
  page.problems.length = 0;
}

async function checkIndex(page, seriesFiles) {
  await page.goto('file://' + path.join(site, 'index.html'));
  const rows = await page.eval(`Array.from(document.querySelectorAll('#series tbody tr')).map((r) => {
    const line = r.querySelector('svg.spark path.line'); const box = line ? line.getBBox() : { width: 0 };
    return { href: r.querySelector('td.name a').getAttribute('href'), d: line ? line.getAttribute('d').length : 0, w: box.width };
  })`);
  check(rows.length === seriesFiles.length, `index: ${rows.length} rows for ${seriesFiles.length} series pages`);
  for (const r of rows) check(r.d > 0 && r.w > 0, `index: the small chart of ${r.href} is not drawn`);
  check(new Set(rows.map((r) => r.href)).size === rows.length, 'index: two rows link the same page');
  // The filter hides every row for a name no series has, and shows them all again.
  const filtered = await page.eval(`(() => { const q = document.getElementById('q');
    q.value = 'no-such-series-zzz'; q.dispatchEvent(new Event('input'));
    const hidden = Array.from(document.querySelectorAll('#series tbody tr')).every((r) => r.hidden) && !document.getElementById('empty').hidden;
    q.value = ''; q.dispatchEvent(new Event('input'));
    const shown = Array.from(document.querySelectorAll('#series tbody tr')).every((r) => !r.hidden);
    return hidden && shown; })()`);
  check(filtered, 'index: the filter does not hide and show the rows');
  // The page follows the system's colour scheme: a light page, a dark one in dark mode.
  const luminance = `(() => { const m = getComputedStyle(document.documentElement).backgroundColor.match(/[\\d.]+/g).map(Number);
    return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255; })()`;
  const light = await page.eval(luminance);
  await page.screenshot(path.join(shots, 'index.png'));
  await page.scheme('dark');
  const dark = await page.eval(luminance);
  check(light > 0.8 && dark < 0.2, `index: background luminance ${light} light, ${dark} dark`);
  await page.scheme('light');
  checkPage(page, 'index');
}

// A history of 8 series (benchmark x metric x testbed), 12 nightlies each; model-b's MLUPS on
// the H100 drops 20 % at the 9th nightly (a regression), model-a's step time falls 20 %.
function controlsSite(bin) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perfsweep-dashboard-controls-'));
  const lines = [];
  for (const bench of ['model-a', 'model-b'])
    for (const [metric, direction] of [['MLUPS', 'higher'], ['step_time', 'lower']])
      for (const gpu of ['NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-80GB'])
        for (let i = 0; i < 12; ++i) {
          const label = `2024-05-${String(i + 1).padStart(2, '0')}`;
          let v = 100 + (bench === 'model-b' ? 50 : 0) + (gpu.includes('H100') ? 20 : 0);
          if (i >= 8 && bench === 'model-b' && metric === 'MLUPS' && gpu.includes('H100')) v *= 0.8;
          if (i >= 8 && bench === 'model-a' && metric === 'step_time' && gpu.includes('A100')) v *= 0.8;
          const wiggle = [0, 0.1, -0.1];
          lines.push(JSON.stringify({ benchmark: bench, metric, unit: metric === 'MLUPS' ? 'MLUPS' : 'ms', direction,
            label, timestamp: label + 'T07:30:00Z', stage: 'record', status: 'ok',
            values: wiggle.map((w) => +(v * (1 + (w + (i % 3) * 0.05) / 100)).toFixed(3)), runner: { gpu } }));
        }
  fs.writeFileSync(path.join(dir, 'history.jsonl'), lines.join('\n') + '\n');
  execFileSync(bin, ['dashboard', '--history', path.join(dir, 'history.jsonl'), '--output-dir', path.join(dir, 'site')],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

// The index's controls: each list filters to its value, a verdict chip to its verdict, and a
// click on a numeric column's header sorts the rows by it (again: the other way).
async function checkIndexControls(page, bin) {
  const dir = controlsSite(bin);
  try {
    await page.goto('file://' + path.join(dir, 'site', 'index.html'));
    const state = `(() => { const rows = Array.from(document.querySelectorAll('#series tbody tr'));
      const col = Array.from(document.querySelectorAll('#series thead th')).findIndex((t) => t.dataset.key === 'change');
      return { shown: rows.filter((r) => !r.hidden).map((r) => ({ benchmark: r.dataset.benchmark, metric: r.dataset.metric,
        testbed: r.dataset.testbed, verdict: r.dataset.verdict, change: parseFloat(r.cells[col].dataset.v) })),
        count: document.getElementById('count').textContent }; })()`;
    const all = await page.eval(state);
    check(all.shown.length === 8, `controls: ${all.shown.length} rows shown of 8 series`);
    for (const [key, value] of [['benchmark', 'model-b'], ['metric', 'step_time'], ['testbed', 'A100-SXM4-80GB']]) {
      const found = await page.eval(`(() => { const s = document.querySelector('select[data-filter="${key}"]');
        if (!s) return false; s.value = ${JSON.stringify(value)}; s.dispatchEvent(new Event('change')); return s.value === ${JSON.stringify(value)}; })()`);
      if (!check(found, `controls: no '${key}' list offering '${value}'`)) continue;
      const st = await page.eval(state);
      check(st.shown.length === 4 && st.shown.every((r) => r[key] === value) && st.count === '4 of 8 series',
        `controls: the ${key} list set to ${value} shows ${JSON.stringify(st.shown)} (${st.count})`);
      await page.eval(`(() => { const s = document.querySelector('select[data-filter="${key}"]'); s.value = ''; s.dispatchEvent(new Event('change')); })()`);
    }
    const chip = await page.eval(`(() => { const c = document.querySelector('button[data-verdict="regression"]'); if (c) c.click(); return !!c; })()`);
    if (check(chip, 'controls: no regression chip')) {
      const st = await page.eval(state);
      check(st.shown.length === 1 && st.shown[0].benchmark === 'model-b' && st.shown[0].metric === 'MLUPS' && st.shown[0].testbed.includes('H100'),
        `controls: the regression chip shows ${JSON.stringify(st.shown)}`);
      await page.eval(`document.querySelector('button[data-verdict="regression"]').click()`);
    }
    const sorted = async () => {
      await page.eval(`document.querySelector('#series th[data-key="change"]').click()`);
      return (await page.eval(state)).shown.map((r) => r.change);
    };
    const up = await sorted(), down = await sorted();
    const ordered = (xs, dir) => xs.every((x, i) => i === 0 || dir * (x - xs[i - 1]) >= 0);
    check(up.length === 8 && ordered(up, 1) && up[0] < up[7], `controls: sorting by change gives ${up}`);
    check(ordered(down, -1) && down[0] > down[7], `controls: sorting by change again gives ${down}`);
    checkPage(page, 'controls index');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function checkSeries(page, file, inv) {
  await page.goto('file://' + file);
  const facts = await page.eval(CHART_FACTS);
  const name = path.basename(file);
  if (!check(facts !== null, `${name}: no chart`)) return null;
  check(facts.dots.length === facts.okPoints && facts.okPoints > 0,
    `${name}: ${facts.dots.length} dots drawn for ${facts.okPoints} points with a value`);
  check(facts.size.w > 600 && facts.size.h > 250, `${name}: the chart is ${facts.size.w}x${facts.size.h} px`);
  checkPage(page, name);
  return facts;
}

async function checkInvestigation(page, file, inv) {
  const name = path.basename(file);
  const facts = await page.eval(CHART_FACTS);
  const s = facts.scale;
  const px = (t) => s.x0 + (t - s.t0) / (s.t1 - s.t0) * (s.x1 - s.x0);
  check(s.axis === 'time', `${name}: the x axis is not a time axis`);
  // The axis shows the scale the marks are placed with: each "Mon D" tick sits at that midnight.
  const year = new Date(utc(inv.regressions[0].last_good) * 1000).getUTCFullYear();
  let ticked = 0;
  for (const t of facts.ticks) {
    const m = /^([A-Z][a-z]{2}) (\d+)$/.exec(t.label);
    if (!m) continue;
    ++ticked;
    check(near(t.x, px(Date.parse(`${m[2]} ${m[1]} ${year} 00:00:00 UTC`) / 1000)), `${name}: tick '${t.label}' at x=${t.x}, not at its date`);
  }
  check(ticked >= 2, `${name}: fewer than two date ticks on the x axis`);

  const r = inv.regressions[0];
  const band = facts.nightly.find((b) => b.from === r.last_good && b.to === r.first_bad);
  if (check(band, `${name}: no nightly window ${r.last_good} → ${r.first_bad} (marks: ${JSON.stringify(facts.nightly)})`)) {
    check(near(band.x, px(utc(r.last_good))) && near(band.x + band.w, px(utc(r.first_bad))),
      `${name}: the nightly window spans x ${band.x}..${band.x + band.w}, not its nightlies' ${px(utc(r.last_good))}..${px(utc(r.first_bad))}`);
    for (const [label, x] of [[r.last_good, band.x], [r.first_bad, band.x + band.w]]) {
      const dot = facts.dots.find((d) => near(d[0], x));
      if (!check(dot, `${name}: no point drawn at the nightly window's edge ${label} (x=${x})`)) continue;
      const tip = await hoverText(page, facts, dot[0], dot[1]);
      check(tip.split('\n')[0] === label, `${name}: hovering the point at ${label} shows '${tip.split('\n')[0]}'`);
      // Its build's commits, image and runner, as the investigation recorded them.
      const daily = inv.daily[r.daily].points.find((p) => p.label === label);
      for (const [repo, sha] of Object.entries(daily ? daily.commits || {} : {}))
        check(tip.includes(`${repo}@${sha.slice(0, 12)}`), `${name}: the tooltip of ${label} lacks commit ${repo}@${sha.slice(0, 12)}: ${JSON.stringify(tip)}`);
      if (daily && daily.image) check(tip.includes(daily.image), `${name}: the tooltip of ${label} lacks image ${daily.image}`);
      check(/runner /.test(tip), `${name}: the tooltip of ${label} has no runner`);
    }
  }
  const cp = facts.regressions.find((c) => c.before === r.last_good && c.after === r.first_bad);
  if (check(cp, `${name}: no regression mark between ${r.last_good} and ${r.first_bad} (marks: ${JSON.stringify(facts.regressions)})`) && band)
    check(cp.x > band.x && cp.x < band.x + band.w, `${name}: the regression mark x=${cp.x} is outside its nightly window`);

  const hourly = r.hourly !== undefined && r.hourly !== null ? inv.hourly[r.hourly] : null;
  if (check(hourly && hourly.window, `${name}: the investigation JSON has no hour window`)) {
    const w = hourly.window;
    const hour = facts.hour.find((b) => b.from === w.last_good.time && b.to === w.first_bad.time);
    if (check(hour, `${name}: no hour window ${w.last_good.time} → ${w.first_bad.time} (marks: ${JSON.stringify(facts.hour)})`))
      check(near(hour.x, px(utc(w.last_good.time))) && near(hour.x + hour.w, px(utc(w.first_bad.time))),
        `${name}: the hour window spans x ${hour.x}..${hour.x + hour.w}, not ${px(utc(w.last_good.time))}..${px(utc(w.first_bad.time))}`);
    const c = hourly.culprit;
    if (check(c, `${name}: the investigation JSON has no culprit`)) {
      const mark = facts.culprit.find((m) => m.sha === c.sha);
      if (check(mark, `${name}: no culprit mark for ${c.repo}@${c.sha}`)) {
        check(mark.time === c.time && near(mark.x, px(utc(c.time))), `${name}: the culprit mark is at x=${mark.x}, not at ${c.time} (x=${px(utc(c.time))})`);
        if (hour) check(mark.x >= hour.x - 0.1 && mark.x <= hour.x + hour.w + 0.1, `${name}: the culprit lies outside its hour window`);
      }
      check(facts.labels.some((l) => l.startsWith('culprit ' + c.repo + '@' + c.sha.slice(0, 7))), `${name}: no 'culprit ${c.repo}@…' label above the chart (labels: ${facts.labels.join(', ')})`);
    }
  }
  // The screenshots show the tooltip of the first bad nightly.
  const firstBad = band && facts.dots.find((d) => near(d[0], band.x + band.w));
  if (firstBad) await hoverText(page, facts, firstBad[0], firstBad[1]);
  await page.screenshot(path.join(shots, 'series.png'), true);
  // Zoom to the nightly window: the hour window widens on screen.
  const widths = await page.eval(`(() => { const r = document.querySelector('.zoom .mk-hour'); const before = r.getBoundingClientRect().width;
    document.querySelector('[data-zoom-window="0"]').click(); return [before, r.getBoundingClientRect().width]; })()`);
  check(widths[1] > 3 * widths[0], `${name}: zooming to the nightly window did not widen the hour window (${widths})`);
  checkPage(page, name + ' (hover, zoom)');
}

async function main() {
  const chromium = findChromium();
  if (!chromium) {
    console.error('check_dashboard: no chromium found (set PERFSWEEP_CHROMIUM)' + (process.env.CI === 'true' ? '' : '; skipped'));
    process.exit(process.env.CI === 'true' ? 1 : 77);
  }
  const invDir = path.resolve(args.demo, 'investigations');
  const invFiles = fs.existsSync(invDir) ? fs.readdirSync(invDir).filter((f) => f.endsWith('.json')) : [];
  if (invFiles.length !== 1) {
    console.error(`check_dashboard: expected one kept investigation in ${invDir}, found ${invFiles.length}`);
    process.exit(1);
  }
  const inv = JSON.parse(fs.readFileSync(path.join(invDir, invFiles[0]), 'utf8'));
  const seriesFiles = fs.readdirSync(path.join(site, 'series')).filter((f) => f.endsWith('.html')).map((f) => path.join(site, 'series', f));
  const started = Date.now();
  const browser = new Browser(chromium);
  try {
    const page = await browser.newPage(1280, 900);
    await checkIndex(page, seriesFiles);
    if (args.perfsweep) await checkIndexControls(page, args.perfsweep);
    // The investigation's series: the page its report links to.
    const invPage = path.join(site, 'investigations', invFiles[0].replace(/\.json$/, '.html'));
    await page.goto('file://' + invPage);
    const href = await page.eval(`document.querySelector('nav a[href^="../series/"]').getAttribute('href')`);
    checkPage(page, path.basename(invPage));
    const target = path.resolve(path.dirname(invPage), href);
    for (const file of seriesFiles) {
      const facts = await checkSeries(page, file, inv);
      if (facts && file === target) await checkInvestigation(page, file, inv);
    }
    check(seriesFiles.includes(target), `the investigation page links ${href}, which is no series page`);
  } finally {
    await browser.close();
  }
  const took = ((Date.now() - started) / 1000).toFixed(1);
  if (failures.length) {
    console.error(`check_dashboard: ${failures.length} failure(s):\n- ` + failures.join('\n- '));
    process.exit(1);
  }
  console.log(`check_dashboard: ${seriesFiles.length} series page(s) and the index pass in ${took} s; screenshots in ${shots}`);
}

main().catch((e) => {
  console.error('check_dashboard: ' + (e && e.stack || e));
  process.exit(1);
});

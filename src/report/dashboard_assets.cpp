// The dashboard's style sheet and script (hand-written, no third-party code): colours from the
// Okabe–Ito palette (safe for colour-blind readers), a dark scheme by prefers-color-scheme, and
// the little script that adds sorting and filtering to the index and hover and zoom to a chart.

#include "report/dashboard_html.hpp"

namespace perfsweep::report {

namespace {

// Colours: one variable each, light and dark. Marks use Okabe–Ito hues; their text variants are
// darker (light) or lighter (dark) so that 12 px labels keep a contrast of at least 4.5:1.
constexpr const char* k_chart_css = R"CSS(
:root{--bg:#fff;--fg:#1b1f24;--muted:#59636e;--grid:#eceef1;--border:#d0d5db;--panel:#f5f7f9;
--point:#0072B2;--level:#1b1f24;--bad:#D55E00;--bad-text:#a94800;--good:#009E73;--good-text:#00755a;
--window:#E69F00;--window-text:#8a5c00;--hour:#CC79A7;--hour-text:#94456f;--culprit:#9e3d78;
--env:#56B4E9;--env-text:#1d6a99;--warn:#F0E442;--link:#0060a0}
@media (prefers-color-scheme:dark){:root{--bg:#121519;--fg:#e6e8eb;--muted:#9aa4ae;--grid:#23282e;
--border:#39414a;--panel:#1a1f25;--point:#56B4E9;--level:#f4f4f4;--bad:#F0803C;--bad-text:#ff9a5c;
--good:#2bc49a;--good-text:#4fd9b0;--window:#E69F00;--window-text:#f2b84b;--hour:#CC79A7;
--hour-text:#e6a3c8;--culprit:#eaa2cd;--env:#56B4E9;--env-text:#8fd0f5;--link:#7cc4f5}}
.chart{display:block;width:100%;height:auto;font:12px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;-webkit-user-select:none;user-select:none}
.chart .page,.chart .plotbg{fill:var(--bg)}
.chart .title{fill:var(--fg);font-size:15px;font-weight:600}
.chart .frame{fill:none;stroke:var(--border)}
.chart .grid line{stroke:var(--grid)}
.chart .axis text{fill:var(--muted)}
.chart .axis.y text{text-anchor:end;font-variant-numeric:tabular-nums}
.chart .axis.x text{text-anchor:middle}
.chart .axis.x .sub{fill:var(--fg);font-weight:600}
.chart .axis.x line{stroke:var(--muted)}
.chart .axis-title{fill:var(--fg);text-anchor:middle;font-weight:600}
.chart .legend text{fill:var(--fg)}
.chart .spread{stroke:var(--point);stroke-opacity:.45;stroke-width:2;vector-effect:non-scaling-stroke}
.chart .spread.small{stroke-opacity:.3;stroke-width:1.5}.chart .spread.tiny{stroke-opacity:.2;stroke-width:1}
.chart .pts{fill:none;stroke:var(--point);stroke-width:7;stroke-linecap:round;vector-effect:non-scaling-stroke}
.chart .pts.small{stroke-width:4.5}.chart .pts.tiny{stroke-width:3}
.chart .outl{fill:none;stroke:var(--point);stroke-width:8;stroke-linecap:round;vector-effect:non-scaling-stroke}
.chart .outl-in{fill:none;stroke:var(--bg);stroke-width:4;stroke-linecap:round;vector-effect:non-scaling-stroke}
.chart .broken{fill:none;stroke:var(--muted);stroke-width:7;stroke-linecap:square;vector-effect:non-scaling-stroke}
.chart .level{fill:none;stroke:var(--level);stroke-width:2.5;stroke-linejoin:round;vector-effect:non-scaling-stroke}
.chart .cp{stroke-width:2;stroke-dasharray:6 4;vector-effect:non-scaling-stroke}
.chart .cp.regression{stroke:var(--bad)}.chart .cp.improvement{stroke:var(--good)}
.chart .mk-nightly{fill:var(--window);fill-opacity:.2;stroke:var(--window);stroke-opacity:.8;vector-effect:non-scaling-stroke}
.chart .mk-hour{fill:var(--hour);fill-opacity:.5;stroke:var(--hour);stroke-width:2;vector-effect:non-scaling-stroke}
.chart .mk-culprit{stroke:var(--culprit);stroke-width:2;vector-effect:non-scaling-stroke}
.chart .mk-culprit-head{fill:var(--culprit)}
.chart .mk-env{stroke:var(--env);stroke-width:1.5;stroke-dasharray:2 3;vector-effect:non-scaling-stroke}
.chart .mk-env-head{fill:var(--env);stroke:var(--fg);stroke-width:.6}
.chart .mk-labels text{text-anchor:middle;font-weight:600}
.chart .lbl-nightly{fill:var(--window-text)}.chart .lbl-hour{fill:var(--hour-text)}
.chart .lbl-culprit{fill:var(--culprit)}.chart .lbl-env{fill:var(--env-text)}
.chart .lbl-regression{fill:var(--bad-text)}.chart .lbl-improvement{fill:var(--good-text)}
.chart a text{text-decoration:underline}
.chart .cross{stroke:var(--muted);stroke-dasharray:3 3}
.chart .hl{fill:none;stroke:var(--fg);stroke-opacity:.4;stroke-width:14;stroke-linecap:round}
.chart .brush{fill:var(--point);fill-opacity:.12;stroke:var(--point)}
.spark{display:block}
.spark .line{fill:none;stroke:var(--point);stroke-width:1.4;stroke-linejoin:round}
.spark .lvl{fill:none;stroke:var(--level);stroke-width:1.2;stroke-opacity:.75}
.spark .cp{stroke-width:1.5;stroke-dasharray:3 2}
.spark .cp.regression{stroke:var(--bad)}.spark .cp.improvement{stroke:var(--good)}
.spark .mk-nightly{fill:var(--window);fill-opacity:.35}
)CSS";

constexpr const char* k_page_css = R"CSS(
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);color-scheme:light dark}
body{margin:0 auto;max-width:1180px;padding:20px 24px 48px;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}
h1{font-size:22px;margin:0 0 2px}h2{font-size:17px;margin:28px 0 8px}
.sub{color:var(--muted);margin:0}
nav{margin-bottom:10px}
code,.mono{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
header{display:flex;flex-wrap:wrap;align-items:flex-start;gap:8px 16px;margin-bottom:14px}
header .titles{flex:1 1 420px}
.verdict{display:inline-block;padding:2px 9px;border-radius:11px;font-size:12px;font-weight:600;white-space:nowrap;border:1px solid transparent}
.verdict.regression{background:var(--bad);color:#fff}
.verdict.improvement{background:var(--good);color:#fff}
.verdict.no_regression{border-color:var(--border);color:var(--muted)}
.verdict.inconclusive{background:var(--warn);color:#1b1f24}
@media (prefers-color-scheme:dark){.verdict.regression,.verdict.improvement{color:#111}}
.lead{font-size:15px;margin:4px 0 12px}
.facts{display:flex;flex-wrap:wrap;gap:8px 28px;margin:0 0 14px;padding:0}
.facts div{display:flex;flex-direction:column}
.facts dt{color:var(--muted);font-size:12px}.facts dd{margin:0;font-weight:600;font-variant-numeric:tabular-nums}
.neg{color:var(--bad-text)}.pos{color:var(--good-text)}
figure{margin:0;position:relative;border:1px solid var(--border);border-radius:8px;padding:8px 8px 4px;background:var(--bg)}
.toolbar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 4px 4px;font-size:12.5px;color:var(--muted)}
button{font:inherit;color:var(--fg);background:var(--panel);border:1px solid var(--border);border-radius:6px;padding:3px 10px;cursor:pointer}
button:hover{border-color:var(--muted)}button[aria-pressed=true]{background:var(--fg);color:var(--bg)}
button:disabled{opacity:.5;cursor:default}
.tip{position:absolute;pointer-events:none;z-index:2;min-width:180px;max-width:360px;background:var(--panel);color:var(--fg);border:1px solid var(--border);border-radius:6px;padding:6px 9px;font-size:12.5px;line-height:1.4;box-shadow:0 2px 10px rgba(0,0,0,.18)}
.tip b{display:block;font-size:13px}.tip .k{color:var(--muted)}.tip .mono{word-break:break-all}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--grid);vertical-align:middle}
th{font-size:12px;color:var(--muted);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th[data-key]{cursor:pointer;-webkit-user-select:none;user-select:none}
th[data-key]:hover{color:var(--fg)}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
tbody tr:hover{background:var(--panel)}
td.spark-cell{width:176px;padding:2px 8px}
.name a{font-weight:600;text-decoration:none}.name a:hover{text-decoration:underline}
.name .m,h1 .m{font-weight:400}
.name .meta{display:none;color:var(--muted);font-size:12px}
.controls{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:center;margin:8px 0 10px;padding:10px;background:var(--panel);border:1px solid var(--border);border-radius:8px}
.controls label{display:flex;gap:6px;align-items:center;font-size:12.5px;color:var(--muted)}
input,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--border);border-radius:6px;padding:4px 8px}
input[type=search]{min-width:220px}
.chips{display:flex;flex-wrap:wrap;gap:6px}
.chips button{border-radius:14px}
.count{margin-left:auto;color:var(--muted);font-size:12.5px}
.empty{padding:16px;color:var(--muted)}
.cards{display:grid;gap:12px}
.card{border:1px solid var(--border);border-left:4px solid var(--window);border-radius:8px;padding:10px 14px;background:var(--panel)}
.card h3{font-size:15px;margin:0 0 6px}
.card dl{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:0}
.card dt{color:var(--muted)}.card dd{margin:0}
.key{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:baseline}
.key.nightly{background:var(--window)}.key.hour{background:var(--hour)}.key.culprit{background:var(--culprit)}
pre{white-space:pre-wrap;word-break:break-word;background:var(--panel);border:1px solid var(--border);border-radius:8px;padding:10px;font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media (max-width:760px){.hide-narrow{display:none}.name .meta{display:block}body{padding:12px}td.spark-cell{width:120px}}
)CSS";

// The script. Built with DOM calls only (textContent, never innerHTML): labels, commits and images
// are untrusted text.
constexpr const char* k_js = R"JS(
(function () {
  'use strict';
  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  var SVGNS = 'http://www.w3.org/2000/svg';

  // ---- index: filter and sort the series table ----
  function setupIndex(table) {
    var body = table.tBodies[0];
    var rows = all('tr', body);
    var q = document.getElementById('q');
    var selects = all('select[data-filter]');
    var chips = all('button[data-verdict]');
    var count = document.getElementById('count');
    var empty = document.getElementById('empty');
    function apply() {
      var text = (q && q.value || '').toLowerCase().trim().split(/\s+/).filter(Boolean);
      var want = {};
      selects.forEach(function (s) { if (s.value) want[s.getAttribute('data-filter')] = s.value; });
      var verdicts = chips.filter(function (c) { return c.getAttribute('aria-pressed') === 'true'; })
        .map(function (c) { return c.getAttribute('data-verdict'); });
      var shown = 0;
      rows.forEach(function (r) {
        var ok = verdicts.length === 0 || verdicts.indexOf(r.getAttribute('data-verdict')) >= 0;
        for (var k in want) if (ok && r.getAttribute('data-' + k) !== want[k]) ok = false;
        var hay = r.getAttribute('data-text');
        for (var i = 0; ok && i < text.length; ++i) if (hay.indexOf(text[i]) < 0) ok = false;
        r.hidden = !ok;
        if (ok) ++shown;
      });
      if (count) count.textContent = shown === rows.length ? rows.length + ' series' : shown + ' of ' + rows.length + ' series';
      if (empty) empty.hidden = shown !== 0;
    }
    if (q) q.addEventListener('input', apply);
    selects.forEach(function (s) { s.addEventListener('change', apply); });
    chips.forEach(function (c) {
      c.addEventListener('click', function () {
        c.setAttribute('aria-pressed', c.getAttribute('aria-pressed') === 'true' ? 'false' : 'true');
        apply();
      });
    });
    all('th[data-key]', table).forEach(function (th) {
      th.tabIndex = 0;
      function sort() {
        var col = th.cellIndex, numeric = th.hasAttribute('data-num');
        var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
        all('th[data-key]', table).forEach(function (o) { o.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
        var keyed = rows.map(function (r, i) {
          var v = r.cells[col].getAttribute('data-v');
          if (v === null) v = r.cells[col].textContent;
          if (numeric) { v = parseFloat(v); if (isNaN(v)) v = dir > 0 ? Infinity : -Infinity; }
          return [v, i, r];
        });
        keyed.sort(function (a, b) { return (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]) * (a[0] === b[0] ? 1 : dir); });
        keyed.forEach(function (k) { body.appendChild(k[2]); });
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    });
    apply();
  }

  // ---- axis ticks (the same rules as report/dashboard_chart.cpp) ----
  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  function pad(n) { return n < 10 ? '0' + n : '' + n; }
  function timeTicks(lo, hi, max) {
    var H = 3600, D = 86400, steps = [H, 2 * H, 3 * H, 6 * H, 12 * H, D, 2 * D, 7 * D, 14 * D];
    var at = [], step = 0, months = 0, i, t;
    for (i = 0; i < steps.length && !step; ++i) {
      var s = steps[i], off = s >= 7 * D ? 4 * D : 0;
      at = [];
      for (t = Math.ceil((lo - off) / s) * s + off; t <= hi + 1e-6 && at.length <= max; t += s) at.push(t);
      if (at.length <= max) step = s;
    }
    if (!step) {
      [1, 2, 3, 6, 12, 24, 60, 120, 240, 600].some(function (m) {
        at = [];
        var d = new Date(lo * 1000), k = d.getUTCFullYear() * 12 + d.getUTCMonth();
        for (; at.length <= max; ++k) {
          if (k % m) continue;
          var tt = Date.UTC(Math.floor(k / 12), k % 12, 1) / 1000;
          if (tt < lo) continue;
          if (tt > hi) break;
          at.push(tt);
        }
        months = m;
        return at.length <= max;
      });
    }
    var prev = null;
    return at.map(function (t) {
      var d = new Date(t * 1000), tick = { value: t, label: '', sub: '' };
      var day = d.getUTCFullYear() + '-' + d.getUTCMonth() + '-' + d.getUTCDate();
      var dayLabel = MONTHS[d.getUTCMonth()] + ' ' + d.getUTCDate();
      if (step && step < D) {
        tick.label = pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes());
        if (!prev || prev.day !== day) tick.sub = dayLabel;
      } else if (step) {
        tick.label = dayLabel;
        if (!prev || prev.year !== d.getUTCFullYear()) tick.sub = '' + d.getUTCFullYear();
      } else if (months < 12) {
        tick.label = MONTHS[d.getUTCMonth()];
        if (!prev || prev.year !== d.getUTCFullYear()) tick.sub = '' + d.getUTCFullYear();
      } else {
        tick.label = '' + d.getUTCFullYear();
      }
      prev = { day: day, year: d.getUTCFullYear() };
      return tick;
    });
  }

  function fmt(v) { // as value_text in report/dashboard_chart.cpp
    if (v === null || v === undefined) return '';
    var a = Math.abs(v), dec = a >= 1e5 ? 0 : a >= 1000 ? 1 : a >= 10 ? 2 : a >= 0.1 ? 3 : 5;
    var s = v.toFixed(dec);
    return a < 1e4 ? s : s.replace(/^(-?\d+)/, function (m) { return m.replace(/\B(?=(\d{3})+$)/g, ','); });
  }

  // ---- a series chart: hover, keyboard, drag to zoom ----
  function setupChart(fig) {
    var svg = fig.querySelector('svg.chart');
    var script = fig.querySelector('script[type="application/json"]');
    if (!svg || !script) return;
    var d = JSON.parse(script.textContent);
    var tip = fig.querySelector('.tip');
    var zoom = svg.querySelector('.zoom'), cross = svg.querySelector('.cross');
    var hl = svg.querySelector('.hl'), brush = svg.querySelector('.brush');
    var xaxis = svg.querySelector('.axis.x');
    var movable = all('.mk-labels [data-x], .heads [data-x]', svg);
    var n = d.px.length, tx = 0, sx = 1, current = -1, dragFrom = null;
    var reset = fig.querySelector('[data-zoom=reset]');

    function svgPoint(e) {
      var p = svg.createSVGPoint();
      p.x = e.clientX; p.y = e.clientY;
      return p.matrixTransform(svg.getScreenCTM().inverse());
    }
    function inPlot(p) { return p.x >= d.x0 - 4 && p.x <= d.x1 + 4 && p.y >= d.y0 - 4 && p.y <= d.y1 + 4; }
    function nearest(px) {
      var lo = 0, hi = n - 1;
      if (n === 0) return -1;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (d.px[mid] < px) lo = mid + 1; else hi = mid; }
      if (lo > 0 && Math.abs(d.px[lo - 1] - px) <= Math.abs(d.px[lo] - px)) --lo;
      return lo;
    }
    function py(v) { return d.y1 - (v - d.v0) / (d.v1 - d.v0) * (d.y1 - d.y0); }
    function row(box, key, value, mono) {
      if (!value) return;
      var line = el('div');
      line.appendChild(el('span', 'k', key + ' '));
      line.appendChild(el('span', mono ? 'mono' : '', value));
      box.appendChild(line);
    }
    function show(i) {
      if (i < 0 || i >= n) return hide();
      current = i;
      var x = tx + sx * d.px[i];
      if (x < d.x0 - 1 || x > d.x1 + 1) return hide();
      var y = d.v[i] === null ? d.y1 - 7 : py(d.v[i]);
      cross.setAttribute('x1', x); cross.setAttribute('x2', x);
      cross.setAttribute('visibility', 'visible');
      hl.setAttribute('transform', 'translate(' + x + ' ' + y + ')');
      hl.setAttribute('visibility', 'visible');
      tip.textContent = '';
      tip.appendChild(el('b', '', d.l[i]));
      if (d.v[i] === null) {
        row(tip, 'no value:', d.p[i] || 'failed');
      } else {
        var value = d.rates ? (100 * d.v[i]).toFixed(1) + ' % of runs failed' : fmt(d.v[i]) + (d.unit ? ' ' + d.unit : '');
        row(tip, d.n[i] > 1 && !d.rates ? 'median' : 'value', value);
        if (d.n[i] > 1 && !d.rates) row(tip, d.n[i] + ' repeats', fmt(d.lo[i]) + ' – ' + fmt(d.hi[i]));
        if (d.p[i]) row(tip, 'note', d.p[i]);
      }
      row(tip, 'commit', d.c[i], true);
      row(tip, 'image', d.i[i], true);
      row(tip, 'runner', d.rt[d.r[i]]);
      tip.hidden = false;
      var box = svg.getBoundingClientRect(), fbox = fig.getBoundingClientRect();
      var scale = box.width / svg.viewBox.baseVal.width;
      var left = box.left - fbox.left + x * scale + 14;
      if (left + tip.offsetWidth > fbox.width - 4) left = box.left - fbox.left + x * scale - tip.offsetWidth - 14;
      tip.style.left = Math.max(4, left) + 'px';
      tip.style.top = Math.max(4, box.top - fbox.top + Math.min(y, d.y1 - 60) * scale - 20) + 'px';
    }
    function hide() {
      current = -1;
      tip.hidden = true;
      cross.setAttribute('visibility', 'hidden');
      hl.setAttribute('visibility', 'hidden');
    }
    function renderAxis() {
      var a = (d.x0 - tx) / sx, b = (d.x1 - tx) / sx; // visible range in unzoomed pixels
      var max = Math.max(2, Math.floor((d.x1 - d.x0) / 96)), ticks = [];
      if (d.axis === 'time') {
        var t = function (px) { return d.t0 + (px - d.x0) / (d.x1 - d.x0) * (d.t1 - d.t0); };
        ticks = timeTicks(t(a), t(b), max).map(function (k) {
          return { x: tx + sx * (d.x0 + (k.value - d.t0) / (d.t1 - d.t0) * (d.x1 - d.x0)), label: k.label, sub: k.sub };
        });
      } else {
        var vis = [];
        for (var i = 0; i < n; ++i) if (d.px[i] >= a && d.px[i] <= b) vis.push(i);
        var every = Math.max(1, Math.ceil(vis.length / max));
        for (var j = 0; j < vis.length; j += every) {
          var lab = d.l[vis[j]];
          ticks.push({ x: tx + sx * d.px[vis[j]], label: lab.length > 13 ? lab.slice(0, 12) + '…' : lab, sub: '' });
        }
      }
      var y = parseFloat(xaxis.getAttribute('data-y'));
      while (xaxis.firstChild) xaxis.removeChild(xaxis.firstChild);
      ticks.forEach(function (k) {
        var line = document.createElementNS(SVGNS, 'line');
        line.setAttribute('x1', k.x); line.setAttribute('x2', k.x);
        line.setAttribute('y1', y); line.setAttribute('y2', y + 5);
        xaxis.appendChild(line);
        [[k.label, 18, ''], [k.sub, 32, 'sub']].forEach(function (s) {
          if (!s[0]) return;
          var text = document.createElementNS(SVGNS, 'text');
          text.setAttribute('x', k.x); text.setAttribute('y', y + s[1]);
          if (s[2]) text.setAttribute('class', s[2]);
          text.textContent = s[0];
          xaxis.appendChild(text);
        });
      });
    }
    function apply() {
      zoom.setAttribute('transform', sx === 1 && tx === 0 ? '' : 'translate(' + tx + ' 0) scale(' + sx + ' 1)');
      movable.forEach(function (m) {
        var x = tx + sx * parseFloat(m.getAttribute('data-x'));
        var inside = x >= d.x0 - 2 && x <= d.x1 + 2;
        if (m.tagName === 'text') m.setAttribute('x', x + (sx === 1 ? parseFloat(m.getAttribute('data-dx') || 0) : 0));
        else m.setAttribute('transform', 'translate(' + x + ' ' + d.y0 + ')');
        m.setAttribute('visibility', inside ? 'visible' : 'hidden');
      });
      renderAxis();
      if (reset) reset.disabled = sx === 1 && tx === 0;
      if (current >= 0) show(current);
    }
    function zoomTo(a, b) { // screen pixels of the current view
      var da = (Math.min(a, b) - tx) / sx, db = (Math.max(a, b) - tx) / sx;
      if (db - da < 0.5) return;
      sx = (d.x1 - d.x0) / (db - da);
      tx = d.x0 - sx * da;
      apply();
    }
    svg.addEventListener('pointermove', function (e) {
      var p = svgPoint(e);
      if (dragFrom !== null) {
        var x = Math.max(d.x0, Math.min(d.x1, p.x));
        brush.setAttribute('x', Math.min(dragFrom, x));
        brush.setAttribute('width', Math.abs(x - dragFrom));
        brush.setAttribute('visibility', 'visible');
        return;
      }
      if (!inPlot(p)) return hide();
      show(nearest((p.x - tx) / sx));
    });
    svg.addEventListener('pointerleave', function () { if (dragFrom === null) hide(); });
    svg.addEventListener('pointerdown', function (e) {
      var p = svgPoint(e);
      if (!inPlot(p) || e.button !== 0 || e.target.closest('a')) return;
      dragFrom = Math.max(d.x0, Math.min(d.x1, p.x));
      svg.setPointerCapture(e.pointerId);
    });
    svg.addEventListener('pointerup', function (e) {
      if (dragFrom === null) return;
      var x = Math.max(d.x0, Math.min(d.x1, svgPoint(e).x));
      brush.setAttribute('visibility', 'hidden');
      var from = dragFrom;
      dragFrom = null;
      if (Math.abs(x - from) > 6) zoomTo(from, x);
    });
    svg.addEventListener('dblclick', function () { sx = 1; tx = 0; apply(); });
    svg.tabIndex = 0;
    svg.addEventListener('keydown', function (e) {
      if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
        e.preventDefault();
        show(Math.max(0, Math.min(n - 1, (current < 0 ? n - 1 : current) + (e.key === 'ArrowRight' ? 1 : -1))));
      } else if (e.key === 'Escape') { hide(); }
    });
    if (reset) reset.addEventListener('click', function () { sx = 1; tx = 0; apply(); });
    var windows = all('.zoom .mk-nightly', svg);
    all('[data-zoom-window]', fig).forEach(function (b) {
      var rect = windows[parseInt(b.getAttribute('data-zoom-window'), 10)];
      if (!rect) { b.hidden = true; return; }
      b.addEventListener('click', function () {
        var a = parseFloat(rect.getAttribute('data-x-from')), z = parseFloat(rect.getAttribute('data-x-to'));
        var m = Math.max(0.6 * (z - a), 20);
        sx = 1; tx = 0;
        zoomTo(Math.max(d.x0, a - m), Math.min(d.x1, z + m));
      });
    });
    fig.perfsweep = { show: show, hide: hide, zoomTo: zoomTo, data: d };
    apply();
  }

  var table = document.getElementById('series');
  if (table) setupIndex(table);
  all('figure.series-chart').forEach(setupChart);
})();
)JS";

} // namespace

std::string_view chart_style_css() {
    return k_chart_css;
}

std::string dashboard_css() {
    return std::string(k_chart_css) + k_page_css;
}

std::string_view dashboard_js() {
    return k_js;
}

} // namespace perfsweep::report

// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (no package, no socket):
// Chromium reads commands from fd 3 and writes replies and events to fd 4, one JSON message per
// NUL-terminated chunk. Used by the dashboard's browser test and its render budget (Node 18+).
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

/// The Chromium to drive: $PERFSWEEP_CHROMIUM, else the first of the usual names on PATH.
function findChromium() {
  if (process.env.PERFSWEEP_CHROMIUM) return process.env.PERFSWEEP_CHROMIUM;
  const names = ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
  for (const dir of (process.env.PATH || '').split(':')) {
    for (const name of names) {
      const p = path.join(dir || '.', name);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      } catch (e) { /* next */ }
    }
  }
  return null;
}

class Browser {
  /// Start `chromium` headless with a fresh profile; `launch()` resolves once it answers.
  constructor(chromium) {
    this.profile = fs.mkdtempSync(path.join(os.tmpdir(), 'perfsweep-chromium-'));
    const args = [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-extensions', '--disable-default-apps', '--no-default-browser-check',
      '--hide-scrollbars', '--mute-audio', '--remote-debugging-pipe',
      '--user-data-dir=' + this.profile, 'about:blank',
    ];
    // Its own process group: close() ends the browser and every process it started at once.
    this.proc = spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => { this.stderr = (this.stderr + d).slice(-4000); });
    this.out = this.proc.stdio[3];
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    this.closed = false;
    let buffer = Buffer.alloc(0);
    this.proc.stdio[4].on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      let end;
      while ((end = buffer.indexOf(0)) >= 0) {
        const text = buffer.subarray(0, end).toString('utf8');
        buffer = buffer.subarray(end + 1);
        this.dispatch(JSON.parse(text));
      }
    });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => {
      this.closed = true;
      for (const [, p] of this.pending) p.reject(new Error('chromium exited (' + (code ?? signal) + '): ' + this.stderr));
      this.pending.clear();
      resolve();
    }));
  }

  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(p.method + ': ' + msg.error.message));
      else p.resolve(msg.result);
      return;
    }
    for (const l of this.listeners) l(msg);
  }

  /// Send `method` (to the page of `sessionId`, or the browser) and resolve with its result.
  send(method, params = {}, sessionId = undefined) {
    if (this.closed) return Promise.reject(new Error('chromium is not running: ' + this.stderr));
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.out.write(JSON.stringify(msg) + '\0');
    });
  }

  /// Call `fn(message)` for every event.
  on(fn) { this.listeners.push(fn); }

  /// A page with its own session (Page, Runtime, Network and Log enabled): the about:blank tab
  /// the browser started with (no second renderer to start), else a new tab.
  async newPage(width = 1280, height = 900) {
    const { targetInfos } = await this.send('Target.getTargets');
    const blank = this.pagesTaken ? null : targetInfos.find((t) => t.type === 'page' && t.url === 'about:blank');
    this.pagesTaken = true;
    const { targetId } = blank || await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, sessionId);
    await Promise.all(['Page.enable', 'Runtime.enable', 'Network.enable', 'Log.enable'].map((m) => page.send(m)));
    await page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    return page;
  }

  /// Stop the browser and every process it started (killed: its profile is thrown away, so
  /// nothing needs an orderly shutdown) and remove its profile.
  async close() {
    if (!this.closed) {
      try { process.kill(-this.proc.pid, 'SIGKILL'); } catch (e) { this.proc.kill('SIGKILL'); }
      await this.exited;
    }
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

class Page {
  constructor(browser, sessionId) {
    this.browser = browser;
    this.sessionId = sessionId;
    this.requests = [];  // every URL the page asked for
    this.problems = [];  // console errors, exceptions, failed loads, CSP reports
    this.waiters = [];
    browser.on((msg) => {
      if (msg.sessionId !== sessionId) return;
      const p = msg.params || {};
      if (msg.method === 'Network.requestWillBeSent') this.requests.push(p.request.url);
      if (msg.method === 'Network.loadingFailed') this.problems.push('load failed: ' + p.errorText + ' (' + p.type + ')');
      if (msg.method === 'Runtime.exceptionThrown') this.problems.push('exception: ' + (p.exceptionDetails.exception ? p.exceptionDetails.exception.description : p.exceptionDetails.text));
      if (msg.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'warning' || p.type === 'assert'))
        this.problems.push('console.' + p.type + ': ' + p.args.map((a) => a.value !== undefined ? a.value : a.description).join(' '));
      if (msg.method === 'Log.entryAdded' && (p.entry.level === 'error' || p.entry.level === 'warning'))
        this.problems.push('log ' + p.entry.level + ': ' + p.entry.text + (p.entry.url ? ' (' + p.entry.url + ')' : ''));
      for (const w of this.waiters.slice()) {
        if (w.method === msg.method) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(p);
        }
      }
    });
  }

  send(method, params = {}) { return this.browser.send(method, params, this.sessionId); }

  /// Resolve with the params of the next `method` event (rejects after `ms`).
  next(method, ms = 15000) {
    return new Promise((resolve, reject) => {
      const w = { method, resolve };
      this.waiters.push(w);
      setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) { this.waiters.splice(i, 1); reject(new Error('no ' + method + ' within ' + ms + ' ms')); }
      }, ms).unref();
    });
  }

  /// Navigate to `url` and wait for its load event.
  async goto(url) {
    const loaded = this.next('Page.loadEventFired');
    const r = await this.send('Page.navigate', { url });
    if (r.errorText) throw new Error('navigating to ' + url + ': ' + r.errorText);
    await loaded;
  }

  /// The value of `expression` evaluated in the page (promises awaited).
  async eval(expression) {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error('evaluating ' + expression.slice(0, 80) + ': ' + (r.exceptionDetails.exception ? r.exceptionDetails.exception.description : r.exceptionDetails.text));
    return r.result.value;
  }

  /// Move the mouse to (x, y) CSS pixels of the viewport.
  async mouse(x, y, type = 'mouseMoved') {
    await this.send('Input.dispatchMouseEvent', { type, x, y, button: type === 'mouseMoved' ? 'none' : 'left', clickCount: 1, pointerType: 'mouse' });
  }

  /// A PNG of the viewport (`whole`: of the whole page, about twice the cost) to `file`.
  async screenshot(file, whole = false) {
    const r = await this.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: whole });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
  }

  /// Light or dark colour scheme (prefers-color-scheme).
  async scheme(value) {
    await this.send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value }] });
  }
}

module.exports = { Browser, findChromium };

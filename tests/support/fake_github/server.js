// A loopback GitHub REST API for perfsweep's tests. Not a mock of the client: a real HTTP server on
// 127.0.0.1 that validates every request (method, path template, headers, query parameters, JSON
// body) against GitHub's OpenAPI description (trimmed: github-api-trimmed.json), keeps issues and
// comments in memory, records requests, and injects faults.
// Prints "PORT <n>" on stdout once listening (start it with port 0).
// Control (not GitHub API, not validated): POST /_control/faults [{...}], POST /_control/seed {...},
// POST /_control/permission {"repo","login","role"} (collaborator-permission answers; default read),
// GET /_control/requests, GET /_control/state.
// GET /_control/requests, GET /_control/state, POST /_control/faults_clear (drops pending faults).
// A fault matches by method and path regex; `skip: n` lets n matching requests pass first, `times`
// repeats it. Kinds: status (+ retry_after, reset_in, message), drop: before|after, delay_ms
// (before processing), reply_delay_ms (after processing), body (raw reply body: malformed JSON),
// content_type, truncate (promise more bytes than sent, then close), link_loop (rel="next" points
// at the same page), errors (the `errors` array of a status reply), message_repeat (the message
// N times: a huge message), headers (extra reply headers), endless (a 200 whose body never ends). In message, errors[].message, body and
// header values, `{authorization}` becomes the request's Authorization header (a proxy or GHES
// that echoes it).
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');

const spec = JSON.parse(fs.readFileSync(path.join(__dirname, 'github-api-trimmed.json'), 'utf8'));
const API_VERSION = '2022-11-28';
const TOKENS = {
  'tok-user': { login: 'perf-bot-user', user_endpoint: true },
  'ghs_actions_token': { login: 'github-actions[bot]', user_endpoint: false },
};
// A test-chosen token (the secrets suite uses a unique value it then greps for everywhere).
// Several, comma-separated, are all accepted.
for (const t of (process.env.FAKE_GITHUB_TOKEN || '').split(',')) if (t) TOKENS[t] = { login: 'perf-bot-user', user_endpoint: true };

const routes = [];
for (const [tpl, methods] of Object.entries(spec.paths)) {
  const names = [];
  const re = new RegExp('^' + tpl.replace(/\{([^}]+)\}/g, (_, n) => { names.push(n); return '([^/]+)'; }) + '$');
  for (const [method, op] of Object.entries(methods)) routes.push({ tpl, method: method.toUpperCase(), re, names, op });
}

// ---- a small JSON-schema (OpenAPI 3.0 subset) validator: type, nullable, enum, properties,
// required, additionalProperties, items, oneOf, anyOf, allOf, minimum, maximum.
function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
function validate(schema, v, where) {
  if (!schema || Object.keys(schema).length === 0) return [];
  if (v === null && schema.nullable) return [];
  const errs = [];
  if (schema.oneOf) {
    const ok = schema.oneOf.filter((s) => validate(s, v, where).length === 0).length;
    if (ok !== 1) errs.push(`${where}: matches ${ok} of oneOf`);
    return errs;
  }
  if (schema.anyOf) {
    if (!schema.anyOf.some((s) => validate(s, v, where).length === 0)) errs.push(`${where}: matches none of anyOf`);
    return errs;
  }
  if (schema.allOf) for (const s of schema.allOf) errs.push(...validate(s, v, where));
  if (schema.type) {
    const t = typeOf(v);
    const ok = t === schema.type || (schema.type === 'number' && t === 'integer');
    if (!ok) { errs.push(`${where}: expected ${schema.type}, got ${t}`); return errs; }
  }
  if (schema.enum && !schema.enum.includes(v)) errs.push(`${where}: ${JSON.stringify(v)} not in enum`);
  if (typeof v === 'number') {
    if (schema.minimum !== undefined && v < schema.minimum) errs.push(`${where}: below minimum`);
    if (schema.maximum !== undefined && v > schema.maximum) errs.push(`${where}: above maximum`);
  }
  if (typeOf(v) === 'object') {
    for (const r of schema.required || []) if (!(r in v)) errs.push(`${where}: missing required '${r}'`);
    for (const [k, val] of Object.entries(v)) {
      if (schema.properties && schema.properties[k]) errs.push(...validate(schema.properties[k], val, `${where}.${k}`));
      else if (schema.properties && !schema.additionalProperties) // stricter than GitHub: flags typos
        errs.push(`${where}: property '${k}' is not in the operation's schema`);
    }
  }
  if (Array.isArray(v) && schema.items) v.forEach((x, i) => errs.push(...validate(schema.items, x, `${where}[${i}]`)));
  return errs;
}
function coerce(schema, s) {
  if (!schema) return s;
  if (schema.type === 'integer' && /^-?\d+$/.test(s)) return parseInt(s, 10);
  if (schema.type === 'boolean' && (s === 'true' || s === 'false')) return s === 'true';
  return s;
}

// ---- state
const state = { issues: {}, nextComment: 1000, nextIssue: 1, permissions: {} };
let faults = [];
const requests = [];
function issue(repo, n) {
  const key = `${repo}#${n}`;
  if (!state.issues[key]) state.issues[key] = { repo, number: Number(n), title: `issue ${n}`, body: '', state: 'open', labels: [], comments: [] };
  return state.issues[key];
}
function commentJson(base, repo, c, n) {
  return { id: c.id, node_id: `IC_${c.id}`, body: c.body, user: { login: c.login, id: 1, type: c.login.endsWith('[bot]') ? 'Bot' : 'User' },
    html_url: `https://github.example/${repo}/issues/${n}#issuecomment-${c.id}`, url: `${base}/repos/${repo}/issues/comments/${c.id}`,
    created_at: '2023-08-26T00:00:00Z', updated_at: '2023-08-26T00:00:00Z' };
}
function issueJson(base, i) {
  return { id: i.number, number: i.number, title: i.title, body: i.body, state: i.state, state_reason: i.state_reason || null,
    labels: i.labels.map((l) => ({ name: l })), html_url: `https://github.example/${i.repo}/issues/${i.number}`,
    url: `${base}/repos/${i.repo}/issues/${i.number}`, user: { login: i.login || 'someone' } };
}

function send(res, status, obj, headers = {}) {
  let body = obj === undefined ? '' : JSON.stringify(obj);
  const f = res.fault; // reply-shaping faults: the request was processed, the reply is bad
  if (f) {
    if (f.body !== undefined) body = f.body;
    if (f.link_loop) headers = { ...headers, link: `<${res.selfUrl}>; rel="next"` };
    const h = { 'content-type': f.content_type || 'application/json; charset=utf-8', ...headers };
    if (f.truncate) {
      h['content-length'] = String(Buffer.byteLength(body) + 64);
      res.writeHead(status, h);
      return res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket.destroy());
    }
    if (f.reply_delay_ms) return setTimeout(() => { res.writeHead(status, h); res.end(body); }, f.reply_delay_ms);
    res.writeHead(status, h);
    return res.end(body);
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body);
}
function paginate(req, res, base, list, url) {
  const per = Math.min(Number(url.searchParams.get('per_page') || 30), 100);
  const page = Number(url.searchParams.get('page') || 1);
  const last = Math.max(1, Math.ceil(list.length / per));
  const links = [];
  const mk = (p) => { const u = new URL(url.toString()); u.searchParams.set('page', String(p)); u.searchParams.set('per_page', String(per)); return `<${base}${u.pathname.replace(/^\/api\/v3/, '')}${u.search}>`; };
  if (page < last) links.push(`${mk(page + 1)}; rel="next"`, `${mk(last)}; rel="last"`);
  if (page > 1) links.push(`${mk(1)}; rel="first"`, `${mk(page - 1)}; rel="prev"`);
  send(res, 200, list.slice((page - 1) * per, page * per), links.length ? { link: links.join(', ') } : {});
}

function takeFault(method, p) {
  const i = faults.findIndex((f) => (!f.method || f.method === method) && (!f.path || new RegExp(f.path).test(p)) &&
    !(f.skip > 0 && f.skip-- > 0));
  if (i < 0) return null;
  const f = faults[i];
  if (!f.times || --f.times <= 0) faults.splice(i, 1);
  return f;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
});

function handle(req, res, raw) {
  const url = new URL(req.url, 'http://x');
  const prefix = url.pathname.startsWith('/api/v3/') ? '/api/v3' : ''; // GHES-style base works too
  const p = url.pathname.slice(prefix.length);
  const base = `http://${req.headers.host}${prefix}`;
  if (p.startsWith('/_control/')) {
    if (p === '/_control/faults') { faults = faults.concat(JSON.parse(raw || '[]')); return send(res, 200, { ok: true }); }
    if (p === '/_control/faults_clear') { const pending = faults.length; faults = []; return send(res, 200, { pending }); }
    if (p === '/_control/requests') return send(res, 200, requests);
    if (p === '/_control/state') return send(res, 200, state);
    if (p === '/_control/seed') {
      const s = JSON.parse(raw);
      const i = issue(s.repo, s.number);
      Object.assign(i, s.issue || {});
      for (const c of s.comments || []) i.comments.push({ id: state.nextComment++, body: c.body, login: c.login });
      state.nextIssue = Math.max(state.nextIssue, Number(s.number) + 1);
      return send(res, 200, { ok: true });
    }
    if (p === '/_control/permission') { // {"repo":"o/r","login":"u","role":"write"} (role "404": unknown user)
      const s = JSON.parse(raw);
      state.permissions[`${s.repo}:${s.login}`] = s.role;
      return send(res, 200, { ok: true });
    }
    return send(res, 404, { message: 'unknown control' });
  }
  const rec = { method: req.method, path: p, query: url.search, headers: { ...req.headers }, body: raw, invalid: [] };
  if (rec.headers.authorization) rec.headers.authorization = rec.headers.authorization.replace(/\S+$/, '<redacted>');
  requests.push(rec);
  const fail = (status, message) => send(res, status, { message, documentation_url: 'https://docs.github.com/rest' });

  // ---- validation against the OpenAPI operation
  const route = routes.find((r) => r.method === req.method && r.re.test(p));
  if (!route) { rec.invalid.push(`no operation ${req.method} ${p}`); return fail(404, 'Not Found'); }
  const m = p.match(route.re);
  const params = {};
  route.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]); });
  const h = req.headers;
  if (h.accept !== 'application/vnd.github+json') rec.invalid.push(`Accept is '${h.accept}'`);
  if (h['x-github-api-version'] !== API_VERSION) rec.invalid.push(`X-GitHub-Api-Version is '${h['x-github-api-version']}'`);
  if (!h['user-agent']) rec.invalid.push('no User-Agent');
  for (const prm of route.op.parameters) {
    const v = prm.in === 'path' ? params[prm.name] : prm.in === 'query' ? url.searchParams.get(prm.name) : null;
    if (v === null || v === undefined) { if (prm.required) rec.invalid.push(`missing ${prm.in} parameter ${prm.name}`); continue; }
    rec.invalid.push(...validate(prm.schema, coerce(prm.schema, v), `${prm.in}.${prm.name}`));
  }
  for (const k of url.searchParams.keys())
    if (!route.op.parameters.some((x) => x.in === 'query' && x.name === k)) rec.invalid.push(`unknown query parameter ${k}`);
  let body;
  if (route.op.requestBody) {
    if (!/^application\/json/.test(h['content-type'] || '')) rec.invalid.push(`Content-Type is '${h['content-type']}'`);
    try { body = JSON.parse(raw); } catch (e) { rec.invalid.push('body is not JSON'); }
    if (body !== undefined) rec.invalid.push(...validate(route.op.requestBody.content['application/json'].schema, body, 'body'));
  } else if (raw.length) rec.invalid.push('a body on an operation without requestBody');
  if (rec.invalid.length) return fail(422, 'fake-github validation: ' + rec.invalid.join('; '));

  // ---- auth
  const auth = /^Bearer (\S+)$/.exec(h.authorization || '');
  const who = auth && TOKENS[auth[1]];
  if (!who) return fail(401, 'Bad credentials');

  // ---- faults
  const f0 = takeFault(req.method, p);
  const echo = (v) => (typeof v === 'string' ? v.split('{authorization}').join(h.authorization || '') : v);
  const f = f0 && { ...f0, message: echo(f0.message), body: echo(f0.body),
    errors: f0.errors && f0.errors.map((e) => (typeof e === 'string' ? echo(e) : { ...e, message: echo(e.message) })),
    headers: f0.headers && Object.fromEntries(Object.entries(f0.headers).map(([k, v]) => [k, echo(v)])) };
  if (f && f.message_repeat) f.message = (f.message || '').repeat(f.message_repeat);
  if (f && (f.body !== undefined || f.content_type || f.truncate || f.link_loop || f.reply_delay_ms)) {
    res.fault = f;
    res.selfUrl = `${base}${p}${url.search}`;
  }
  const act = () => {
    if (f && f.drop === 'before') return req.socket.destroy();
    if (f && f.endless) { // a reply that never ends: 64 KiB chunks until the client hangs up
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      const chunk = '[' + ' '.repeat(65535);
      const more = () => { while (!res.destroyed && res.write(chunk)); if (!res.destroyed) res.once('drain', more); };
      res.on('close', () => {});
      return more();
    }
    if (f && f.status) {
      const headers = { ...(f.headers || {}) };
      if (f.retry_after !== undefined) headers['retry-after'] = String(f.retry_after);
      if (f.reset_in !== undefined) { headers['x-ratelimit-remaining'] = '0'; headers['x-ratelimit-reset'] = String(Math.floor(Date.now() / 1000) + f.reset_in); }
      const reply = { message: f.message || `injected ${f.status}` };
      if (f.errors) reply.errors = f.errors;
      return send(res, f.status, reply, headers);
    }
    serve(req, res, route, params, body, url, base, who, f);
  };
  if (f && f.delay_ms) setTimeout(act, f.delay_ms); else act();
}

function serve(req, res, route, params, body, url, base, who, f) {
  const repo = params.owner && `${params.owner}/${params.repo}`;
  const done = (status, obj, headers) => {
    if (f && f.drop === 'after') return req.socket.destroy(); // the change happened, the reply is lost
    send(res, status, obj, headers);
  };
  const key = `${route.method} ${route.tpl}`;
  switch (key) {
    case 'GET /user':
      if (!who.user_endpoint) return send(res, 403, { message: 'Resource not accessible by integration' });
      return send(res, 200, { login: who.login, id: 7, type: 'User' });
    case 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': {
      const i = issue(repo, params.issue_number);
      return paginate(req, res, base, i.comments.map((c) => commentJson(base, repo, c, i.number)), url);
    }
    case 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': {
      const i = issue(repo, params.issue_number);
      const c = { id: state.nextComment++, body: body.body, login: who.login };
      i.comments.push(c);
      return done(201, commentJson(base, repo, c, i.number));
    }
    case 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': {
      for (const i of Object.values(state.issues)) {
        const c = i.comments.find((x) => String(x.id) === params.comment_id && i.repo === repo);
        if (c) { c.body = body.body; c.edits = (c.edits || 0) + 1; return done(200, commentJson(base, repo, c, i.number)); }
      }
      return send(res, 404, { message: 'Not Found' });
    }
    case 'GET /repos/{owner}/{repo}/issues': {
      const st = url.searchParams.get('state') || 'open';
      const labels = (url.searchParams.get('labels') || '').split(',').filter(Boolean);
      const list = Object.values(state.issues).filter((i) => i.repo === repo && (st === 'all' || i.state === st) &&
        labels.every((l) => i.labels.includes(l))).sort((a, b) => b.number - a.number);
      return paginate(req, res, base, list.map((i) => issueJson(base, i)), url);
    }
    case 'POST /repos/{owner}/{repo}/issues': {
      const n = state.nextIssue++;
      const i = issue(repo, n);
      Object.assign(i, { title: String(body.title), body: body.body || '', labels: (body.labels || []).map((l) => typeof l === 'string' ? l : l.name), login: who.login });
      return done(201, issueJson(base, i));
    }
    case 'PATCH /repos/{owner}/{repo}/issues/{issue_number}': {
      const key = `${repo}#${params.issue_number}`;
      const i = state.issues[key];
      if (!i) return send(res, 404, { message: 'Not Found' });
      if (body.title !== undefined && body.title !== null) i.title = String(body.title);
      if (body.body !== undefined) i.body = body.body === null ? '' : body.body;
      if (body.state !== undefined) i.state = body.state;
      if (body.state_reason !== undefined) i.state_reason = body.state_reason;
      if (body.labels !== undefined) i.labels = body.labels.map((l) => typeof l === 'string' ? l : l.name);
      i.edits = (i.edits || 0) + 1;
      return done(200, issueJson(base, i));
    }
    case 'GET /repos/{owner}/{repo}/collaborators/{username}/permission': {
      const role = state.permissions[`${repo}:${params.username}`] || 'read'; // a public repo: anyone reads
      if (role === '404') return send(res, 404, { message: 'Not Found' });
      const legacy = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read', none: 'none' }[role];
      return send(res, 200, { permission: legacy, role_name: role, user: { login: params.username, id: 9, type: 'User' } });
    }
  }
  return send(res, 500, { message: 'fake-github: no handler for ' + key });
}

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});

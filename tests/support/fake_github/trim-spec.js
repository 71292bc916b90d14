// Trims GitHub's OpenAPI description (@octokit/openapi, generated/api.github.com.json, ~13 MB)
// to the operations perfsweep calls, with every $ref inside them resolved, so the fake server
// needs no 385 MB package at test time. Usage: node trim-spec.js [path/to/api.github.com.json]
'use strict';
const fs = require('fs');
const path = require('path');
const src = process.argv[2] ||
  require.resolve('@octokit/openapi/generated/api.github.com.json', { paths: [__dirname] });
const spec = JSON.parse(fs.readFileSync(src, 'utf8'));
const OPS = [
  ['/user', 'get'],
  ['/repos/{owner}/{repo}/issues', 'get'],
  ['/repos/{owner}/{repo}/issues', 'post'],
  ['/repos/{owner}/{repo}/issues/{issue_number}/comments', 'get'],
  ['/repos/{owner}/{repo}/issues/{issue_number}/comments', 'post'],
  ['/repos/{owner}/{repo}/issues/comments/{comment_id}', 'patch'],
  ['/repos/{owner}/{repo}/issues/{issue_number}', 'patch'],
  ['/repos/{owner}/{repo}/collaborators/{username}/permission', 'get'],
];
function resolve(node, depth = 0) {
  if (depth > 40) return {};
  if (Array.isArray(node)) return node.map((n) => resolve(n, depth + 1));
  if (node && typeof node === 'object') {
    if (typeof node.$ref === 'string') {
      const target = node.$ref.replace(/^#\//, '').split('/').reduce((o, k) => o[k], spec);
      return resolve(target, depth + 1);
    }
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'examples' || k === 'example' || k === 'description' || k === 'x-github') continue;
      out[k] = resolve(v, depth + 1);
    }
    return out;
  }
  return node;
}
const out = { openapi: spec.openapi, info: { title: spec.info.title, version: spec.info.version,
  note: 'trimmed by tests/support/fake_github/trim-spec.js from @octokit/openapi' }, paths: {} };
for (const [p, m] of OPS) {
  const op = spec.paths[p][m];
  out.paths[p] = out.paths[p] || {};
  out.paths[p][m] = { operationId: op.operationId, parameters: resolve(op.parameters || []),
    requestBody: op.requestBody ? resolve(op.requestBody) : undefined };
}
fs.writeFileSync(path.join(__dirname, 'github-api-trimmed.json'), JSON.stringify(out, null, 1) + '\n');
console.log('wrote github-api-trimmed.json with', OPS.length, 'operations');

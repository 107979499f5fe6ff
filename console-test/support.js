'use strict';
// What the browser tests share. request: HTTP from Node as the shop, the gateway or an operator's script would call Paysync: the answer's status, text and
// JSON (null when the text is not JSON), without following redirects. Shared by the browser tests.
const fs = require('fs');
const path = require('path');

async function request(method, url, { body, headers } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...(headers || {}) },
    body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
    redirect: 'manual',
  });
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    json = null;
  }
  return { status: response.status, json, text, headers: response.headers };
}

function check(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

// The dev webhook secret from the dev profile's properties, so it is written down in one place only.
function devSecret(repo) {
  const file = path.join(repo, 'src', 'main', 'resources', 'application-dev.properties');
  const line = fs.readFileSync(file, 'utf8').split('\n')
    .find((l) => /^\s*paysync\.gateway\.webhook-secret\s*=/.test(l));
  if (!line) {
    throw new Error('no paysync.gateway.webhook-secret in ' + file);
  }
  return line.split('=').slice(1).join('=').trim().split(/[\s,]+/)[0];
}

module.exports = { request, check, devSecret };

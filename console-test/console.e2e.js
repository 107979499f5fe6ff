#!/usr/bin/env node
// End-to-end test of the operator console in a real browser: Debian's headless Chromium driven by playwright-core.
//
//   node console-test/console.e2e.js http://127.0.0.1:18080 [--require-history]
//
// It starts nothing: the runtime must already run with the dev profile (dev operator token, dev webhook secret, the
// built-in third-party simulator). It makes its own orders, with numbers unique to this run, so it can run against a
// server that has other data. Dead letters come from the simulator's dev-only rules (ThirdPartySimulator): an order
// numbered SIM-REJECT-ONCE-... is refused once (422, dead-lettered at once) and accepted on replay; one numbered
// SIM-REJECT-... is always refused, so only an operator's resolve completes it.
//
// Exits 0 when every step passed, 1 with "FAIL <step>: <why>" otherwise (and a screenshot of the failure).
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');
const { request, check, devSecret: devSecretOf } = require('./support');

const args = process.argv.slice(2);
const base = (args.find((a) => !a.startsWith('--')) || '').replace(/\/+$/, '');
// Once GET /api/admin/orders/{n}/history exists everywhere, CI passes this so its absence is a failure.
const requireHistory = args.includes('--require-history');
if (!/^https?:\/\//.test(base)) {
  console.error('usage: node console.e2e.js <base URL of a running Paysync, e.g. http://127.0.0.1:18080> '
    + '[--require-history]');
  process.exit(2);
}

const REPO = path.resolve(__dirname, '..');
const SCREENSHOT = path.join(REPO, 'target', 'console.png');
const DEAD_LETTERS_SCREENSHOT = path.join(REPO, 'target', 'console-dead-letters.png');
const FAILURE_SCREENSHOT = path.join(REPO, 'target', 'console-failure.png');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ADMIN_TOKEN = process.env.PAYSYNC_ADMIN_TOKEN || 'dev-admin-token';
const SECRET = process.env.PAYSYNC_GATEWAY_WEBHOOK_SECRET || devSecret();
const TIMEOUT_MS = 60000;

const run = Date.now().toString(36).toUpperCase() + crypto.randomBytes(2).toString('hex').toUpperCase();
const ORDERS = {
  replay: 'SIM-REJECT-ONCE-' + run,
  resolve: 'SIM-REJECT-' + run,
  mismatch: 'E2E-MISMATCH-' + run,
  refunded: 'E2E-REFUND-' + run,
};
// A gateway id with a colon, as gateways make them: the console must put it in the path encoded.
const REFUND_ID = 're:e2e-' + run.toLowerCase();
// A refund the dev simulator always refuses (422): dead-lettered, so only an operator's resolve completes it.
const REFUSED_REFUND_ID = 'SIM-REJECT-re:e2e-' + run.toLowerCase();
// Printable ASCII without spaces, so the callback accepts it as a transaction id, and markup if rendered as HTML.
const HOSTILE_TRANSACTION = '<img/src=x/onerror=window.__pwned=1>';

let passed = 0;
let current = 'start';

function ok(what) {
  passed += 1;
  console.log('ok   ' + what);
}

async function step(name, fn) {
  current = name;
  await fn();
  ok(name);
}

function devSecret() {
  return devSecretOf(REPO);
}

// ----- HTTP from Node, as the shop and the gateway would call -----

function http(method, urlPath, options) {
  return request(method, base + urlPath, options);
}

const admin = { Authorization: 'Bearer ' + ADMIN_TOKEN };

async function createOrder(orderNumber, amount) {
  const r = await http('POST', '/api/orders', { body: { orderNumber, amount, currency: 'EUR' } });
  check(r.status === 201, `creating ${orderNumber}: expected 201, got ${r.status} ${r.text}`);
}

// A callback signed as the gateway does (Standard Webhooks: HMAC-SHA256 over "id.timestamp.body").
async function callback(orderNumber, transactionId, amount) {
  const body = JSON.stringify({ orderNumber, transactionId, amount, currency: 'EUR', status: 'succeeded' });
  const id = 'msg_e2e_' + crypto.randomBytes(8).toString('hex');
  const timestamp = Math.floor(Date.now() / 1000).toString();
  const key = Buffer.from(SECRET.replace(/^whsec_/, ''), 'base64');
  const signature = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return http('POST', '/api/payments/callback', {
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': 'v1,' + signature },
  });
}

async function order(orderNumber) {
  const r = await http('GET', '/api/orders/' + encodeURIComponent(orderNumber));
  check(r.status === 200, `reading ${orderNumber}: ${r.status} ${r.text}`);
  return r.json;
}

async function until(what, probe, timeoutMs = TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last && last.done) {
      return last;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; last seen: ${last && last.seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

// A refund of 4.00 EUR, signed as the gateway does.
async function refundCallback(orderNumber, refundId) {
  const body = JSON.stringify({ type: 'refund.succeeded', orderNumber, refundId, amount: '4.00', currency: 'EUR' });
  const id = 'msg_e2e_' + crypto.randomBytes(8).toString('hex');
  const timestamp = Math.floor(Date.now() / 1000).toString();
  const key = Buffer.from(SECRET.replace(/^whsec_/, ''), 'base64');
  const signature = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return http('POST', '/api/payments/callback', {
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': 'v1,' + signature },
  });
}

// ----- The browser -----

async function main() {
  await step('console page served as HTML, /console redirects to /console/', async () => {
    const page = await http('GET', '/console/');
    check(page.status === 200, `GET /console/: ${page.status}`);
    check((page.headers.get('content-type') || '').startsWith('text/html'),
      'GET /console/ content type: ' + page.headers.get('content-type'));
    const bare = await http('GET', '/console');
    check(bare.status === 302 && bare.headers.get('location') === 'console/',
      `GET /console: ${bare.status} Location ${bare.headers.get('location')}`);
  });

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  let page;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('console', (m) => {
      // Chromium logs every non-2xx fetch as "Failed to load resource"; the 401, 404 and 409 here are expected.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) {
        problems.push('console error: ' + m.text());
      }
    });
    await scenario(page);
    check(problems.length === 0, 'the page reported: ' + problems.join(' | '));
    ok('no script errors or CSP violations in the page');
  } catch (e) {
    if (page) {
      await page.screenshot({ path: FAILURE_SCREENSHOT, fullPage: true }).catch(() => {});
      console.error(`(screenshot of the failure: ${FAILURE_SCREENSHOT})`);
    }
    if (problems.length) {
      console.error('the page reported: ' + problems.join(' | '));
    }
    throw e;
  } finally {
    await browser.close();
  }
}

async function scenario(page) {
  const message = page.locator('#message');
  let historyServed = false;

  await step('open /console and refuse a wrong token with its JSON error', async () => {
    await page.goto(base + '/console');
    check(page.url() === base + '/console/', 'expected the redirect to /console/, at ' + page.url());
    check((await page.title()) === 'Paysync operator console', 'title: ' + (await page.title()));
    await page.fill('#token', 'not-the-token');
    await page.click('#sign-in-button');
    await message.filter({ hasText: 'unauthorized: A valid bearer token is required' }).waitFor();
    check(await page.locator('#panels').isHidden(), 'panels shown after a refused token');
    check(await page.evaluate(() => sessionStorage.length === 0), 'a refused token was kept in sessionStorage');
  });

  await step('sign in with the dev token and see the counts the API reports', async () => {
    await page.fill('#token', ADMIN_TOKEN);
    await page.click('#sign-in-button');
    await page.locator('dd[data-machine="payment"][data-status="Paid"]').waitFor();
    // Payment counts and anomalies change only when this script acts, so they must match exactly.
    const stats = (await http('GET', '/api/admin/stats', { headers: admin })).json;
    await page.click('#refresh');
    for (const [machine, map] of [['payment', stats.payment]]) {
      for (const [status, n] of Object.entries(map)) {
        await page.locator(`dd[data-machine="${machine}"][data-status="${status}"]`)
          .filter({ hasText: new RegExp('^' + n + '$') }).waitFor({ timeout: 10000 })
          .catch(() => { throw new Error(`${machine} ${status}: the API says ${n}, the page does not show it`); });
      }
    }
    for (const status of Object.keys(stats.sync)) {
      const text = await page.locator(`dd[data-machine="sync"][data-status="${status}"]`).textContent();
      check(/^\d+$/.test(text), `sync ${status} shows "${text}"`);
    }
    check((await page.locator('#anomaly-count').textContent()) === String(stats.anomalies),
      'anomaly count differs from the API');
    check(!page.url().includes(ADMIN_TOKEN), 'the token is in the URL: ' + page.url());
    check(!(await page.content()).includes(ADMIN_TOKEN), 'the token is in the page');
    const storage = await page.evaluate(() => ({
      session: Object.values(sessionStorage), local: localStorage.length, cookie: document.cookie,
    }));
    check(storage.session.includes(ADMIN_TOKEN) && storage.local === 0 && storage.cookie === '',
      'the token must be in sessionStorage only: ' + JSON.stringify({ ...storage, session: storage.session.length }));
  });

  await step('two orders refused by the third party are dead-lettered (simulator rules, dev only)', async () => {
    for (const [key, orderNumber] of Object.entries({ replay: ORDERS.replay, resolve: ORDERS.resolve })) {
      await createOrder(orderNumber, '12.50');
      const paid = await callback(orderNumber, 'gw_e2e_' + key + '_' + run, '12.50');
      check(paid.status === 200 && paid.json && paid.json.outcome === 'paid',
        `paying ${orderNumber}: ${paid.status} ${paid.text}`);
    }
    for (const orderNumber of [ORDERS.replay, ORDERS.resolve]) {
      await until(orderNumber + ' dead-lettered', async () => {
        const o = await order(orderNumber);
        return { done: o.syncStatus === 'Failed', seen: o.syncStatus + ' ' + o.lastSyncError };
      });
    }
  });

  await step('a mismatched callback is an anomaly, and its hostile text is shown as text', async () => {
    await createOrder(ORDERS.mismatch, '5.00');
    const r = await callback(ORDERS.mismatch, HOSTILE_TRANSACTION, '6.00');
    check(r.status === 422 && r.json && r.json.error === 'amount-mismatch', `mismatch: ${r.status} ${r.text}`);
  });

  await step('dead letters, anomalies and the oldest unsynced age are shown', async () => {
    await page.click('#refresh');
    for (const orderNumber of [ORDERS.replay, ORDERS.resolve]) {
      const row = page.locator(`#dead-letter-rows tr[data-order="${orderNumber}"]`);
      await row.waitFor();
      const text = await row.textContent();
      check(text.includes('HTTP 422'), `dead letter ${orderNumber} does not show its error: ${text}`);
    }
    await page.locator('#anomaly-rows tr', { hasText: ORDERS.mismatch }).waitFor();
    check((await page.locator('#anomaly-rows img').count()) === 0, 'the anomaly text became an <img> element');
    check((await page.locator('#anomaly-rows td', { hasText: HOSTILE_TRANSACTION }).count()) >= 1,
      'the anomaly\'s transaction id is not shown as text');
    check(await page.evaluate(() => window.__pwned === undefined), 'text from the API ran as script');
    const seconds = await page.locator('#oldest-unsynced').getAttribute('data-seconds');
    check(/^\d+$/.test(seconds || ''), 'oldest unsynced age is not shown as seconds: ' + seconds + ' / '
      + (await page.locator('#oldest-unsynced').textContent()));
  });

  await step('screenshot with the dead letters ' + path.relative(REPO, DEAD_LETTERS_SCREENSHOT), async () => {
    fs.mkdirSync(path.dirname(DEAD_LETTERS_SCREENSHOT), { recursive: true });
    await page.screenshot({ path: DEAD_LETTERS_SCREENSHOT, fullPage: true });
  });

  await step('Replay: the order leaves the dead letters and is Completed', async () => {
    const row = page.locator(`#dead-letter-rows tr[data-order="${ORDERS.replay}"]`);
    page.once('dialog', (dialog) => dialog.accept());
    await row.locator('button.replay').click();
    await message.filter({ hasText: `Order ${ORDERS.replay}: replay requested` }).waitFor();
    const done = await until(ORDERS.replay + ' Completed after replay', async () => {
      const o = await order(ORDERS.replay);
      return { done: o.syncStatus === 'Completed' && !!o.thirdPartyGuid, seen: o.syncStatus };
    });
    check(done, 'not completed');
    await page.click('#refresh');
    await row.waitFor({ state: 'detached' });
  });

  const guid = 'e2e-found-by-hand-' + run.toLowerCase();
  await step('Resolve: the order is Completed with the id the operator typed', async () => {
    const row = page.locator(`#dead-letter-rows tr[data-order="${ORDERS.resolve}"]`);
    await row.locator('button.resolve').click();
    await message.filter({ hasText: 'Enter the id of the record' }).waitFor();
    await row.locator('input.guid').fill(guid);
    await row.locator('button.resolve').click();
    await message.filter({ hasText: `Order ${ORDERS.resolve}: resolved, sync status Completed` }).waitFor();
    await row.waitFor({ state: 'detached' });
    const o = await order(ORDERS.resolve);
    check(o.syncStatus === 'Completed' && o.thirdPartyGuid === guid, 'after resolve: ' + JSON.stringify(o));
  });

  await step('an unknown order is answered with its JSON error', async () => {
    await page.fill('#order-number', 'E2E-NO-SUCH-' + run);
    await page.click('#lookup-button');
    await message.filter({ hasText: `unknown-order: No order E2E-NO-SUCH-${run}` }).waitFor();
    check(await page.locator('#order-result').isHidden(), 'an order is shown for an unknown number');
  });

  await step('look up an order and see its history', async () => {
    await page.fill('#order-number', ORDERS.replay);
    await page.click('#lookup-button');
    await page.locator('#order-fields dd[data-field="syncStatus"]', { hasText: 'Completed' }).waitFor();
    const field = async (name) => page.locator(`#order-fields dd[data-field="${name}"]`).textContent();
    check((await field('orderNumber')) === ORDERS.replay, 'looked-up order number: ' + (await field('orderNumber')));
    check((await field('paymentStatus')) === 'Paid', 'payment status: ' + (await field('paymentStatus')));
    const api = await http('GET', '/api/admin/orders/' + encodeURIComponent(ORDERS.replay) + '/history',
      { headers: admin });
    historyServed = api.status === 200;
    if (api.status === 200) {
      const transitions = api.json && Array.isArray(api.json.transitions) ? api.json.transitions : [];
      check(transitions.length > 0, 'the history API lists no transitions: ' + api.text);
      await page.locator('#transition-rows tr').nth(transitions.length - 1).waitFor();
      check((await page.locator('#transition-rows tr').count()) === transitions.length,
        `the page shows ${await page.locator('#transition-rows tr').count()} transitions, the API ${transitions.length}`);
      await page.locator('#transition-rows tr[data-machine="payment"][data-from="Pending"][data-to="Paid"]').waitFor();
      await page.locator('#transition-rows tr[data-machine="sync"][data-to="Completed"]').first().waitFor();
    } else {
      const code = api.json && api.json.error;
      check((api.status === 404 && code !== 'unknown-order') || api.status === 405,
        `the history API answered ${api.status} ${api.text}`);
      await page.locator('#history-message[data-state="unavailable"]').waitFor();
      const shown = await page.locator('#history-message').textContent();
      check(shown.includes('not available') && shown.includes(code || String(api.status)),
        'history message: ' + shown);
      if (requireHistory) {
        throw new Error(`GET /api/admin/orders/{n}/history answered ${api.status} ${api.text} `
          + '(--require-history)');
      }
      console.log(`note the history endpoint is not on this server (${api.status} ${code}): `
        + 'checked the console says so instead of its rows');
    }
  });

  await step('close a Pending order by hand, with the reason in its history', async () => {
    const number = 'E2E-CLOSE-' + run;
    await createOrder(number, '4.00');
    await page.fill('#order-number', number);
    await page.click('#lookup-button');
    await page.locator('#order-fields dd[data-field="paymentStatus"]', { hasText: 'Pending' }).waitFor();
    await page.locator('#close-form').waitFor();
    await page.selectOption('#close-status', 'Expired');
    await page.fill('#close-reason', 'e2e: the customer gave up');
    await page.click('#close-button');
    await page.locator('#order-fields dd[data-field="paymentStatus"]', { hasText: 'Expired' }).waitFor();
    check(await page.locator('#close-form').isHidden(), 'the close form is still offered for a final order');
    await page.locator('#transition-rows tr[data-machine="payment"][data-from="Pending"][data-to="Expired"]')
      .waitFor();
    const h = await http('GET', '/api/admin/orders/' + encodeURIComponent(number) + '/history', { headers: admin });
    const closed = (h.json.transitions || []).find((t) => t.to === 'Expired');
    check(closed && closed.actor === 'operator' && closed.detail.includes('e2e: the customer gave up'),
      'history: ' + h.text);
  });

  await step('cancel a Pending order for the shop; a payment after it is refused and shown as an anomaly', async () => {
    const number = 'E2E-CANCEL-' + run;
    await createOrder(number, '6.00');
    await page.fill('#order-number', number);
    await page.click('#lookup-button');
    await page.locator('#order-fields dd[data-field="paymentStatus"]', { hasText: 'Pending' }).waitFor();
    await page.locator('#cancel-form').waitFor();
    await page.fill('#cancel-reason', 'e2e: the customer called to cancel');
    page.once('dialog', (dialog) => dialog.accept());
    await page.click('#cancel-button');
    await page.locator('#order-fields dd[data-field="paymentStatus"]', { hasText: 'Cancelled' }).waitFor();
    await message.filter({ hasText: `Order ${number}: cancelled` }).waitFor();
    check(await page.locator('#cancel-form').isHidden(), 'the cancel form is still offered for a final order');
    check(await page.locator('#close-form').isHidden(), 'the close form is still offered for a final order');
    await page.locator('#transition-rows tr[data-machine="payment"][data-from="Pending"][data-to="Cancelled"]')
      .waitFor();
    const h = await http('GET', '/api/admin/orders/' + encodeURIComponent(number) + '/history', { headers: admin });
    const cancelled = (h.json.transitions || []).find((t) => t.to === 'Cancelled');
    check(cancelled && cancelled.actor === 'operator' && cancelled.detail.includes('e2e: the customer called'),
      'history: ' + h.text);
    const late = await callback(number, 'gw_e2e_cancel_' + run, '6.00');
    check(late.status === 409 && late.json && late.json.error === 'order-not-pending',
      `a success after the cancel: ${late.status} ${late.text}`);
    await page.click('#refresh');
    await page.locator('#anomaly-rows tr', { hasText: number }).filter({ hasText: 'success-after-cancel' }).waitFor();
    check((await order(number)).paymentStatus === 'Cancelled', 'the order left Cancelled');
  });

  await step('a refund of a synced order: the shop\'s view and the console show the adjustment with its sync', async () => {
    await createOrder(ORDERS.refunded, '10.00');
    const paid = await callback(ORDERS.refunded, 'gw_e2e_refund_' + run, '10.00');
    check(paid.status === 200 && paid.json && paid.json.outcome === 'paid', `paying: ${paid.status} ${paid.text}`);
    await until(ORDERS.refunded + ' Completed', async () => {
      const o = await order(ORDERS.refunded);
      return { done: o.syncStatus === 'Completed', seen: o.syncStatus };
    });
    const r = await refundCallback(ORDERS.refunded, REFUND_ID);
    check(r.status === 200 && r.json && r.json.outcome === 'recorded', `refund: ${r.status} ${r.text}`);
    const shop = await order(ORDERS.refunded);
    const a = (shop.adjustments || []).find((x) => x.gatewayId === REFUND_ID);
    check(shop.adjustedAmount === '4.00' && a && a.status === 'Final' && typeof a.syncStatus === 'string'
      && 'syncAttempts' in a && 'lastSyncError' in a && 'thirdPartyGuid' in a && 'syncedAt' in a,
      'the shop\'s view: ' + JSON.stringify(shop));
    await page.fill('#order-number', ORDERS.refunded);
    await page.click('#lookup-button');
    const row = page.locator(`#order-adjustment-rows tr[data-gateway-id="${REFUND_ID}"]`);
    await row.waitFor();
    const text = await row.textContent();
    check(text.includes('refund') && text.includes('4.00 EUR') && text.includes('Final'), 'adjustment row: ' + text);
    // The sync sends it to the third party (the dev simulator) once the order's record exists: Completed with its id.
    const sent = await until(REFUND_ID + ' Completed', async () => {
      const x = ((await order(ORDERS.refunded)).adjustments || []).find((y) => y.gatewayId === REFUND_ID);
      return { done: x && x.syncStatus === 'Completed', seen: x && x.syncStatus, x };
    });
    check(typeof sent.x.thirdPartyGuid === 'string' && sent.x.thirdPartyGuid.length > 0, 'no record id: '
      + JSON.stringify(sent.x));
  });

  await step('an adjustment the third party refuses is listed to handle and resolved from the console', async () => {
    const r = await refundCallback(ORDERS.refunded, REFUSED_REFUND_ID);
    check(r.status === 200 && r.json && r.json.outcome === 'recorded', `refund: ${r.status} ${r.text}`);
    await until(REFUSED_REFUND_ID + ' Failed', async () => {
      const a = ((await order(ORDERS.refunded)).adjustments || []).find((x) => x.gatewayId === REFUSED_REFUND_ID);
      return { done: a && a.syncStatus === 'Failed', seen: a && a.syncStatus };
    });
    await page.click('#refresh');
    const row = page.locator(`#adjustment-to-handle-rows tr[data-gateway-id="${REFUSED_REFUND_ID}"]`);
    await row.waitFor();
    check((await row.textContent()).includes(ORDERS.refunded), 'the row does not name the order');
    await row.locator('button.resolve-adjustment').click();
    await message.filter({ hasText: 'Enter the third party\'s reference' }).waitFor();
    await row.locator('input.reference').fill('CN-E2E-' + run);
    await row.locator('input.reason').fill('e2e: credit note entered by hand');
    await row.locator('button.resolve-adjustment').click();
    await message.filter({ hasText: `Adjustment ${REFUSED_REFUND_ID}: resolved, sync status Completed` }).waitFor();
    await row.waitFor({ state: 'detached' });
    const a = ((await order(ORDERS.refunded)).adjustments || []).find((x) => x.gatewayId === REFUSED_REFUND_ID);
    check(a.syncStatus === 'Completed' && a.thirdPartyGuid === 'CN-E2E-' + run, 'after resolve: ' + JSON.stringify(a));
    const h = await http('GET', '/api/admin/orders/' + encodeURIComponent(ORDERS.refunded) + '/history',
      { headers: admin });
    const t = (h.json.transitions || []).find((x) => x.machine === 'adjustment-sync' && x.to === 'Completed'
      && x.actor === 'operator');
    check(t && t.detail.includes(REFUSED_REFUND_ID), 'history: ' + h.text);
  });

  await step('Retry and Resolve on adjustments send their requests (answers intercepted in the browser)', async () => {
    const at = new Date().toISOString();
    const base = { orderNumber: ORDERS.refunded, kind: 'refund', amount: '4.00', currency: 'EUR', reverses: null,
      status: 'Final', createdAt: at, finalAt: at, thirdPartyGuid: null, syncedAt: null, deadLetteredAt: null,
      resolvedBy: null };
    const failedId = 'dp_e2e:lost/' + run.toLowerCase();
    const manualId = 're_e2e_manual_' + run.toLowerCase();
    const list = [
      { ...base, gatewayId: failedId, kind: 'chargeback', syncStatus: 'Failed', syncAttempts: 10,
        lastSyncError: HOSTILE_TRANSACTION },
      { ...base, gatewayId: manualId, syncStatus: 'Manual', syncAttempts: 0, lastSyncError: null },
    ];
    const sent = [];
    const listPattern = /\/api\/admin\/adjustments(\?.*)?$/;
    const actionPattern = /\/api\/admin\/adjustments\/[^?]+\/(retry-sync|resolve)$/;
    await page.route(listPattern, (route) => route.fulfill({
      status: 200, contentType: 'application/json', body: JSON.stringify(list),
    }));
    await page.route(actionPattern, (route) => {
      const req = route.request();
      sent.push({ method: req.method(), url: req.url(), authorization: req.headers().authorization,
        body: req.postData() });
      const retry = req.url().endsWith('/retry-sync');
      route.fulfill({
        status: retry ? 202 : 200,
        contentType: 'application/json',
        body: JSON.stringify({ ...list[retry ? 0 : 1], syncStatus: retry ? 'Pending' : 'Completed',
          thirdPartyGuid: retry ? null : 'CN-X' }),
      });
    });
    try {
      await page.click('#refresh');
      const failedRow = page.locator('#adjustment-to-handle-rows tr[data-sync="Failed"]');
      const manualRow = page.locator('#adjustment-to-handle-rows tr[data-sync="Manual"]');
      await failedRow.waitFor();
      await manualRow.waitFor();
      check((await page.locator('#adjustments-to-handle-count').textContent()) === '2', 'count of adjustments');
      check((await failedRow.locator('button.retry-adjustment').count()) === 1, 'no Retry on the Failed one');
      check((await manualRow.locator('button.retry-adjustment').count()) === 0, 'Retry offered on a Manual one');
      check((await manualRow.locator('button.resolve-adjustment').count()) === 1, 'no Resolve on the Manual one');
      check((await page.locator('#adjustment-to-handle-rows img').count()) === 0, 'an error became an <img>');

      page.once('dialog', (dialog) => dialog.accept());
      await failedRow.locator('button.retry-adjustment').click();
      await message.filter({ hasText: `Adjustment ${failedId}: retry requested, sync status Pending` }).waitFor();
      const retry = sent.find((x) => x.url.endsWith('/retry-sync'));
      check(retry && retry.method === 'POST'
        && new URL(retry.url).pathname.endsWith('/api/admin/adjustments/' + encodeURIComponent(failedId)
          + '/retry-sync')
        && retry.authorization === 'Bearer ' + ADMIN_TOKEN, 'retry request: ' + JSON.stringify(retry));

      await manualRow.locator('input.reference').fill('CN-X');
      await manualRow.locator('input.reason').fill('e2e: entered by hand');
      await manualRow.locator('button.resolve-adjustment').click();
      await message.filter({ hasText: `Adjustment ${manualId}: resolved, sync status Completed` }).waitFor();
      const resolve = sent.find((x) => x.url.endsWith('/resolve'));
      check(resolve && resolve.method === 'POST' && resolve.authorization === 'Bearer ' + ADMIN_TOKEN
        && JSON.stringify(JSON.parse(resolve.body)) === JSON.stringify({ thirdPartyGuid: 'CN-X',
          reason: 'e2e: entered by hand' }), 'resolve request: ' + JSON.stringify(resolve));
    } finally {
      await page.unroute(listPattern);
      await page.unroute(actionPattern);
    }
    await page.click('#refresh');
  });

  await step('screenshot ' + path.relative(REPO, SCREENSHOT), async () => {
    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    check(fs.statSync(SCREENSHOT).size > 10000, 'the screenshot is suspiciously small');
  });

  if (!historyServed) {
    await step('history rows of the documented shape (answer intercepted in the browser, as this server has none)',
      async () => {
        const at = new Date().toISOString();
        const answer = {
          orderNumber: ORDERS.replay,
          transitions: [
            { at, machine: 'payment', from: 'Pending', to: 'Paid', cause: 'callback msg_1', detail: 'transaction gw_1' },
            { at, machine: 'sync', from: 'Pending', to: 'Processing', cause: 'claim', claimToken: 't-1', worker: 'w-1' },
            { at, machine: 'sync', from: 'Processing', to: 'Failed', cause: HOSTILE_TRANSACTION },
            { at, machine: 'sync', from: 'Failed', to: 'Pending', cause: 'operator retry-sync' },
            { at, machine: 'sync', from: 'Processing', to: 'Completed', cause: 'third party id g-1' },
          ],
          callbacks: [{ receivedAt: at, webhookId: 'msg_1', verified: true, outcome: 'paid' }],
        };
        let authorization = null;
        const pattern = '**/api/admin/orders/*/history';
        await page.route(pattern, (route) => {
          authorization = route.request().headers().authorization;
          route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) });
        });
        try {
          await page.click('#lookup-button');
          await page.locator('#transition-rows tr').nth(answer.transitions.length - 1).waitFor();
          check((await page.locator('#transition-rows tr').count()) === answer.transitions.length,
            'rows: ' + (await page.locator('#transition-rows tr').count()));
          await page.locator('#transition-rows tr[data-machine="payment"][data-from="Pending"][data-to="Paid"]')
            .waitFor();
          const claim = await page.locator('#transition-rows tr').nth(1).textContent();
          check(claim.includes('claimToken: t-1') && claim.includes('worker: w-1'), 'claim row: ' + claim);
          await page.locator('#transition-rows td', { hasText: HOSTILE_TRANSACTION }).waitFor();
          check((await page.locator('#transition-rows img').count()) === 0, 'a cause became an <img> element');
          check((await page.locator('#callback-list li', { hasText: 'webhookId: msg_1' }).count()) === 1,
            'the callback is not listed');
          check(authorization === 'Bearer ' + ADMIN_TOKEN, 'history was asked without the bearer token');
        } finally {
          await page.unroute(pattern);
        }
      });
  }
}

main().then(() => {
  console.log(`console e2e: ${passed} passed, 0 failed (orders ${Object.values(ORDERS).join(', ')})`);
}).catch((e) => {
  console.error(`FAIL ${current}: ${e && e.message ? e.message : e}`);
  console.error(`console e2e: ${passed} passed, 1 failed`);
  process.exit(1);
});

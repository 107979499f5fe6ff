#!/usr/bin/env node
// End-to-end test of the Hawtio console Paysync serves, in a real browser: Debian's headless Chromium driven by
// playwright-core, against a running jar whose hawtio/dist was built (npm --prefix hawtio ci && npm --prefix hawtio
// run build).
//
//   node console-test/hawtio.e2e.js <API base URL> <management base URL> [--prod]
//
// dev: everything is open. --prod: the operator's credentials (user "operator", PAYSYNC_ADMIN_TOKEN) are what the
// browser presents, as its Basic prompt would; the shop's token (PAYSYNC_API_TOKEN) creates orders; and the script
// first checks that without credentials the console shows nothing. Callbacks are signed with
// PAYSYNC_GATEWAY_WEBHOOK_SECRET (default: the dev secret).
//
// Exits 0 when every step passed, 1 with "FAIL <step>: <why>" otherwise (and a screenshot of the failure).
// Screenshots for the README: target/hawtio-routes.png, target/hawtio-diagram.png (and target/hawtio-yaml.png).
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');
const { request, check, devSecret: devSecretOf } = require('./support');

const args = process.argv.slice(2);
const [apiBase, managementBase] = args.filter((a) => !a.startsWith('--')).map((u) => (u || '').replace(/\/+$/, ''));
const prod = args.includes('--prod');
if (!/^https?:\/\//.test(apiBase || '') || !/^https?:\/\//.test(managementBase || '')) {
  console.error('usage: node hawtio.e2e.js <API base URL> <management base URL> [--prod]');
  process.exit(2);
}

const REPO = path.resolve(__dirname, '..');
const TARGET = path.join(REPO, 'target');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const OPERATOR = { username: process.env.PAYSYNC_ADMIN_USERNAME || 'operator',
  password: process.env.PAYSYNC_ADMIN_TOKEN || 'dev-admin-token' };
const SHOP_TOKEN = process.env.PAYSYNC_API_TOKEN || '';
const SECRET = process.env.PAYSYNC_GATEWAY_WEBHOOK_SECRET || devSecret();
const HAWTIO = managementBase + '/observe/hawtio';
const TIMEOUT_MS = 60000;
const run = Date.now().toString(36).toUpperCase() + crypto.randomBytes(2).toString('hex').toUpperCase();
const label = prod ? 'prod' : 'dev';

let passed = 0;
let current = 'start';

async function step(name, fn) {
  current = name;
  await fn();
  passed += 1;
  console.log(`ok   hawtio (${label}): ${name}`);
}

function devSecret() {
  return devSecretOf(REPO);
}

function basic() {
  return 'Basic ' + Buffer.from(OPERATOR.username + ':' + OPERATOR.password).toString('base64');
}

const http = request;

const shop = SHOP_TOKEN ? { Authorization: 'Bearer ' + SHOP_TOKEN } : {};

async function createOrder(orderNumber) {
  return http('POST', apiBase + '/api/orders', { headers: shop,
    body: { orderNumber, amount: '3.00', currency: 'EUR' } });
}

async function callback(orderNumber) {
  const body = JSON.stringify({ orderNumber, transactionId: 'gw_' + orderNumber, amount: '3.00', currency: 'EUR',
    status: 'succeeded' });
  const id = 'msg_hawtio_' + crypto.randomBytes(8).toString('hex');
  const timestamp = Math.floor(Date.now() / 1000).toString();
  const key = Buffer.from(SECRET.replace(/^whsec_/, ''), 'base64');
  const signature = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return http('POST', apiBase + '/api/payments/callback', { body,
    headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': 'v1,' + signature } });
}

// The route ids as Jolokia lists them: what the Camel tree must show.
async function routeIds() {
  const r = await http('POST', managementBase + '/observe/jolokia', {
    headers: prod ? { Authorization: basic() } : {},
    body: { type: 'search', mbean: 'org.apache.camel:type=routes,*' } });
  check(r.status === 200 && r.json && r.json.status === 200, `Jolokia search: ${r.status} ${r.text.slice(0, 200)}`);
  return r.json.value.map((name) => /name="?([^",]+)"?/.exec(name)[1]).sort();
}

// A step's description as the runtime reports it (Jolokia's dumpRouteAsXml, which Hawtio reads too).
async function stepDescription(routeId, stepId) {
  const r = await http('POST', managementBase + '/observe/jolokia', {
    headers: prod ? { Authorization: basic() } : {},
    body: { type: 'exec', mbean: (await routeMBean(routeId)), operation: 'dumpRouteAsXml()' } });
  check(r.status === 200 && r.json && r.json.status === 200, `dumpRouteAsXml: ${r.status} ${r.text.slice(0, 200)}`);
  const element = new RegExp('<[^>]* id="' + stepId + '"[^>]*>').exec(r.json.value);
  const description = element && / description="([^"]*)"/.exec(element[0]);
  check(description, `no description for ${stepId} in ${routeId}`);
  return description[1].replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

async function routeMBean(routeId) {
  const r = await http('POST', managementBase + '/observe/jolokia', {
    headers: prod ? { Authorization: basic() } : {},
    body: { type: 'search', mbean: `org.apache.camel:type=routes,name="${routeId}",*` } });
  check(r.status === 200 && r.json && r.json.value.length === 1, `Jolokia search for ${routeId}: ${r.text}`);
  return r.json.value[0];
}

// The open diagram once it has settled (Hawtio fits it after drawing it): drawn at a zoom where the steps' text is
// at least LEGIBLE_PX high on screen, its first step (the route's start) in the frame, the rest reached by scrolling.
const LEGIBLE_PX = 10;

async function readable(page, routeId, firstStep) {
  const viewport = page.locator('.react-flow__viewport');
  let transform = null;
  let previous;
  const deadline = Date.now() + 10000;
  do {
    previous = transform;
    await page.waitForTimeout(700);
    transform = await viewport.evaluate((v) => getComputedStyle(v).transform);
  } while (transform !== previous && Date.now() < deadline);
  const drawn = await page.locator('.react-flow').evaluate((flow) => {
    const scale = new DOMMatrixReadOnly(getComputedStyle(flow.querySelector('.react-flow__viewport')).transform).a;
    const texts = [];
    for (const node of flow.querySelectorAll('.react-flow__node')) {
      for (const el of [node, ...node.querySelectorAll('*')]) {
        const own = [...el.childNodes].filter((c) => c.nodeType === Node.TEXT_NODE).map((c) => c.textContent).join('');
        if (own.trim()) {
          texts.push({ text: own.trim(), px: parseFloat(getComputedStyle(el).fontSize) * scale });
        }
      }
    }
    return { scale, steps: flow.querySelectorAll('.react-flow__node').length, texts };
  });
  check(drawn.steps > 5, `${routeId}: only ${drawn.steps} steps drawn`);
  const smallest = drawn.texts.reduce((a, b) => (b.px < a.px ? b : a), { px: Infinity });
  check(smallest.px >= LEGIBLE_PX, `${routeId}: drawn at scale ${drawn.scale.toFixed(2)}, "${smallest.text}" is`
    + ` ${smallest.px.toFixed(1)} px high, under ${LEGIBLE_PX}`);
  // The first step, or (for several routes) the step at the top left.
  const frame = await page.locator('.react-flow').boundingBox();
  const start = firstStep
    ? await page.locator('.react-flow__node').filter({ hasText: `(ID: ${firstStep})` }).first().boundingBox()
    : (await page.locator('.react-flow__node').evaluateAll((nodes) => nodes.map((n) => {
      const r = n.getBoundingClientRect();
      return { x: r.left, y: r.top, width: r.width, height: r.height };
    }))).reduce((a, b) => (b.y < a.y - 1 || (Math.abs(b.y - a.y) <= 1 && b.x < a.x) ? b : a));
  check(start && start.y >= frame.y && start.y + start.height <= frame.y + frame.height
    && start.x >= frame.x && start.x + start.width <= frame.x + frame.width,
  `${routeId}: its first step ${firstStep || '(top left)'} is not in the frame`);
  return drawn;
}

// The cells of a route's row in the Routes table, by column name.
async function routeRow(page, routeId) {
  const headers = (await page.locator('table thead th').allInnerTexts()).map((h) => h.trim());
  const row = page.locator('table tbody tr').filter({
    has: page.locator('td', { hasText: new RegExp('^' + routeId + '$') }) });
  const cells = (await row.first().locator('td').allInnerTexts()).map((c) => c.trim());
  const byName = {};
  headers.forEach((h, i) => { byName[h] = cells[i]; });
  return byName;
}

async function main() {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  let page;
  try {
    if (prod) {
      await step('without credentials: 401 and nothing of the console or Jolokia', async () => {
        for (const url of [HAWTIO + '/', HAWTIO + '/camel/routes', HAWTIO + '/jolokia', HAWTIO + '/user',
          HAWTIO + '/auth/config/login', HAWTIO + '/proxy/enabled',
          managementBase + '/observe/jolokia']) {
          const r = await http('GET', url);
          check(r.status === 401, `GET ${url}: ${r.status}`);
          check(!/paysync|routes|hawtio/i.test(r.text.replace(/"error":"unauthorized"/, '')),
            `GET ${url} answered more than a refusal: ${r.text.slice(0, 200)}`);
        }
        const anonymous = await browser.newContext();
        const p = await anonymous.newPage();
        // Headless Chromium cannot show the Basic prompt: it ends the navigation as a refused login instead.
        const answer = await p.goto(HAWTIO + '/camel/routes').catch((e) => {
          check(/ERR_INVALID_AUTH_CREDENTIALS/.test(e.message), 'navigation failed otherwise: ' + e.message);
          return null;
        });
        check(answer === null || answer.status() === 401,
          'the browser without credentials got ' + (answer && answer.status()));
        await p.waitForTimeout(1500);
        const text = await p.locator('body').innerText();
        check(!text.includes('paid-order-sync') && !text.includes('Camel'), 'an anonymous page shows: ' + text);
        await anonymous.close();
      });
    }

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 },
      ...(prod ? { httpCredentials: OPERATOR } : {}) });
    page = await context.newPage();
    // Every answer of 400 or more to the console's own requests (files, Jolokia, Hawtio's questions to its server).
    const failed = [];
    page.on('response', (r) => {
      if (r.url().startsWith(HAWTIO) && r.status() >= 400) {
        failed.push(`${r.status()} ${r.request().method()} ${r.url().slice(HAWTIO.length)}`);
      }
    });

    await step("opens on this runtime's Camel context and its routes, with no connection to add", async () => {
      await page.goto(HAWTIO + '/');
      await page.waitForURL(/\/camel\/routes$/, { timeout: TIMEOUT_MS });
      await page.locator('table tbody tr').filter({
        has: page.locator('td', { hasText: /^payment-callback$/ }) }).first().waitFor({ timeout: TIMEOUT_MS });
      const selected = (await page.locator('#camel-content-header h1').innerText()).trim();
      check(selected === 'routes', 'the selected node is ' + selected + ', not the routes of the context');
      check(await page.getByText('Add connection').count() === 0, 'Connect\'s "Add connection" is shown');
      const nav = (await page.locator('#hawtio-main-page .pf-v6-c-nav__link').allInnerTexts()).map((t) => t.trim());
      check(nav.includes('Camel') && !nav.includes('Connect'), 'the navigation: ' + nav);
      await page.waitForTimeout(2000);
      check(failed.length === 0, 'a load of the console had requests fail: ' + failed.join(', '));
    });

    await step('offers no "Log out" (there is no session to end: the browser sends the credentials)', async () => {
      check(await page.locator('#hawtio-header-user-dropdown-toggle').count() === 0, 'a user menu is shown');
      check(await page.getByText('Log out').count() === 0, '"Log out" is shown');
    });

    await step('the Camel tree lists every Paysync route', async () => {
      const ids = await routeIds();
      check(ids.includes('paid-order-sync') && ids.includes('payment-callback'), 'routes from Jolokia: ' + ids);
      await page.goto(HAWTIO + '/camel/routes');
      for (const id of ids) {
        await page.getByText(id, { exact: true }).first().waitFor({ timeout: TIMEOUT_MS })
          .catch(() => { throw new Error('route ' + id + ' is not in the Camel tree'); });
      }
      check((await page.title()).includes('Paysync'), 'title: ' + (await page.title()));
    });

    await step('the routes table counts a callback', async () => {
      await page.locator('table tbody tr').first().waitFor({ timeout: TIMEOUT_MS });
      const before = Number((await routeRow(page, 'payment-callback')).Completed);
      check(Number.isFinite(before), 'no Completed count for payment-callback');
      const order = 'HAWTIO-' + run;
      const created = await createOrder(order);
      check(created.status === 201, `creating ${order}: ${created.status} ${created.text}`);
      const paid = await callback(order);
      check(paid.status === 200, `paying ${order}: ${paid.status} ${paid.text}`);
      const deadline = Date.now() + TIMEOUT_MS;
      let now = before;
      while (now < before + 1 && Date.now() < deadline) {
        await page.waitForTimeout(1000);
        now = Number((await routeRow(page, 'payment-callback')).Completed);
      }
      check(now >= before + 1, `payment-callback Completed stayed at ${now} (was ${before})`);
      await page.screenshot({ path: path.join(TARGET, `hawtio-routes${prod ? '-prod' : ''}.png`) });
    });

    await step("the sync flow's diagram renders its steps by id", async () => {
      // A window tall enough for the whole flow, for the screenshot docs/images/hawtio-sync-flow.png is.
      await page.setViewportSize({ width: 1400, height: 1400 });
      await page.getByText('paid-order-sync', { exact: true }).first().click();
      await page.waitForURL(/routeDiagram/, { timeout: TIMEOUT_MS });
      await page.locator('.react-flow__node').nth(5).waitFor({ timeout: TIMEOUT_MS });
      const text = await page.locator('.react-flow').innerText();
      check(text.includes('claim-due-orders'), 'the diagram does not name the claim step: ' + text.slice(0, 300));
      // Ids longer than Hawtio's own label (17 characters) whole, and none of its run-together labels.
      check(text.includes('(ID: record-claims-and-send-keys)'), 'a long step id is cut: ' + text.slice(0, 600));
      const cut = text.match(/.*(\bsfd\b|\.\.\.).*/);
      check(!cut, 'a label is cut or run together: ' + (cut && cut[0]));
      const description = await stepDescription('paid-order-sync', 'claim-due-orders');
      const step = page.locator('.paysync-step').filter({ hasText: '(ID: claim-due-orders)' }).first();
      check(await step.getAttribute('title') === description,
        `the claim step shows "${await step.getAttribute('title')}", not its description "${description}"`);
      await readable(page, 'paid-order-sync', 'every-sync-period');
      await page.screenshot({ path: path.join(TARGET, `hawtio-diagram${prod ? '-prod' : ''}.png`) });
      await page.setViewportSize({ width: 1400, height: 900 });
    });

    await step('the long routes open readable at their start, the rest a scroll away', async () => {
      // payment-reconciliation is there only with paysync.reconciliation.enabled (on in dev).
      const running = await routeIds();
      for (const [routeId, firstStep, lastStep] of [['third-party-call', 'order-to-send', 'third-party-breaker'],
        ['payment-reconciliation', 'every-reconciliation-period', null]].filter(([id]) => running.includes(id))) {
        await page.getByText(routeId, { exact: true }).first().click();
        await page.locator('.react-flow__node').filter({ hasText: `(ID: ${firstStep})` })
          .waitFor({ timeout: TIMEOUT_MS });
        await readable(page, routeId, firstStep);
        if (lastStep) {
          // Below the frame at first; the wheel scrolls the diagram down to it, at the same size.
          const last = page.locator('.react-flow__node').filter({ hasText: `(ID: ${lastStep})` }).first();
          const frame = await page.locator('.react-flow').boundingBox();
          check((await last.boundingBox()).y > frame.y + frame.height, `${routeId}: ${lastStep} is in view at first`);
          await page.mouse.move(frame.x + frame.width / 2, frame.y + frame.height / 2);
          for (let i = 0; i < 40 && (await last.boundingBox()).y + 100 > frame.y + frame.height; i++) {
            await page.mouse.wheel(0, 400);
            await page.waitForTimeout(50);
          }
          const box = await last.boundingBox();
          check(box.y >= frame.y && box.y + box.height <= frame.y + frame.height,
            `${routeId}: scrolling does not bring ${lastStep} into view`);
        }
      }
    });

    await step('the routes folder draws every route readable, from the top left', async () => {
      await page.getByText('routes', { exact: true }).first().click();
      await page.waitForURL(/routeDiagram/, { timeout: TIMEOUT_MS });
      await page.locator('.react-flow__node').nth(100).waitFor({ timeout: TIMEOUT_MS });
      const drawn = await readable(page, 'the routes folder', null);
      check(drawn.steps > 100, `the routes folder draws ${drawn.steps} steps`);
    });

    await step("a route's source as YAML, the language it is written in", async () => {
      // The route in the tree, then its Operations tab; both are clicked again should the diagram of the routes
      // folder, still rendering on a loaded machine, have taken the click or the view back.
      const operation = page.locator('li.pf-v6-c-data-list__item').filter({
        has: page.getByText('dumpRouteAsYaml()', { exact: true }) }).first();
      for (let attempt = 0; attempt < 5; attempt++) {
        await page.getByText('payment-callback', { exact: true }).first().click();
        await page.getByText('Operations', { exact: true }).first().click();
        if (await operation.waitFor({ timeout: 10000 }).then(() => true, () => false)) {
          break;
        }
      }
      await operation.waitFor({ timeout: TIMEOUT_MS });
      await operation.locator('button').first().click();
      await operation.getByRole('button', { name: 'Execute', exact: true }).click();
      const result = operation.getByText('- route:').first();
      await result.waitFor({ timeout: TIMEOUT_MS });
      const yaml = await operation.innerText();
      check(yaml.includes('- route:') && yaml.includes('id: payment-callback')
        && yaml.includes('uri: platform-http:/api/payments/callback'), 'the YAML shown: ' + yaml.slice(0, 300));
      await page.screenshot({ path: path.join(TARGET, `hawtio-yaml${prod ? '-prod' : ''}.png`) });
    });

    await step('an operator stops orders-api (the API answers 404) and starts it again', async () => {
      // The routes folder of the tree (it opens on its diagram), then its Routes tab, the table with a checkbox per
      // route; the tab is clicked again should the diagram's rendering have taken the view back.
      await page.getByText('routes', { exact: true }).first().click();
      await page.waitForURL(/routeDiagram/, { timeout: TIMEOUT_MS });
      for (let attempt = 0; attempt < 5; attempt++) {
        await page.getByText('Routes', { exact: true }).first().click();
        if (await page.locator('table tbody tr').first().waitFor({ timeout: 5000 }).then(() => true, () => false)) {
          break;
        }
      }
      await page.locator('table tbody tr').first().waitFor({ timeout: TIMEOUT_MS });
      const toggle = async (action) => {
        const row = page.locator('table tbody tr').filter({
          has: page.locator('td', { hasText: /^orders-api$/ }) }).first();
        await row.locator('input[type=checkbox]').check();
        await page.getByRole('button', { name: action, exact: true }).click();
        const want = action === 'Stop' ? 'Stopped' : 'Started';
        const deadline = Date.now() + TIMEOUT_MS;
        while ((await routeRow(page, 'orders-api')).State !== want && Date.now() < deadline) {
          await page.waitForTimeout(500);
        }
        check((await routeRow(page, 'orders-api')).State === want, 'orders-api is not ' + want);
        await row.locator('input[type=checkbox]').uncheck().catch(() => {});
      };
      await toggle('Stop');
      const refused = await createOrder('HAWTIO-STOPPED-' + run);
      check(refused.status === 404, 'POST /api/orders while orders-api is stopped: ' + refused.status);
      await toggle('Start');
      const created = await createOrder('HAWTIO-STARTED-' + run);
      check(created.status === 201, 'POST /api/orders after the start: ' + created.status + ' ' + created.text);
    });

    await step('the Runtime metrics show real values', async () => {
      await page.goto(HAWTIO + '/runtime/metrics');
      await page.getByText('Uptime', { exact: true }).waitFor({ timeout: TIMEOUT_MS });
      await page.waitForTimeout(2000);
      const text = await page.locator('body').innerText();
      const invalid = text.match(/.*(Invalid Date|NaN).*/);
      check(!invalid, 'the metrics show: ' + (invalid && invalid[0]));
      check(/Start time\s+\S+/.test(text) && /Uptime\s+\d/.test(text), 'no start time or uptime: ' + text);
      check(failed.length === 0, 'requests of the console failed: ' + failed.join(', '));
    });

    await step("the Paysync page links to Paysync's console", async () => {
      await page.goto(HAWTIO + '/paysync');
      const link = page.locator('#paysync-console-link');
      await link.waitFor({ timeout: TIMEOUT_MS });
      const href = await link.getAttribute('href');
      check(href === apiBase + '/console/', `the link goes to ${href}, not ${apiBase}/console/`);
      const signOut = await page.locator('#paysync-sign-out').innerText();
      check(/Close the browser to sign out/.test(signOut), 'the page does not say how to sign out: ' + signOut);
    });

    await step("Paysync's console links to Hawtio", async () => {
      await page.goto(apiBase + '/console/');
      const link = page.locator('#hawtio-link');
      await link.waitFor({ timeout: TIMEOUT_MS });
      const href = await link.getAttribute('href');
      check(href === HAWTIO + '/', `the console's link goes to ${href}, not ${HAWTIO}/`);
    });
  } catch (e) {
    console.log(`FAIL hawtio (${label}) ${current}: ${e.message.split('\n')[0]}`);
    if (page) {
      await page.screenshot({ path: path.join(TARGET, `hawtio-failure-${label}.png`) }).catch(() => {});
    }
    await browser.close();
    process.exit(1);
  }
  await browser.close();
  console.log(`hawtio (${label}): ${passed} passed, 0 failed`);
}

fs.mkdirSync(TARGET, { recursive: true });
main();

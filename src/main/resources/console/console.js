// Paysync operator console. Plain browser JavaScript, no build step.
//
// Rules this file keeps:
// - The operator token lives in sessionStorage only (this tab, gone when it closes). It is sent in the
//   Authorization header to /api/admin/* and nowhere else; never in a URL, never in localStorage or a cookie.
// - Everything the API returns is rendered with textContent or attributes, never innerHTML: data is never markup.
// - An API error is shown as its JSON error code and message (the Error schema of openapi/paysync.yaml).
'use strict';

(function () {
  const TOKEN_KEY = 'paysync.operatorToken';
  const AUTO_REFRESH_MS = 10000;
  // The page is served at <base>/console/, the API at <base>/api/: relative paths keep working behind a prefix.
  const API = '../api';

  const $ = (id) => document.getElementById(id);

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
    describe() {
      return this.code + ': ' + this.message;
    }
  }

  // ----- HTTP -----

  function token() {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  async function api(method, path, options) {
    const opts = options || {};
    const headers = { Accept: 'application/json' };
    if (opts.admin) {
      const t = token();
      if (!t) {
        throw new ApiError(401, 'unauthorized', 'Sign in with the operator token first');
      }
      headers.Authorization = 'Bearer ' + t;
    }
    let body;
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    let response;
    try {
      response = await fetch(API + path, { method, headers, body, cache: 'no-store', credentials: 'omit' });
    } catch (e) {
      throw new ApiError(0, 'no-answer', 'The server did not answer (' + e.message + ')');
    }
    const text = await response.text();
    let json = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch (e) {
        json = null;
      }
    }
    if (!response.ok) {
      const code = json && typeof json.error === 'string' ? json.error : 'http-' + response.status;
      const message = json && typeof json.message === 'string' ? json.message
        : 'HTTP ' + response.status + (response.statusText ? ' ' + response.statusText : '');
      const error = new ApiError(response.status, code, message);
      if (response.status === 401 && opts.admin) {
        signOut();
      }
      throw error;
    }
    return json;
  }

  const enc = encodeURIComponent;

  // ----- Rendering helpers (text only) -----

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    if (className) {
      node.className = className;
    }
    return node;
  }

  function show(value) {
    if (value === null || value === undefined || value === '') {
      return '\u2014';
    }
    if (typeof value === 'object') {
      return JSON.stringify(value);
    }
    return String(value);
  }

  function clear(node) {
    node.replaceChildren();
  }

  // source marks who said it, so a successful refresh clears only a refresh's own earlier failure.
  function say(text, kind, source) {
    const m = $('message');
    m.textContent = text;
    m.className = kind || '';
    m.dataset.source = source || '';
  }

  function sayError(e, source) {
    say(e instanceof ApiError ? e.describe() : 'error: ' + e.message, 'error', source);
  }

  function formatAge(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    if (s < 60) {
      return s + ' s';
    }
    if (s < 3600) {
      return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    }
    if (s < 86400) {
      return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    }
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }

  function counts(dl, map, machine) {
    clear(dl);
    if (!map || typeof map !== 'object') {
      dl.append(el('dt', 'no counts'), el('dd', '\u2014'));
      return;
    }
    for (const [status, n] of Object.entries(map)) {
      const dd = el('dd', show(n));
      dd.dataset.machine = machine;
      dd.dataset.status = status;
      dl.append(el('dt', status), dd);
    }
  }

  // ----- Panels -----

  function renderStats(stats) {
    counts($('payment-counts'), stats.payment, 'payment');
    counts($('sync-counts'), stats.sync, 'sync');
    $('anomaly-count').textContent = show(stats.anomalies);
    const oldest = $('oldest-unsynced');
    const age = stats.oldestUnsyncedPaidSeconds;
    if (typeof age === 'number') {
      oldest.textContent = formatAge(age);
      oldest.title = age + ' seconds since it was paid';
      oldest.dataset.seconds = String(age);
    } else if (age === null) {
      oldest.textContent = 'none (every Paid order is synced)';
      oldest.title = '';
      oldest.dataset.seconds = '';
    } else {
      oldest.textContent = 'not reported by this server';
      oldest.title = '';
      oldest.dataset.seconds = '';
    }
  }

  function renderDeadLetters(list) {
    const rows = $('dead-letter-rows');
    clear(rows);
    const orders = Array.isArray(list) ? list : [];
    $('dead-letter-count').textContent = String(orders.length);
    $('dead-letters-empty').hidden = orders.length > 0;
    for (const order of orders) {
      const tr = document.createElement('tr');
      tr.dataset.order = String(order.orderNumber);
      tr.append(
        el('td', show(order.orderNumber)),
        el('td', show(order.amount) + ' ' + show(order.currency)),
        el('td', show(order.paidAt)),
        el('td', show(order.syncAttempts)),
        el('td', show(order.lastSyncError)));
      const actions = el('td', null, 'actions');
      const replay = button('Replay', 'replay', b => replayOrder(order.orderNumber, b));
      const guid = textInput('guid', 'third-party id', 128, 'Third-party id for ' + order.orderNumber);
      const resolve = button('Resolve', 'resolve secondary', b => resolveOrder(order.orderNumber, guid.value, b));
      actions.append(replay, ' ', guid, ' ', resolve);
      tr.append(actions);
      rows.append(tr);
    }
  }

  // A button of a table row's actions; onClick gets the button, to disable it while its request runs.
  function button(text, className, onClick) {
    const b = el('button', text, className);
    b.type = 'button';
    b.addEventListener('click', () => onClick(b));
    return b;
  }

  // A one-line text field of a table row's actions, named for screen readers by what it is for.
  function textInput(className, placeholder, maxLength, label) {
    const input = document.createElement('input');
    input.type = 'text';
    input.className = className;
    input.placeholder = placeholder;
    input.maxLength = maxLength;
    input.spellcheck = false;
    input.setAttribute('aria-label', label);
    return input;
  }

  // Retry for a Failed adjustment; a reference, a reason and Resolve for a Failed or Manual one. After either, done()
  // reloads what shows it.
  function adjustmentActions(a, done) {
    const actions = el('td', null, 'actions');
    const sync = String(a.syncStatus);
    if (sync === 'Failed') {
      actions.append(button('Retry', 'retry-adjustment', b => retryAdjustment(a.gatewayId, b, done)), ' ');
    }
    if (sync === 'Failed' || sync === 'Manual') {
      const reference =
        textInput('reference', 'third-party reference', 128, 'Third-party reference for ' + a.gatewayId);
      const reason = textInput('reason', 'reason', 250, 'Reason for resolving ' + a.gatewayId);
      const resolve = button('Resolve', 'resolve-adjustment secondary',
        b => resolveAdjustment(a.gatewayId, reference.value, reason.value, b, done));
      actions.append(reference, ' ', reason, ' ', resolve);
    }
    if (!actions.childNodes.length) {
      actions.textContent = '\u2014';
    }
    return actions;
  }

  function renderAdjustmentsToHandle(list) {
    const rows = $('adjustment-to-handle-rows');
    clear(rows);
    const adjustments = Array.isArray(list) ? list : [];
    $('adjustments-to-handle-count').textContent = String(adjustments.length);
    $('adjustments-to-handle-empty').hidden = adjustments.length > 0;
    for (const a of adjustments) {
      const tr = document.createElement('tr');
      tr.dataset.gatewayId = String(a.gatewayId);
      tr.dataset.sync = String(a.syncStatus);
      tr.append(
        el('td', show(a.orderNumber)),
        el('td', show(a.gatewayId)),
        el('td', show(a.kind)),
        el('td', show(a.amount) + ' ' + show(a.currency)),
        el('td', show(a.finalAt)),
        el('td', show(a.syncStatus)),
        el('td', show(a.syncAttempts)),
        el('td', show(a.lastSyncError)),
        adjustmentActions(a, () => refresh(false)));
      rows.append(tr);
    }
  }

  async function retryAdjustment(gatewayId, button, done) {
    const ok = window.confirm('Retry adjustment ' + gatewayId + '?\n\nOnly if you know it has no record at the third '
      + 'party, or the third party honours Idempotency-Key: retry clears the in-doubt marker.');
    if (!ok) {
      return;
    }
    await adjustmentAction(button, done,
      () => api('POST', '/admin/adjustments/' + enc(gatewayId) + '/retry-sync', { admin: true }),
      a => 'Adjustment ' + gatewayId + ': retry requested, sync status ' + show(a && a.syncStatus));
  }

  async function resolveAdjustment(gatewayId, rawReference, rawReason, button, done) {
    const reference = (rawReference || '').trim();
    const reason = (rawReason || '').trim();
    if (!reference || !reason) {
      say('Enter the third party\'s reference for what you did and a reason, then Resolve', 'error');
      return;
    }
    await adjustmentAction(button, done,
      () => api('POST', '/admin/adjustments/' + enc(gatewayId) + '/resolve',
        { admin: true, body: { thirdPartyGuid: reference, reason } }),
      a => 'Adjustment ' + gatewayId + ': resolved, sync status ' + show(a && a.syncStatus)
        + ' with third-party reference ' + show(a && a.thirdPartyGuid));
  }

  // One action on an adjustment: its button disabled while the call runs, then done() reloads what shows it, and the
  // outcome is said last, so the reload does not wipe it.
  async function adjustmentAction(button, done, call, describe) {
    button.disabled = true;
    let message = null;
    let failed = null;
    try {
      message = describe(await call());
    } catch (e) {
      failed = e;
    } finally {
      button.disabled = false;
    }
    await done();
    if (failed) {
      sayError(failed);
    } else {
      say(message, 'ok');
    }
  }

  function renderAnomalies(list) {
    const rows = $('anomaly-rows');
    clear(rows);
    const anomalies = Array.isArray(list) ? list : [];
    $('anomalies-empty').hidden = anomalies.length > 0;
    for (const a of anomalies) {
      const tr = document.createElement('tr');
      tr.append(
        el('td', show(a.occurredAt)),
        el('td', show(a.kind)),
        el('td', show(a.orderNumber)),
        el('td', show(a.transactionId)),
        el('td', show(a.webhookId)),
        el('td', show(a.detail)));
      rows.append(tr);
    }
  }

  let refreshing = null;

  // Reloads counts, dead letters, adjustments to handle and anomalies. An automatic refresh leaves the dead-letter
  // and adjustment tables alone while the operator is typing in one, so a half-typed id is not wiped.
  function refresh(automatic) {
    if (refreshing) {
      return refreshing;
    }
    refreshing = (async () => {
      try {
        const [stats, deadLetters, adjustments, anomalies] = await Promise.all([
          api('GET', '/admin/stats', { admin: true }),
          api('GET', '/admin/dead-letters', { admin: true }),
          api('GET', '/admin/adjustments?limit=100', { admin: true }),
          api('GET', '/admin/anomalies?limit=50', { admin: true }),
        ]);
        renderStats(stats || {});
        const typing = $('dead-letter-rows').contains(document.activeElement);
        if (!(automatic && typing)) {
          renderDeadLetters(deadLetters);
        }
        if (!(automatic && $('adjustment-to-handle-rows').contains(document.activeElement))) {
          renderAdjustmentsToHandle(adjustments);
        }
        renderAnomalies(anomalies);
        $('updated-at').textContent = new Date().toLocaleTimeString();
        if ($('message').dataset.source === 'refresh') {
          say('');
        }
      } catch (e) {
        sayError(e, 'refresh');
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function replayOrder(orderNumber, button) {
    const ok = window.confirm('Replay order ' + orderNumber + '?\n\nOnly if you know it has no record at the third '
      + 'party, or the third party honours Idempotency-Key: replay clears the in-doubt marker.');
    if (!ok) {
      return;
    }
    button.disabled = true;
    try {
      const order = await api('POST', '/admin/orders/' + enc(orderNumber) + '/retry-sync', { admin: true });
      say('Order ' + orderNumber + ': replay requested, sync status ' + show(order && order.syncStatus), 'ok');
    } catch (e) {
      sayError(e);
    } finally {
      button.disabled = false;
    }
    await refresh(false);
  }

  async function resolveOrder(orderNumber, rawGuid, button) {
    const guid = (rawGuid || '').trim();
    if (!guid) {
      say('Enter the id of the record you found at the third party, then Resolve', 'error');
      return;
    }
    button.disabled = true;
    try {
      const order = await api('POST', '/admin/orders/' + enc(orderNumber) + '/resolve',
        { admin: true, body: { thirdPartyGuid: guid } });
      say('Order ' + orderNumber + ': resolved, sync status ' + show(order && order.syncStatus)
        + ' with third-party id ' + show(order && order.thirdPartyGuid), 'ok');
    } catch (e) {
      sayError(e);
    } finally {
      button.disabled = false;
    }
    await refresh(false);
  }

  // ----- Order lookup and history -----

  async function lookUp(orderNumber) {
    const result = $('order-result');
    if (!orderNumber) {
      say('Enter an order number', 'error');
      return;
    }
    let order;
    let adjustments;
    try {
      // The operator API's view of the order: the shop's orders API takes the shop's token, not an operator's.
      const h = await api('GET', '/admin/orders/' + enc(orderNumber) + '/history', { admin: true });
      order = h.order;
      adjustments = h.adjustments;
    } catch (e) {
      result.hidden = true;
      sayError(e);
      return;
    }
    say('');
    result.hidden = false;
    result.dataset.order = orderNumber;
    const fields = $('order-fields');
    clear(fields);
    for (const [key, value] of Object.entries(order || {})) {
      const dd = el('dd', show(value));
      dd.dataset.field = key;
      fields.append(el('dt', key), dd);
    }
    showClose(order);
    renderOrderAdjustments(orderNumber, adjustments);
    await history(orderNumber);
  }

  // The order's adjustments with their sync, and the actions on the ones left to an operator.
  function renderOrderAdjustments(orderNumber, list) {
    const rows = $('order-adjustment-rows');
    clear(rows);
    const adjustments = Array.isArray(list) ? list : [];
    $('order-adjustments-table').hidden = adjustments.length === 0;
    $('order-adjustments-empty').hidden = adjustments.length > 0;
    for (const a of adjustments) {
      const tr = document.createElement('tr');
      tr.dataset.gatewayId = String(a.gatewayId);
      tr.dataset.sync = String(a.syncStatus);
      tr.append(
        el('td', show(a.gatewayId)),
        el('td', show(a.kind) + (a.reverses ? ' of ' + a.reverses : '')),
        el('td', show(a.amount) + ' ' + show(a.currency)),
        el('td', show(a.status)),
        el('td', show(a.syncStatus)),
        el('td', show(a.syncAttempts)),
        el('td', show(a.lastSyncError)),
        el('td', show(a.thirdPartyGuid)),
        el('td', show(a.syncedAt)),
        adjustmentActions(a, async () => {
          await lookUp(orderNumber);
          await refresh(false);
        }));
      rows.append(tr);
    }
  }

  // An order left Pending can be settled by hand, as Failed or Expired, or cancelled for the shop, each with a reason
  // for its history.
  function showClose(order) {
    const pending = Boolean(order && order.paymentStatus === 'Pending');
    $('close-form').hidden = !pending;
    $('cancel-form').hidden = !pending;
    $('close-cancel-hint').hidden = !pending;
    $('close-reason').value = '';
    $('cancel-reason').value = '';
  }

  async function closeOrder() {
    const orderNumber = $('order-result').dataset.order;
    const reason = $('close-reason').value.trim();
    if (!reason) {
      say('Give the reason for closing ' + orderNumber, 'error');
      return;
    }
    try {
      await api('POST', '/admin/orders/' + enc(orderNumber) + '/close',
        { admin: true, body: { paymentStatus: $('close-status').value, reason } });
      say('Order ' + orderNumber + ' closed as ' + $('close-status').value, 'ok');
    } catch (e) {
      sayError(e);
    }
    await lookUp(orderNumber);
  }

  async function cancelOrder() {
    const orderNumber = $('order-result').dataset.order;
    const reason = $('cancel-reason').value.trim();
    if (!reason) {
      say('Give the reason for cancelling ' + orderNumber, 'error');
      return;
    }
    const ok = window.confirm('Cancel order ' + orderNumber + ' for the shop?\n\nA payment that arrives later will '
      + 'not make it Paid: it becomes an anomaly, and the money is to be refunded.');
    if (!ok) {
      return;
    }
    let done = null;
    let failed = null;
    try {
      const answer = await api('POST', '/admin/orders/' + enc(orderNumber) + '/cancel',
        { admin: true, body: { reason } });
      done = 'Order ' + orderNumber + ': '
        + (answer && answer.outcome === 'already-cancelled' ? 'was cancelled already' : 'cancelled');
    } catch (e) {
      failed = e;
    }
    // Shown after the order is read again, which clears the message line.
    await lookUp(orderNumber);
    if (failed) {
      sayError(failed);
    } else {
      say(done, 'ok');
    }
  }

  async function history(orderNumber) {
    const message = $('history-message');
    const table = $('transitions-table');
    const rows = $('transition-rows');
    const callbacks = $('callback-list');
    clear(rows);
    clear(callbacks);
    message.hidden = true;
    message.className = 'empty';
    delete message.dataset.state;
    table.hidden = true;
    $('callbacks').hidden = true;
    let h;
    try {
      h = await api('GET', '/admin/orders/' + enc(orderNumber) + '/history', { admin: true });
    } catch (e) {
      message.hidden = false;
      if (e instanceof ApiError && (e.status === 405 || (e.status === 404 && e.code !== 'unknown-order'))) {
        message.textContent = 'Order history is not available on this server (' + e.describe() + ').';
        message.className = 'history-unavailable';
        message.dataset.state = 'unavailable';
      } else {
        message.textContent = 'History could not be read: '
          + (e instanceof ApiError ? e.describe() : e.message);
        message.className = 'history-unavailable';
        message.dataset.state = 'error';
      }
      return;
    }
    const transitions = h && Array.isArray(h.transitions) ? h.transitions : null;
    if (!transitions) {
      message.hidden = false;
      message.textContent = 'The history answer has no list of transitions.';
      message.dataset.state = 'error';
    } else if (transitions.length === 0) {
      message.hidden = false;
      message.textContent = 'No transitions recorded.';
      message.dataset.state = 'empty';
    } else {
      table.hidden = false;
      for (const t of transitions) {
        rows.append(transitionRow(t || {}));
      }
    }
    const calls = h && Array.isArray(h.callbacks) ? h.callbacks : [];
    $('callbacks').hidden = false;
    $('callbacks-empty').hidden = calls.length > 0;
    for (const c of calls) {
      callbacks.append(el('li', describeObject(c)));
    }
  }

  const KNOWN_TRANSITION_KEYS = ['at', 'occurredAt', 'machine', 'from', 'fromStatus', 'to', 'toStatus', 'cause'];

  function transitionRow(t) {
    const tr = document.createElement('tr');
    const extra = {};
    for (const [k, v] of Object.entries(t)) {
      if (!KNOWN_TRANSITION_KEYS.includes(k) && v !== null && v !== undefined && v !== '') {
        extra[k] = v;
      }
    }
    tr.dataset.machine = show(t.machine);
    tr.dataset.from = show(t.from !== undefined ? t.from : t.fromStatus);
    tr.dataset.to = show(t.to !== undefined ? t.to : t.toStatus);
    tr.append(
      el('td', show(t.at !== undefined ? t.at : t.occurredAt)),
      el('td', show(t.machine)),
      el('td', tr.dataset.from),
      el('td', tr.dataset.to),
      el('td', show(t.cause)),
      el('td', Object.keys(extra).length ? describeObject(extra) : '\u2014'));
    return tr;
  }

  function describeObject(o) {
    if (!o || typeof o !== 'object') {
      return show(o);
    }
    return Object.entries(o).map(([k, v]) => k + ': ' + show(v)).join('; ');
  }

  // ----- Sign in / out -----

  let timer = null;

  function signedIn(yes) {
    $('sign-in').hidden = yes;
    $('signed-in').hidden = !yes;
    $('panels').hidden = !yes;
    if (timer) {
      clearInterval(timer);
      timer = null;
    }
    if (yes) {
      timer = setInterval(() => {
        if ($('auto-refresh').checked) {
          refresh(true);
        }
      }, AUTO_REFRESH_MS);
    }
  }

  function signOut() {
    sessionStorage.removeItem(TOKEN_KEY);
    signedIn(false);
  }

  function start() {
    $('sign-in').addEventListener('submit', async (event) => {
      event.preventDefault();
      const input = $('token');
      const t = input.value.trim();
      input.value = '';
      if (!t) {
        say('Enter the operator token (paysync.admin.token)', 'error');
        return;
      }
      sessionStorage.setItem(TOKEN_KEY, t);
      signedIn(true);
      say('');
      await refresh(false);
    });
    $('sign-out').addEventListener('click', () => {
      signOut();
      say('Token forgotten', 'ok');
    });
    $('refresh').addEventListener('click', () => refresh(false));
    $('close-form').addEventListener('submit', (event) => {
      event.preventDefault();
      closeOrder();
    });
    $('cancel-form').addEventListener('submit', (event) => {
      event.preventDefault();
      cancelOrder();
    });
    $('lookup-form').addEventListener('submit', (event) => {
      event.preventDefault();
      lookUp($('order-number').value.trim());
    });
    if (token()) {
      signedIn(true);
      refresh(false);
    } else {
      signedIn(false);
    }
    linkHawtio();
  }

  // Hawtio is served on the management port (the API port + 1 in prod); links.json says which, or gives its URL.
  async function linkHawtio() {
    try {
      // Through api() like every request (no token: not an admin call); ../api/../console/ is this page's folder.
      const links = await api('GET', '/../console/links.json');
      const url = links.hawtio
        || `${window.location.protocol}//${window.location.hostname}:${links.managementPort}/observe/hawtio/`;
      const link = $('hawtio-link');
      link.href = url;
      link.hidden = false;
    } catch (e) {
      // no link: the console works without it
    }
  }

  start();
}());

// Hosted checkout page: renders GET /checkout/{token}, follows the payment over the checkout socket
// (spec 4.3), and falls back to polling when the socket is down. No build step, no framework.
(function () {
  'use strict';
  var base = (document.querySelector('meta[name="api-base"]') || {}).content || '';
  var token = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() || '');
  var api = base + '/checkout/' + encodeURIComponent(token);
  var OPEN = ['pending', 'partially_paid', 'detecting'];
  var CLOSED_UNPAID = ['expired', 'underpaid', 'failed'];
  var STATUS_TEXT = {
    pending: 'Waiting for your payment.',
    partially_paid: 'Part of the amount arrived. Send the rest before the time runs out.',
    detecting: 'Payment received. Waiting for network confirmations.',
    confirmed: 'Payment confirmed. Thank you!',
    underpaid: 'The payment closed with only part of the amount.',
    expired: 'This payment expired.',
    failed: 'This payment failed.'
  };
  var POLL_CONNECTED_MS = 30000;
  var POLL_OFFLINE_MS = 4000;
  var payment = null;
  var timer = null;
  var pollTimer = null;
  var socketUp = false;

  function $(id) { return document.getElementById(id); }
  function show(id, on) { $(id).hidden = !on; }
  function text(id, value) { $(id).textContent = value; }

  function request(method, url, body) {
    return fetch(url, {
      method: method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
      referrerPolicy: 'no-referrer'
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (json) {
        if (!res.ok) throw new Error(json.error || ('request failed (' + res.status + ')'));
        return json;
      });
    });
  }

  function showError(message) {
    text('error', message || '');
    show('error', !!message);
  }

  function chainName(chain) {
    return { tron: 'Tron', ethereum: 'Ethereum', bsc: 'BNB Smart Chain', bitcoin: 'Bitcoin', litecoin: 'Litecoin', dogecoin: 'Dogecoin', xrp: 'XRP Ledger' }[chain] || chain;
  }

  function renderCoins(p) {
    var list = $('coins');
    list.textContent = '';
    (p.token_options || []).forEach(function (o) {
      var li = document.createElement('li');
      var b = document.createElement('button');
      b.type = 'button';
      b.dataset.token = o.token;
      var name = document.createElement('span');
      name.textContent = o.token.replace(/_.*/, '') + ' on ' + chainName(o.chain);
      var amount = document.createElement('span');
      amount.textContent = '$' + (o.amount_due_usd || p.amount_due_usd);
      b.append(name, amount);
      b.addEventListener('click', function () { choose(o.token, b); });
      li.append(b);
      list.append(li);
    });
  }

  function choose(coin, button) {
    showError('');
    button.disabled = true;
    request('POST', api + '/token', { token: coin }).then(render, function (err) {
      button.disabled = false;
      showError(err.message);
    });
  }

  function countdown() {
    clearInterval(timer);
    var el = $('countdown');
    var counting = payment && (payment.status === 'pending' || payment.status === 'partially_paid') && payment.expires_at;
    if (!counting) { el.textContent = ''; return; }
    var end = Date.parse(payment.expires_at);
    function tick() {
      var left = Math.max(0, Math.floor((end - Date.now()) / 1000));
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = 'Time left: ' + m + ':' + (s < 10 ? '0' : '') + s;
      if (left === 0) clearInterval(timer);
    }
    tick();
    timer = setInterval(tick, 1000);
  }

  function render(p) {
    if (!p || !p.id) return;
    payment = p;
    $('app').setAttribute('aria-busy', 'false');
    show('test-banner', p.livemode === false);
    text('amount-usd', '$' + p.amount_due_usd);
    text('description', p.description || '');
    show('description', !!p.description);
    var status = $('status');
    status.textContent = p.token || p.status !== 'pending' ? (STATUS_TEXT[p.status] || p.status) : 'Choose a coin to pay with.';
    status.dataset.tone = p.status === 'confirmed' ? 'ok' : CLOSED_UNPAID.indexOf(p.status) >= 0 ? 'bad' : '';

    var choosing = !p.token && p.status === 'pending';
    show('choose', choosing);
    if (choosing) renderCoins(p);

    // Instructions only while money is still expected (or being confirmed).
    var paying = !!p.token && p.deposit_address && OPEN.indexOf(p.status) >= 0;
    show('pay', !!paying);
    if (paying) {
      text('amount', p.crypto_amount);
      text('coin', p.token);
      text('network', chainName(p.chain));
      text('address', p.deposit_address);
      var hasTag = p.destination_tag !== undefined && p.destination_tag !== null;
      show('tag-field', hasTag);
      if (hasTag) text('tag', String(p.destination_tag));
      var qr = $('qr');
      var qrUrl = api + '/qr.svg';
      if (qr.getAttribute('src') !== qrUrl) qr.setAttribute('src', qrUrl);
      var partial = p.received_amount && p.received_amount !== '0' && p.status !== 'confirmed';
      show('received', !!partial);
      if (partial) text('received', 'Received so far: ' + p.received_amount + ' ' + p.token);
      var detecting = p.status === 'detecting' && p.confirmations_required !== undefined;
      show('confirmations', detecting);
      if (detecting) text('confirmations', 'Confirmations: ' + (p.confirmations || 0) + ' of ' + p.confirmations_required);
    }
    countdown();

    var success = p.status === 'confirmed' && p.success_url;
    var cancel = CLOSED_UNPAID.indexOf(p.status) >= 0 && p.cancel_url;
    show('done', !!(success || cancel));
    show('success', !!success);
    show('cancel', !!cancel);
    if (success) $('success').href = p.success_url;
    if (cancel) $('cancel').href = p.cancel_url;

    var running = p.simulation && p.simulation.state === 'running';
    show('simulate', p.livemode === false && (p.status === 'pending' || p.status === 'partially_paid') && !running);
  }

  function load() {
    return request('GET', api).then(function (p) { showError(''); render(p); }, function (err) { showError(err.message); });
  }

  function schedulePoll() {
    clearTimeout(pollTimer);
    if (payment && OPEN.indexOf(payment.status) < 0 && payment.token !== '') return;
    pollTimer = setTimeout(function () { load().then(schedulePoll); }, socketUp ? POLL_CONNECTED_MS : POLL_OFFLINE_MS);
  }

  function connect() {
    if (typeof window.io !== 'function') return;
    var socket = window.io(base || undefined, { path: '/socket.io' });
    socket.on('connect', function () {
      socket.emit('subscribe', token, function (ack) {
        if (ack && ack.ok) { socketUp = true; render(ack.payment); } else if (ack) { showError(ack.error); }
        schedulePoll();
      });
    });
    socket.on('payment:update', function (u) { render(u.payment); });
    socket.on('disconnect', function () { socketUp = false; schedulePoll(); });
  }

  document.addEventListener('click', function (e) {
    var id = e.target && e.target.dataset && e.target.dataset.copy;
    if (!id || !navigator.clipboard) return;
    navigator.clipboard.writeText($(id).textContent).then(function () {
      e.target.textContent = 'Copied';
      setTimeout(function () { e.target.textContent = 'Copy'; }, 1500);
    });
  });

  $('simulate-run').addEventListener('click', function () {
    showError('');
    request('POST', api + '/simulate', { outcome: $('outcome').value }).then(render, function (err) { showError(err.message); });
  });

  load().then(function () { connect(); schedulePoll(); });
})();

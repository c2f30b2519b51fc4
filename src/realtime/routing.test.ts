import { describe, expect, it } from 'vitest';
import { routeEvent, AUDIENCE } from './routing.ts';
import type { StoredEvent } from '../events/index.ts';

const ev = (type: string, data: unknown, over: Partial<StoredEvent> = {}): StoredEvent => ({
  seq: 1, id: 'evt_1', type, merchantId: 'mer_1', paymentId: 'pay_1', livemode: false, data, webhookUrl: null, createdAt: new Date(), ...over,
});
const payment = { id: 'pay_1', merchant_id: 'mer_1', status: 'detecting', metadata: { a: 1 }, received_amount: '0.5' };

describe('routeEvent', () => {
  it('sends a payment change to its checkout room, the merchant and the figures', () => {
    const routes = routeEvent(ev('payment.detecting', payment));
    expect(routes.map((r) => r.kind)).toEqual(['checkout', 'merchant', 'figures']);
    const checkout = routes[0] as { paymentId: string; event: string; payload: { payment: object; crypto_amount: string } };
    expect(checkout).toMatchObject({ paymentId: 'pay_1', event: 'payment:update' });
    expect(checkout.payload.payment).not.toHaveProperty('metadata');
    expect(checkout.payload.crypto_amount).toBe('0.5');
    const merchant = routes[1] as unknown as { roles: string[]; payload: { merchant_id: string; payment: object } };
    expect(merchant.roles).toEqual(['owner', 'developer', 'finance', 'viewer']);
    expect(merchant.payload.merchant_id).toBe('mer_1');
    expect(merchant.payload.payment).toHaveProperty('metadata');
    expect(routes[2]).toEqual({ kind: 'figures', merchantId: 'mer_1', livemode: false });
  });

  it('names the merchant and store in the checkout payload only, by the payment\'s merchant and store', () => {
    const asked: unknown[] = [];
    const namesOf = (m: string, s: string | null) => { asked.push([m, s]); return { merchant_name: 'Café Olé', store_name: 'Olé Books' }; };
    const routes = routeEvent(ev('payment.detecting', { ...payment, store_id: 'sto_1' }), namesOf);
    expect(asked).toEqual([['mer_1', 'sto_1']]);
    expect((routes[0] as { payload: { payment: object } }).payload.payment).toMatchObject({ merchant_name: 'Café Olé', store_name: 'Olé Books' });
    expect((routes[1] as { payload: { payment: object } }).payload.payment).not.toHaveProperty('merchant_name');
    routeEvent(ev('payment.detecting', payment), namesOf);
    expect(asked[1]).toEqual(['mer_1', null]);
  });

  it('completes the dashboard\'s payment with checkout_url from the token, as REST does; the payer never sees either', () => {
    const data = { ...payment, checkout_token: 'ct_1' };
    const [checkout, merchant] = routeEvent(ev('payment.detecting', data), undefined, 'https://pay.example') as { payload: { payment: object } }[];
    expect(merchant.payload.payment).toEqual({ ...data, checkout_url: 'https://pay.example/pay/ct_1' });
    expect(checkout.payload.payment).not.toHaveProperty('checkout_token');
    expect(checkout.payload.payment).not.toHaveProperty('checkout_url');
    // No page served (CHECKOUT_URL empty): REST has no checkout_url either.
    expect((routeEvent(ev('payment.detecting', data), undefined, null)[1] as { payload: { payment: object } }).payload.payment).toEqual(data);
    // An event stored before the token was kept: nothing to make the URL from.
    expect((routeEvent(ev('payment.detecting', payment), undefined, 'https://pay.example')[1] as { payload: { payment: object } }).payload.payment).toEqual(payment);
  });

  it('keeps payment.created off the checkout socket', () => {
    expect(routeEvent(ev('payment.created', payment)).map((r) => r.kind)).toEqual(['merchant', 'figures']);
  });

  it('sends settlement and payout changes once: their socket events, never their webhooks too', () => {
    // the webhooks are not socket events: `settlement:update` and `payout:update`, written next to them, are (once)
    expect(routeEvent(ev('settlement.completed', { id: 's' }))).toEqual([]);
    expect(routeEvent(ev('settlement.failed', { id: 's' }))).toEqual([]);
    for (const type of ['payout.approved', 'payout.rejected', 'payout.sent']) expect(routeEvent(ev(type, { id: 'p' }))).toEqual([]);
    expect(routeEvent(ev('settlement:update', { id: 's' }))).toMatchObject([{ event: 'settlement:update', payload: { id: 's' } }]);
    expect(routeEvent(ev('payout:update', { id: 'p' }))).toMatchObject([{ event: 'payout:update', payload: { id: 'p' } }]);
  });

  it('filters by role as spec 6.3 says', () => {
    const roles = (type: string, data: unknown = {}) => (routeEvent(ev(type, data))[0] as unknown as { roles: string[] }).roles;
    expect(roles('audit:entry')).toEqual(['owner']);
    expect(roles('team:update')).toEqual(['owner']);
    expect(roles('api_key:update')).toEqual(['owner', 'developer']);
    expect(roles('webhook:update')).toEqual(['owner', 'developer']);
    expect(roles('affiliate:balance')).toEqual(['owner', 'finance']);
    expect(roles('notification', { category: 'affiliates' })).toEqual(['owner', 'finance']);
    expect(roles('notification', { category: 'support' })).toHaveLength(4);
    expect(roles('notification', { category: 'team' })).toEqual(['owner']);
    expect(roles('notification', { category: 'payouts' })).toHaveLength(4);
    expect(roles('affiliate:referral')).toEqual(['owner', 'finance']);
    expect(roles('affiliate:commission')).toEqual(['owner', 'finance']);
    expect(roles('affiliate:payout')).toEqual(['owner', 'finance']);
    expect(roles('balance:update')).toHaveLength(4);
  });

  it('sends support chat events to every role of the merchant and to the operators, with merchant_id', () => {
    for (const type of ['support:message', 'support:message:update']) {
      const routes = routeEvent(ev(type, { id: 'msg_1', merchant_id: 'mer_1', body: 'hi' }));
      expect(routes).toEqual([
        { kind: 'merchant', merchantId: 'mer_1', roles: ['owner', 'developer', 'finance', 'viewer'], event: type, payload: { id: 'msg_1', merchant_id: 'mer_1', body: 'hi' } },
        { kind: 'operator', event: type, payload: { id: 'msg_1', merchant_id: 'mer_1', body: 'hi' } },
      ]);
    }
    const read = routeEvent(ev('support:read', { side: 'merchant', read_at: 't', unread: 0 }));
    expect(read[0]).toMatchObject({ kind: 'merchant', payload: { side: 'merchant', read_at: 't', unread: 0 } });
    expect((read[0] as { payload: object }).payload).not.toHaveProperty('merchant_id');
    expect(read[1]).toEqual({ kind: 'operator', event: 'support:read', payload: { merchant_id: 'mer_1', side: 'merchant', read_at: 't', unread: 0 } });
    expect(routeEvent(ev('link:update', {})).map((r) => r.kind)).toEqual(['merchant']);
  });

  it('sends read marks to the reader alone, without the user id that addressed them', () => {
    const data = { user_id: 'usr_1', ids: ['ntf_1'], all: false, livemode: true, unread: 3 };
    expect(routeEvent(ev('notification:read', data))).toEqual([
      { kind: 'user', userId: 'usr_1', event: 'notification:read', payload: { ids: ['ntf_1'], all: false, livemode: true, unread: 3 } },
    ]);
    expect(routeEvent(ev('notification:read', { ids: [] }))).toEqual([]);
  });

  it('pushes the figures when a delivery gives up, is resolved or redelivered (failed_webhooks), not on other attempts', () => {
    const kinds = (data: object) => routeEvent(ev('webhook:delivery', { id: 'dlv_1', ...data }, { livemode: true })).map((r) => r.kind);
    for (const d of [{ status: 'failed', attempts: 7 }, { status: 'resolved', attempts: 7 }, { status: 'pending', attempts: 0 }]) {
      expect(kinds(d), JSON.stringify(d)).toEqual(['merchant', 'figures']);
    }
    expect(routeEvent(ev('webhook:delivery', { status: 'failed', attempts: 7 }, { livemode: true }))[1]).toEqual({ kind: 'figures', merchantId: 'mer_1', livemode: true });
    for (const d of [{ status: 'pending', attempts: 3 }, { status: 'delivered', attempts: 1 }]) expect(kinds(d), JSON.stringify(d)).toEqual(['merchant']);
  });

  it('ignores events it does not know, pings and events without a merchant', () => {
    expect(routeEvent(ev('ping', {}))).toEqual([]);
    expect(routeEvent(ev('something:new', {}))).toEqual([]);
    expect(routeEvent(ev('store:update', {}, { merchantId: null }))).toEqual([]);
    expect(AUDIENCE['session:revoked']).toBeUndefined();
  });

  it('ends sessions named by session:revoked with the reason as code', () => {
    expect(routeEvent(ev('session:revoked', { user_id: 'u', session_ids: ['s1', 's2'], reason: 'role_changed' })))
      .toEqual([{ kind: 'end_sessions', sessionIds: ['s1', 's2'], code: 'role_changed' }]);
    expect(routeEvent(ev('session:revoked', { session_ids: ['s1'], reason: 'bogus' })))
      .toEqual([{ kind: 'end_sessions', sessionIds: ['s1'], code: 'session_revoked' }]);
    expect(routeEvent(ev('session:revoked', { session_ids: [] }))).toEqual([]);
  });

  it('ends every socket of a suspended merchant after telling them', () => {
    expect(routeEvent(ev('merchant:update', { status: 'suspended' })).map((r) => r.kind)).toEqual(['merchant', 'end_merchant']);
    expect(routeEvent(ev('merchant:update', { status: 'active' })).map((r) => r.kind)).toEqual(['merchant']);
  });
});

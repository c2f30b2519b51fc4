import { describe, expect, it } from 'vitest';
import { routeEvent, WEBHOOK_EVENT_TYPES } from './routing.ts';

const ev = (type: string, extra: Partial<{ livemode: boolean; webhookUrl: string | null; merchantId: string | null }> = {}) => ({
  type, livemode: false, merchantId: 'mer_1', webhookUrl: null, ...extra,
});

describe('routeEvent', () => {
  it('sends payment and settlement events of a payment with its own URL there, and nothing to the account', () => {
    for (const type of ['payment.confirmed', 'settlement.completed', 'settlement.failed']) {
      expect(routeEvent(ev(type, { webhookUrl: 'https://shop.example/hook', livemode: true })))
        .toEqual({ target: 'payment', url: 'https://shop.example/hook', livemode: true });
    }
  });

  it('sends other payment and settlement events to the account URL of their mode', () => {
    expect(routeEvent(ev('payment.expired'))).toEqual({ target: 'account', livemode: false });
    expect(routeEvent(ev('settlement.completed', { livemode: true }))).toEqual({ target: 'account', livemode: true });
  });

  it('sends payout events to the live URL', () => {
    expect(routeEvent(ev('payout.sent', { livemode: false }))).toEqual({ target: 'account', livemode: true });
    expect(routeEvent(ev('payout.rejected', { livemode: true, webhookUrl: 'https://x.example' }))).toEqual({ target: 'account', livemode: true });
  });

  it('never routes socket-only, internal or unowned events', () => {
    for (const type of ['payment.created', 'payment.coin_chosen', 'payment.confirmations', 'payment.deposit', 'payment.simulation', 'webhook:delivery', 'audit:entry', 'payout.requested']) {
      expect(routeEvent(ev(type, { webhookUrl: 'https://x.example' }))).toBeNull();
    }
    expect(routeEvent(ev('payment.confirmed', { merchantId: null }))).toBeNull();
  });

  it('lists exactly the fourteen types of spec 6.1, none with a colon', () => {
    expect(WEBHOOK_EVENT_TYPES.size).toBe(14);
    for (const t of WEBHOOK_EVENT_TYPES) expect(t).not.toContain(':');
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEnvelope, FIELDS_HIDDEN_FROM_WEBHOOKS, paymentForWebhook, webhookBody } from './envelope.ts';

const payment = {
  id: 'pay_1', status: 'confirmed', livemode: false, usd_amount: '25.5', checkout_token: 'tok',
  checkout_url: 'https://pay.example/c/tok', token_options: [{ token: 'BTC' }], metadata: { a: 1 },
  deposits: [{ tx_id: 'x', simulated: true }], simulation: { outcome: 'confirmed', state: 'done' },
};

describe('webhookBody', () => {
  it('is one line with the top-level keys alphabetical', () => {
    const body = webhookBody({ id: 'ab'.repeat(12), type: 'ping', livemode: true, createdAt: new Date('2026-01-05T12:00:00Z'), data: { message: 'hi' } });
    expect(body).toBe('{"created_at":"2026-01-05T12:00:00.000Z","data":{"message":"hi"},"id":"abababababababababababab","livemode":true,"type":"ping"}');
    expect(body).not.toContain('\n');
  });

  it('strips checkout_token, checkout_url and token_options from payment events only, keeping the rest', () => {
    const parsed = JSON.parse(webhookBody({ id: 'e', type: 'payment.confirmed', livemode: false, createdAt: '2026-01-05T12:00:00.000Z', data: payment }));
    expect(parsed.data).not.toHaveProperty('checkout_token');
    expect(parsed.data).not.toHaveProperty('checkout_url');
    expect(parsed.data).not.toHaveProperty('token_options');
    expect(parsed.data).toEqual({
      id: 'pay_1', status: 'confirmed', livemode: false, usd_amount: '25.5', metadata: { a: 1 },
      deposits: [{ tx_id: 'x', simulated: true }], simulation: { outcome: 'confirmed', state: 'done' },
    });
    expect(payment).toHaveProperty('checkout_token'); // the caller's object is left alone

    const settlement = { id: 'set_1', checkout_url: 'kept, not a payment' };
    expect(buildEnvelope({ id: 'e', type: 'settlement.completed', livemode: true, createdAt: 'x', data: settlement }).data).toEqual(settlement);
  });

  it('hides exactly FIELDS_HIDDEN_FROM_WEBHOOKS and keeps the rest in its order', () => {
    const all = { a: 1, ...Object.fromEntries(FIELDS_HIDDEN_FROM_WEBHOOKS.map((f) => [f, 'x'])), m: [2], z: null };
    expect(Object.keys(paymentForWebhook(all) as object)).toEqual(['a', 'm', 'z']);
  });

  it('leaves non-object payment data unchanged', () => {
    expect(paymentForWebhook(null)).toBeNull();
    expect(paymentForWebhook([1])).toEqual([1]);
  });

  it('property: top-level keys are sorted and data round-trips', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (data, livemode) => {
      const body = webhookBody({ id: 'e', type: 'ping', livemode, createdAt: '2026-01-05T12:00:00.000Z', data });
      const parsed = JSON.parse(body);
      expect(Object.keys(parsed)).toEqual(['created_at', 'data', 'id', 'livemode', 'type']);
      expect(parsed.data).toEqual(JSON.parse(JSON.stringify(data)));
      expect(body).not.toMatch(/\n/);
    }));
  });
});

import { describe, expect, it } from 'vitest';
import { checkoutUpdate, dashboardUpdate, foundOrNull, payerView, PRIVATE_FIELDS } from './payer-view.ts';
import { AppError } from '../platform/errors.ts';

const full = {
  id: 'pay_1', merchant_id: 'mer_1', metadata: { k: 'v' }, customer_email: 'a@b.c', webhook_url: 'https://h', checkout_token: 'ct',
  checkout_url: 'https://x/pay/ct', order_id: 'o-1', status: 'detecting', livemode: true, token: 'USDT_TRC20', chain: 'tron',
  crypto_amount: '10', received_amount: '10', confirmed_at: undefined,
  deposits: [{ tx_id: 'a', confirmations: 20 }, { tx_id: 'b', confirmations: 3 }],
};

describe('payer view and payment:update', () => {
  it('leaves out every private field of spec 4.2', () => {
    // the spec's list, written out: checked against the code's own list, a field dropped from both would pass
    const SPEC_PRIVATE = ['merchant_id', 'metadata', 'customer_email', 'webhook_url', 'checkout_token', 'checkout_url'];
    expect([...PRIVATE_FIELDS].sort()).toEqual([...SPEC_PRIVATE].sort());
    const v = payerView(full);
    for (const f of SPEC_PRIVATE) expect(v).not.toHaveProperty(f);
    expect(v.order_id).toBe('o-1');
    // Exactly those: every other field stays, in its order.
    expect(Object.keys(v)).toEqual(Object.keys(full).filter((k) => !(PRIVATE_FIELDS as readonly string[]).includes(k)));
    expect(full).toHaveProperty('metadata');
  });

  it('builds the flat form from the latest deposit, with crypto_amount = received so far', () => {
    const u = checkoutUpdate('payment.confirmations', { ...full, received_amount: '4' });
    expect(u).toMatchObject({ type: 'payment.confirmations', id: 'pay_1', livemode: true, order_id: 'o-1', status: 'detecting', tx_id: 'b', confirmations: 3, crypto_amount: '4', token: 'USDT_TRC20', chain: 'tron' });
    expect(u).not.toHaveProperty('confirmed_at');
    expect(checkoutUpdate('payment.confirmed', { ...full, confirmed_at: 'T' }).confirmed_at).toBe('T');
    expect(checkoutUpdate('payment.snapshot', { id: 'p', deposits: [] })).not.toHaveProperty('tx_id');
  });

  it('gives the dashboard the whole payment and merchant_id', () => {
    const u = dashboardUpdate('payment.created', full, 'mer_1');
    expect(u.merchant_id).toBe('mer_1');
    expect(u.payment).toHaveProperty('metadata');
  });

  it('turns a 404 into null and passes other errors on', async () => {
    expect(await foundOrNull(Promise.reject(new AppError(404, 'payment not found')))).toBeNull();
    await expect(foundOrNull(Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await foundOrNull(Promise.resolve({ id: 'p' }))).toEqual({ id: 'p' });
  });
});

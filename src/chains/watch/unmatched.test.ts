// The unmatched deposit object of GET /admin/unmatched-deposits and a trail's `unmatched_deposits`
// (CONTRACT.md operator API; "Values and formats": optional fields are absent, never null).
import { expect, it } from 'vitest';
import { unmatchedDepositJson } from './unmatched.ts';
import type { UnmatchedDepositRow } from './schema.ts';

const seenAt = new Date('2026-05-01T12:00:00.000Z');
const row = (more: Partial<UnmatchedDepositRow> = {}): UnmatchedDepositRow => ({
  id: 'umd_1', chain: 'xrp', token: 'XRP', address: 'rService', destinationTag: 77, txId: 'ABC', amount: 12_500_000n,
  usdValue: '6.25', block: 900, merchantId: 'mer_1', paymentId: 'pay_1', seenAt, ...more,
});

it('carries every field of the contract, the merchant and the tag when known', () => {
  expect(unmatchedDepositJson(row())).toEqual({
    id: 'umd_1', merchant_id: 'mer_1', chain: 'xrp', token: 'XRP', address: 'rService', destination_tag: 77, tx_id: 'ABC',
    amount: '12.5', usd_value: '6.25', block: 900, seen_at: seenAt.toISOString(),
  });
  const stranger = unmatchedDepositJson(row({ merchantId: null, paymentId: null, destinationTag: null }));
  expect(stranger).not.toHaveProperty('merchant_id');
  expect(stranger).not.toHaveProperty('destination_tag');
});

it('leaves usd_value out, never null, for a deposit seen while its coin had no current price', () => {
  const json = unmatchedDepositJson(row({ usdValue: null }));
  expect(json).not.toHaveProperty('usd_value');
  expect(Object.values(json)).not.toContain(null);
});

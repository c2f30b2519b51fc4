// Which expanded ledger entries are XRP credits, by hand-built entries of both of rippled's shapes
// (the reader's tests see only what the simulator writes, which never sets delivered_amount on a
// failed transaction nor on anything but a Payment).
import { describe, expect, it } from 'vitest';
import { paymentOf, paymentsOfLedger } from './ledger-payments.ts';

const HASH = 'ab'.repeat(32);
const FROM = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const TO = 'rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3';

/** API v2: tx_json, meta and hash beside each other. */
const v2 = (tx: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  hash: HASH,
  tx_json: { TransactionType: 'Payment', Account: FROM, Destination: TO, DestinationTag: 77, DeliverMax: '5000000', ...tx },
  meta: { TransactionResult: 'tesSUCCESS', delivered_amount: '5000000', ...meta },
});

describe('paymentOf', () => {
  it('credits a successful XRP payment with what it delivered, its tag and its sender', () => {
    expect(paymentOf(v2())).toEqual({ txId: HASH.toUpperCase(), to: TO, token: 'XRP', amount: 5_000_000n, tag: 77, from: FROM });
  });

  it('reads the flat API v1 shape (metaData) alike', () => {
    const v1 = { TransactionType: 'Payment', Account: FROM, Destination: TO, Amount: '7', hash: HASH, metaData: { TransactionResult: 'tesSUCCESS', delivered_amount: '7' } };
    expect(paymentOf(v1)).toEqual({ txId: HASH.toUpperCase(), to: TO, token: 'XRP', amount: 7n, from: FROM });
  });

  it('never credits a transaction that did not succeed, even with a delivered_amount written', () => {
    for (const result of ['tecPATH_PARTIAL', 'tecUNFUNDED_PAYMENT', 'tefPAST_SEQ']) expect(paymentOf(v2({}, { TransactionResult: result })), result).toBeNull();
  });

  it('never credits anything but a Payment', () => {
    for (const type of ['CheckCash', 'OfferCreate', 'AccountSet']) expect(paymentOf(v2({ TransactionType: type })), type).toBeNull();
  });

  it('never credits nothing delivered, an issued currency, or an unavailable amount', () => {
    expect(paymentOf(v2({}, { delivered_amount: '0' }))).toBeNull();
    expect(paymentOf(v2({}, { delivered_amount: { currency: 'USD', issuer: FROM, value: '5' } }))).toBeNull();
    expect(paymentOf(v2({}, { delivered_amount: 'unavailable' }))).toBeNull();
  });

  it('leaves out a tag that is not a whole number of at least 0', () => {
    for (const tag of [-1, 1.5, '77']) expect(paymentOf(v2({ DestinationTag: tag }))).not.toHaveProperty('tag');
    // 0 is a tag like any other: read as none, the payment would look untagged
    expect(paymentOf(v2({ DestinationTag: 0 }))).toHaveProperty('tag', 0);
  });
});

describe('paymentsOfLedger', () => {
  it('keeps the credits of a ledger in its order, and only them', () => {
    const second = { ...v2({}, { delivered_amount: '9' }), hash: 'cd'.repeat(32) };
    expect(paymentsOfLedger([v2(), v2({ TransactionType: 'OfferCreate' }), second, null]).map((p) => [p.txId, p.amount]))
      .toEqual([[HASH.toUpperCase(), 5_000_000n], ['CD'.repeat(32), 9n]]);
  });
});

// A treasury conversion's ledger is written when it is carried out, from the settlement's stored
// figures (conversion-ledger.ts): it must be exactly the planner's own entries for that plan.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import { address, deposit, input, payment } from './fixtures.test-support.ts';
import { planSettlement } from './plan.ts';
import { executedLedger } from './conversion-ledger.ts';
import type { SettlementRow } from './schema.ts';
import type { StoredConversion } from './json.ts';

const FROM: TokenSymbol[] = ['ETH', 'USDC_ERC20', 'BNB', 'USDT_BEP20', 'TRX', 'BTC', 'LTC', 'XRP', 'DOGE'];
const TO: TokenSymbol[] = ['USDT_ERC20', 'USDT_BEP20', 'USDT_TRC20', 'ETH', 'XRP'];

describe('executedLedger', () => {
  it('property: equals the plan\'s ledger for every live conversion the treasury carries out', () => {
    let seen = 0;
    fc.assert(fc.property(
      fc.constantFrom(...FROM), fc.constantFrom(...TO), fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: 0, max: 2000 }),
      (from, to, cents, feeBps) => {
        if (from === to) return;
        const whole = dec(cents).div(100).div(input(from, '1').market.rates[from]!).toDecimalPlaces(TOKEN_DEFS[from].decimals, 1).toFixed();
        const plan = planSettlement(input(from, whole, { payment: payment({ fee_bps: feeBps }), deposits: [deposit(from, whole, 'tx_a')], addresses: [address(to)] }));
        const c = plan.conversion;
        if (plan.status !== 'pending' || !c || c.status !== 'pending' || (c.via !== 'swap' && c.via !== 'exchange')) return;
        seen++;
        const row = {
          paymentId: plan.payment_id, depositTx: plan.deposit_tx, token: plan.token, amount: plan.amount, serviceFee: plan.service_fee,
          networkFee: plan.network_fee, conversionFee: plan.conversion_fee, net: plan.net, usdValue: plan.usd_value, serviceFeeUsd: plan.service_fee_usd,
          networkFeeUsd: plan.network_fee_usd, conversionFeeUsd: plan.conversion_fee_usd, netUsd: plan.net_usd,
        } as SettlementRow;
        const stored = { via: c.via, from: c.from, amount_in: String(c.amount_in), to: c.to, amount_out: String(c.amount_out), status: c.status } as StoredConversion;
        expect(executedLedger(row, stored)).toEqual(plan.ledger);
      },
    ), { numRuns: 300 });
    expect(seen).toBeGreaterThan(50);
  });
});

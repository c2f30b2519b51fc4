// Plans per second of the pure settlement planner for payments paid in 1, 5 and 20 deposits, over
// a mix of routes (as it is, swap, exchange, custodial purchase, rule 6 fallback).
// Run: node_modules/.bin/node bench/settlement-planner.ts
import { dec } from '../src/money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../src/tokens/index.ts';
import { planSettlement, type MarketQuotes, type PayoutAddressInput, type PlanInput } from '../src/settlement/planner.ts';

const NOW = new Date('2026-01-10T12:00:00Z');
const LONG_AGO = new Date('2025-12-01T00:00:00Z');
const RATES: Partial<Record<TokenSymbol, string>> = { BTC: '60000', ETH: '3000', LTC: '80', USDT_ERC20: '1', USDT_TRC20: '1', USDT_BEP20: '1', TRX: '0.25' };
const asDec = (m: Partial<Record<TokenSymbol, string>>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, dec(v!)]));
const market: MarketQuotes = {
  rates: asDec(RATES), network_fee_usd: asDec({ BTC: '1.5', ETH: '0.8', LTC: '0.05', USDT_ERC20: '2', USDT_TRC20: '1', USDT_BEP20: '0.2', TRX: '0.3' }),
  exchange_min_usd: asDec({ BTC: '20', ETH: '15', LTC: '10', TRX: '10' }),
};
const addr = (token: TokenSymbol): PayoutAddressInput => ({ id: `pa_${token}`, token, address: `${token}-wallet`, default: true, created_at: LONG_AGO, active_at: LONG_AGO });
const addresses = [addr('BTC'), addr('USDT_ERC20'), addr('USDT_BEP20')];

function inputFor(token: TokenSymbol, settlement: 'direct' | 'custodial', deposits: number, usdEach: string): PlanInput {
  const { decimals } = TOKEN_DEFS[token];
  const units = BigInt(dec(usdEach).div(RATES[token]!).mul(dec(10).pow(decimals)).toFixed(0));
  return {
    payment: { id: 'pay_bench', livemode: true, token, rate_locked: dec(RATES[token]!), fee_bps: 100, settlement, convert_into: 'cheapest' },
    deposits: Array.from({ length: deposits }, (_, i) => ({ tx_id: `tx_${i}`, token, amount: units, usd_value: dec(usdEach), final_at: NOW })),
    addresses, market, now: NOW,
  };
}

const MIX: [TokenSymbol, 'direct' | 'custodial', string][] = [
  ['BTC', 'direct', '40'], // as it is
  ['ETH', 'direct', '40'], // swap into USDT_ERC20
  ['LTC', 'direct', '40'], // exchange into USDT_BEP20
  ['LTC', 'custodial', '40'], // bought into USDT_TRC20
  ['TRX', 'direct', '1'], // rule 6 fallback (below the exchange minimum)
];

function measure(deposits: number): number {
  const inputs = MIX.map(([t, s, usd]) => inputFor(t, s, deposits, usd));
  let sink = 0n;
  for (let i = 0; i < 20_000; i++) sink += planSettlement(inputs[i % inputs.length]).net; // warm-up (JIT)
  // best of three half-second rounds: the machine is shared, the best round is the least disturbed
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const start = process.hrtime.bigint();
    let n = 0;
    while (process.hrtime.bigint() - start < 500_000_000n) {
      for (const input of inputs) sink += planSettlement(input).net;
      n += inputs.length;
    }
    best = Math.max(best, n / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  if (sink < 0n) console.log('impossible');
  return best;
}

for (const deposits of [1, 5, 20]) {
  console.log(`settlement planner: ${deposits} deposit${deposits > 1 ? 's' : ''} per payment: ${Math.round(measure(deposits)).toLocaleString('en-US')} plans/s`);
}

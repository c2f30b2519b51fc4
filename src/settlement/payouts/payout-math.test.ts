import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../../money/index.ts';
import { TOKEN_DEFS, TOKENS } from '../../tokens/index.ts';
import { parsePayoutAmount, payoutFigures, payoutNetworkFee, underMinimumPayout, usdOf } from './payout-math.ts';
import { payoutDue } from './scheduled.ts';

describe('payout figures', () => {
  it('charges the fee of the payout network in the balance coin, rounded up at its precision', () => {
    expect(payoutNetworkFee('USDT_TRC20', 'USDT_BEP20', dec('0.5'), dec(1))).toBe(500_000n);
    expect(payoutNetworkFee('BTC', 'BTC', dec(2), dec(60000))).toBe(3334n);
    expect(payoutFigures('BTC', 1_000_000n, 3334n, dec(60000))).toMatchObject({ send_amount: 996_666n });
  });

  it('fixes dollar figures that add up exactly and a fee never below its exact value (property)', () => {
    fc.assert(fc.property(
      fc.constantFrom(...TOKENS), fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 500 }),
      (token, amount, rateCents, feeCents) => {
        const rate = dec(rateCents).div(100);
        const feeUsd = dec(feeCents).div(100);
        const { decimals } = TOKEN_DEFS[token];
        const fee = payoutNetworkFee(token, token, feeUsd, rate);
        // the fee in coin is worth at least its dollars, and less than one precision step more
        const feeCoin = dec(fee).div(dec(10n ** BigInt(decimals)));
        expect(feeCoin.mul(rate).gte(feeUsd)).toBe(true);
        expect(feeCoin.minus(feeUsd.div(rate)).lt(dec(10).pow(-TOKEN_DEFS[token].precision))).toBe(true);
        const f = payoutFigures(token, amount, fee, rate);
        expect(f.send_amount).toBe(amount - fee);
        expect(f.network_fee_usd.plus(f.send_amount_usd).eq(f.amount_usd)).toBe(true);
        expect(f.amount_usd.decimalPlaces()).toBeLessThanOrEqual(2);
        if (TOKEN_DEFS[token].stablecoin) expect(f.usd_rate.eq(1)).toBe(true);
      },
    ));
  });

  it('is under the $10 minimum exactly when the unrounded dollar value is, whatever rounding to the cent would show (property)', () => {
    fc.assert(fc.property(
      fc.constantFrom(...TOKENS), fc.bigInt({ min: 0n, max: 10n ** 22n }), fc.integer({ min: 1, max: 10_000_000 }),
      (token, amount, rateCents) => {
        const rate = dec(rateCents).div(100);
        const { decimals, stablecoin } = TOKEN_DEFS[token];
        const exact = dec(amount).div(dec(10n ** BigInt(decimals))).mul(stablecoin ? dec(1) : rate);
        expect(underMinimumPayout(token, amount, rate)).toBe(exact.lt(10));
      },
    ));
    // $9.999999 reads $10.00 once rounded, and is still under
    expect(usdOf('USDT_TRC20', 9_999_999n, dec(1)).eq(10)).toBe(true);
    expect(underMinimumPayout('USDT_TRC20', 9_999_999n, dec(1))).toBe(true);
    expect(underMinimumPayout('USDT_TRC20', 10_000_000n, dec(1))).toBe(false);
  });

  it('values stablecoins at one dollar whatever the rate says', () => {
    expect(usdOf('USDT_TRC20', 12_345_678n, dec('0.99')).toFixed()).toBe('12.35');
  });
});

describe('payout amounts', () => {
  it('reads numbers and decimal strings at the coin precision; absent or zero means all', () => {
    expect(parsePayoutAmount('12.5', 'USDT_BEP20')).toBe(125n * 10n ** 17n);
    expect(parsePayoutAmount(0.001, 'BTC')).toBe(100_000n);
    expect(parsePayoutAmount(undefined, 'BTC')).toBeUndefined();
    expect(parsePayoutAmount(0, 'BTC')).toBeUndefined();
    // a zero written with decimals is still zero: all of it, never a payout of nothing
    expect(parsePayoutAmount('0.000', 'BTC')).toBeUndefined();
    expect(parsePayoutAmount(' 0.00 ', 'USDT_TRC20')).toBeUndefined();
    // and so is a negative zero, as a referral payout reads it
    expect(parsePayoutAmount('-0', 'USDT_TRC20')).toBeUndefined();
    expect(parsePayoutAmount('-0.00', 'BTC')).toBeUndefined();
    expect(parsePayoutAmount(-0, 'BTC')).toBeUndefined();
    // only a zero: a minus before anything but digits is no amount, never "all of it"
    for (const junk of ['-', '-x', '-.5', '- 1', '--0']) {
      expect(() => parsePayoutAmount(junk, 'BTC'), junk).toThrow('amount must be a number or a decimal string');
    }
    expect(() => parsePayoutAmount('1.0000001', 'USDT_TRC20')).toThrow('amount has more than 6 decimals');
    expect(() => parsePayoutAmount('-1', 'USDT_TRC20')).toThrow('amount must be more than 0');
    expect(() => parsePayoutAmount({}, 'USDT_TRC20')).toThrow('amount must be a number or a decimal string');
    // a malformed number is malformed whatever its sign: '-0.' as '0.', '-1.' as '1.'
    for (const malformed of ['0.', '-0.', '1.', '-1.', '-1e2', '-.0']) {
      expect(() => parsePayoutAmount(malformed, 'BTC'), malformed).toThrow('amount must be a number or a decimal string');
    }
  });

  it('refuses a minus before a malformed amount with the malformed amount\'s message (property)', () => {
    const outcome = (v: string) => { try { return parsePayoutAmount(v, 'BTC'); } catch (e) { return (e as Error).message; } };
    fc.assert(fc.property(fc.stringMatching(/^[-0-9.e ]{0,8}$/), (text) => {
      if (outcome(text) === 'amount must be a number or a decimal string') expect(outcome(`-${text}`)).toBe('amount must be a number or a decimal string');
    }));
  });

  it('reads a JSON number as the decimal it is, however JavaScript would print it (1e-7, 5e-7, 1e+21)', () => {
    expect(parsePayoutAmount(0.0000005, 'BTC')).toBe(50n);
    expect(parsePayoutAmount(1e21, 'USDT_TRC20')).toBe(10n ** 27n);
    expect(() => parsePayoutAmount(1e-7, 'USDT_TRC20')).toThrow('amount has more than 6 decimals');
    expect(() => parsePayoutAmount(-1e-7, 'USDT_TRC20')).toThrow('amount must be more than 0');
  });

  it('reads a number as its decimal string (property)', () => {
    fc.assert(fc.property(fc.constantFrom(...TOKENS), fc.double({ min: 1e-12, max: 1e25, noNaN: true }), (token, n) => {
      const text = dec(n).toFixed();
      const fromText = (() => { try { return parsePayoutAmount(text, token); } catch (e) { return (e as Error).message; } })();
      const fromNumber = (() => { try { return parsePayoutAmount(n, token); } catch (e) { return (e as Error).message; } })();
      expect(fromNumber).toEqual(fromText);
    }));
  });

  it('round-trips every amount at the precision (property)', () => {
    fc.assert(fc.property(fc.constantFrom(...TOKENS), fc.bigInt({ min: 1n, max: 10n ** 15n }), (token, steps) => {
      const { precision, decimals } = TOKEN_DEFS[token];
      const text = dec(steps).div(dec(10).pow(precision)).toFixed();
      expect(parsePayoutAmount(text, token)).toBe(steps * 10n ** BigInt(decimals - precision));
    }));
  });
});

describe('payout schedule', () => {
  const monday = new Date('2026-03-02T05:00:00Z');
  const tuesday = new Date('2026-03-03T05:00:00Z');
  it('pays daily once per UTC day, weekly on Mondays, instant always', () => {
    expect(payoutDue('daily', null, tuesday)).toBe(true);
    expect(payoutDue('daily', new Date('2026-03-03T00:00:00Z'), tuesday)).toBe(false);
    expect(payoutDue('daily', new Date('2026-03-02T23:59:59Z'), tuesday)).toBe(true);
    expect(payoutDue('weekly', null, monday)).toBe(true);
    expect(payoutDue('weekly', null, tuesday)).toBe(false);
    expect(payoutDue('weekly', new Date('2026-03-02T01:00:00Z'), monday)).toBe(false);
    expect(payoutDue('weekly', new Date('2026-02-23T01:00:00Z'), tuesday)).toBe(false);
    expect(payoutDue('weekly', new Date('2026-03-08T23:59:59Z'), new Date('2026-03-09T00:00:00Z'))).toBe(true);
    expect(payoutDue('instant', monday, monday)).toBe(true);
  });

  it('makes a missed payout at the next run that covers its due time, once however many were missed', () => {
    // the service down all Monday: Tuesday's first run makes up from Sunday 23:00 and pays the week's payout
    const sunday = new Date('2026-03-01T23:00:00Z');
    expect(payoutDue('weekly', new Date('2026-02-23T00:00:00Z'), tuesday, sunday)).toBe(true);
    expect(payoutDue('weekly', null, tuesday, sunday)).toBe(true);
    // three weeks missed: one payout, then nothing until the next Monday
    expect(payoutDue('weekly', new Date('2026-02-09T00:00:00Z'), tuesday, new Date('2026-02-09T05:00:00Z'))).toBe(true);
    expect(payoutDue('weekly', tuesday, new Date('2026-03-08T23:00:00Z'))).toBe(false);
    expect(payoutDue('weekly', tuesday, new Date('2026-03-09T00:00:00Z'))).toBe(true);
    // a run covering Monday's last hour only, made on Tuesday, still covers Monday
    expect(payoutDue('weekly', new Date('2026-02-23T00:00:00Z'), tuesday, new Date('2026-03-02T23:00:00Z'))).toBe(true);
    expect(payoutDue('weekly', new Date('2026-02-23T00:00:00Z'), tuesday, new Date('2026-03-03T00:00:00Z'))).toBe(false);
    // daily: a missed day is paid the next day, once
    expect(payoutDue('daily', new Date('2026-02-27T05:00:00Z'), tuesday)).toBe(true);
    expect(payoutDue('daily', tuesday, new Date('2026-03-03T23:00:00Z'))).toBe(false);
  });
});

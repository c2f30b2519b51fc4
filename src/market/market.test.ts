import { describe, expect, it } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { TOKENS } from '../tokens/index.ts';
import { DEFAULT_MARKET, loadMarketFile, MarketFileError, parseMarketData, staticMarket } from './index.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../../test/fixtures/market.json');

describe('built-in market data', () => {
  it('has a positive rate and sane figures for every token', () => {
    for (const t of TOKENS) {
      const m = DEFAULT_MARKET[t];
      expect(m.rate.gt(0), t).toBe(true);
      expect(m.networkFeeUsd.gte(0), t).toBe(true);
      expect(m.minUsd.gt(0), t).toBe(true);
      // a payment kept by the merchant must be worth twice the network fee: the minimum allows it
      expect(m.exchangeMinUsd.gt(m.minUsd), t).toBe(true);
    }
    expect(DEFAULT_MARKET.USDT_TRC20.rate.toFixed()).toBe('1');
  });
});

describe('MARKET_FILE', () => {
  it('reads the fixture, every map and token', () => {
    const m = loadMarketFile(FIXTURE);
    expect(m.BTC.rate.toFixed()).toBe('60000');
    expect(m.TRX.rate.toFixed()).toBe('0.25');
    expect(m.USDT_ERC20.networkFeeUsd.toFixed()).toBe('2');
    expect(m.ETH.minUsd.toFixed()).toBe('3');
    expect(m.BTC.exchangeMinUsd.toFixed()).toBe('20');
  });

  it('keeps the default for a token missing from a map', () => {
    const m = parseMarketData({ rates: { BTC: '50000' }, min_usd: { ETH: '4.5' } });
    expect(m.BTC.rate.toFixed()).toBe('50000');
    expect(m.BTC.minUsd.eq(DEFAULT_MARKET.BTC.minUsd)).toBe(true);
    expect(m.ETH.minUsd.toFixed()).toBe('4.5');
    expect(m.ETH.rate.eq(DEFAULT_MARKET.ETH.rate)).toBe(true);
    expect(m.XRP).toEqual(DEFAULT_MARKET.XRP);
    expect(parseMarketData({})).toEqual(DEFAULT_MARKET);
  });

  it('does not change the defaults it starts from', () => {
    parseMarketData({ rates: { BTC: '1' } });
    expect(DEFAULT_MARKET.BTC.rate.toFixed()).toBe('90000');
  });

  it.each([
    [{ rates: { BTC: 60000 } }, 'rates.BTC must be a decimal string'],
    [{ rates: { BTC: '-1' } }, 'rates.BTC must be a decimal string'],
    [{ rates: { BTC: '0' } }, 'rates.BTC must be greater than 0'],
    [{ rates: { BTC: '1e3' } }, 'rates.BTC must be a decimal string'],
    [{ network_fee_usd: { ETH: 'abc' } }, 'network_fee_usd.ETH must be a decimal string'],
    [{ min_usd: { FOO: '1' } }, 'min_usd.FOO is not a token'],
    [{ exchange_min_usd: ['1'] }, 'exchange_min_usd must be an object'],
    [{ prices: {} }, 'unknown key prices'],
    [[1, 2], 'must hold a JSON object'],
  ])('rejects %j naming the key', (json, message) => {
    expect(() => parseMarketData(json)).toThrow(MarketFileError);
    expect(() => parseMarketData(json)).toThrow(message);
  });

  // JSON.parse makes each of these an own key (even __proto__); none is a map of MARKET_FILE
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('rejects the key %s, named like a property every object has', (key) => {
    const expected = `MARKET_FILE: unknown key ${key} (expected rates, network_fee_usd, min_usd, exchange_min_usd)`;
    expect(() => parseMarketData(JSON.parse(`{"${key}": {}}`))).toThrow(expected);
    expect(() => parseMarketData(JSON.parse(`{"${key}": {"BTC": "1"}}`))).toThrow(expected);
    expect(() => parseMarketData(JSON.parse(`{"rates": {"BTC": "50000"}, "${key}": {"ETH": "2"}}`))).toThrow(expected);
  });

  it.each(['constructor', '__proto__', 'toString'])('rejects the token %s inside a map', (key) => {
    expect(() => parseMarketData(JSON.parse(`{"min_usd": {"${key}": "1"}}`))).toThrow(`MARKET_FILE: min_usd.${key} is not a token`);
  });

  // USDT and USDC are priced at exactly one dollar (live mode does so; settlements' usd_rate is 1
  // for them, spec part 2): a file rate of 0.98 priced a $102.03 payment at 104.11 USDT with
  // rate_locked 0.98, which its settlement then valued at $104.11.
  it.each(['0.98', '1.05', '2'])('prices a stablecoin at 1 whatever rate the file gives (%s), and says so', (rate) => {
    for (const token of ['USDT_TRC20', 'USDT_ERC20', 'USDT_BEP20', 'USDC_ERC20', 'USDC_BEP20'] as const) {
      const said: string[] = [];
      expect(parseMarketData({ rates: { [token]: rate } }, undefined, (m) => said.push(m))[token].rate.toFixed()).toBe('1');
      expect(said).toEqual([`MARKET_FILE: rates.${token} is ${rate}: USDT and USDC are priced at one dollar, so 1 is used`]);
    }
  });

  it('takes a stablecoin rate of 1, however written, without a word', () => {
    for (const rate of ['1', '1.0', '1.000000', ' 1 ']) {
      const said: string[] = [];
      expect(parseMarketData({ rates: { USDT_TRC20: rate } }, undefined, (m) => said.push(m)).USDT_TRC20.rate.toFixed()).toBe('1');
      expect(said).toEqual([]);
    }
  });

  it('accepts zero for fees and minimums', () => {
    expect(parseMarketData({ network_fee_usd: { XRP: '0' } }).XRP.networkFeeUsd.isZero()).toBe(true);
  });

  it('names the file when it is missing or not JSON', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'market-'));
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{ rates: ');
    expect(() => loadMarketFile(bad)).toThrow(/MARKET_FILE: .*bad\.json is not valid JSON/);
    expect(() => loadMarketFile(path.join(dir, 'none.json'))).toThrow(/MARKET_FILE: cannot read/);
    fs.rmSync(dir, { recursive: true });
  });

  it('serves the same snapshot in both modes, and reports its figures with no sources', () => {
    const data = parseMarketData({ rates: { ETH: '2500' } });
    const market = staticMarket(data, new Date('2026-01-05T12:00:00Z'));
    expect(market.snapshot(true).ETH.rate.toFixed()).toBe('2500');
    expect(market.snapshot(false)).toBe(market.snapshot(true));
    const eth = market.report(true).find((e) => e.token === 'ETH');
    expect(eth).toEqual({ token: 'ETH', rate: '2500', status: 'ok', updated_at: '2026-01-05T12:00:00.000Z', sources: [] });
    expect(market.report(true)).toHaveLength(12);
    expect(market.sourceHealth()).toEqual([]);
  });
});

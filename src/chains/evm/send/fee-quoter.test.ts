// The EVM network fee quote: the tokens of a chain asked at once share one reading of its prices,
// and a later quote reads them again (a fee quoted from an old reading would price deposits at
// yesterday's gas); a reading that fails quotes nothing, and the next one asks the node again.
import { describe, expect, it } from 'vitest';
import { EvmFeeQuoter, sweepGas, type PriceSource } from './fee-quoter.ts';
import type { NetworkPrices } from './fees.ts';

/** A node whose prices the test sets; counts the readings. */
class Node implements PriceSource {
  reads = 0;
  answer: NetworkPrices | Error;
  constructor(answer: NetworkPrices) { this.answer = answer; }
  async prices(): Promise<NetworkPrices> {
    this.reads++;
    // answered on a later turn, as a node does: quotes asked meanwhile find the reading under way
    await Promise.resolve();
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

describe('EvmFeeQuoter', () => {
  it('quotes the gas of moving a deposit out at today\'s price: base fee plus tip, or the legacy gas price', async () => {
    const eth = new Node({ baseFee: 10n, priorityFee: 2n, gasPrice: 99n });
    const bsc = new Node({ baseFee: null, priorityFee: 0n, gasPrice: 3n });
    const quoter = new EvmFeeQuoter({ ethereum: eth, bsc });
    expect(await quoter.quoteSweepFee('ETH')).toBe(sweepGas('ETH') * 12n);
    expect(await quoter.quoteSweepFee('USDT_BEP20')).toBe(sweepGas('USDT_BEP20') * 3n);
    expect(await quoter.quoteSweepFee('BTC')).toBeNull();
  });

  it('tokens of a chain asked at once share one reading; a later quote reads the prices again', async () => {
    const eth = new Node({ baseFee: 10n, priorityFee: 2n, gasPrice: 12n });
    const quoter = new EvmFeeQuoter({ ethereum: eth });
    const both = await Promise.all([quoter.quoteSweepFee('ETH'), quoter.quoteSweepFee('USDT_ERC20')]);
    expect(both).toEqual([sweepGas('ETH') * 12n, sweepGas('USDT_ERC20') * 12n]);
    expect(eth.reads).toBe(1);
    eth.answer = { baseFee: 20n, priorityFee: 2n, gasPrice: 22n };
    expect(await quoter.quoteSweepFee('ETH')).toBe(sweepGas('ETH') * 22n);
    expect(eth.reads).toBe(2);
  });

  it('a reading that fails quotes nothing; the next quote asks the node again', async () => {
    const eth = new Node({ baseFee: 10n, priorityFee: 2n, gasPrice: 12n });
    eth.answer = new Error('no node answered');
    const quoter = new EvmFeeQuoter({ ethereum: eth });
    expect(await quoter.quoteSweepFee('ETH')).toBeNull();
    eth.answer = { baseFee: 10n, priorityFee: 2n, gasPrice: 12n };
    expect(await quoter.quoteSweepFee('ETH')).toBe(sweepGas('ETH') * 12n);
    expect(eth.reads).toBe(2);
  });
});

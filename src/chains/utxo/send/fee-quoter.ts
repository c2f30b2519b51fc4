// The market's network fee of a Bitcoin-family deposit: what the settlement transaction moving it
// costs at the node's current fee rate. One input (the deposit) and two outputs (the merchant's
// net and the service's share), in virtual bytes: 11 of envelope, 68 per P2WPKH input and 31 per
// P2WPKH output; a legacy P2PKH transaction (Dogecoin) is 10 + 148 + 2 × 34 bytes.
import { TOKEN_DEFS, type TokenSymbol } from '../../../tokens/index.ts';
import type { NetworkFeeQuoter } from '../../../market/network-fee-port.ts';
import { isUtxoChain, type UtxoChain } from '../../addresses/index.ts';
import { UTXO_COINS, type UtxoCoin } from '../coins.ts';
import type { UtxoRpc } from '../rpc.ts';
import { currentFeeRate, feeFor } from './fee-rate.ts';

export const SETTLEMENT_VBYTES: Record<UtxoCoin['script'], number> = { p2wpkh: 11 + 68 + 2 * 31, p2pkh: 10 + 148 + 2 * 34 };

export class UtxoFeeQuoter implements NetworkFeeQuoter {
  readonly #rpcs: Partial<Record<UtxoChain, UtxoRpc>>;

  constructor(rpcs: Partial<Record<UtxoChain, UtxoRpc>>) {
    this.#rpcs = rpcs;
  }

  async quoteSweepFee(token: TokenSymbol): Promise<bigint | null> {
    const chain = TOKEN_DEFS[token].chain;
    const rpc = isUtxoChain(chain) ? this.#rpcs[chain] : undefined;
    if (!isUtxoChain(chain) || !rpc) return null;
    const coin = UTXO_COINS[chain];
    try {
      return feeFor(await currentFeeRate(rpc, coin), SETTLEMENT_VBYTES[coin.script]);
    } catch {
      return null;
    }
  }
}

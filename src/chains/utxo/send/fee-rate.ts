// The fee rate a Bitcoin-family transaction pays, in base units per 1000 virtual bytes: the node's
// `estimatesmartfee`, never below the coin's floor or what the node relays and keeps in its mempool
// (`getnetworkinfo` relayfee, `getmempoolinfo` mempoolminfee), and the coin's fallback when the
// node has no estimate (regtest never has one; a fresh node neither).
import { RpcError } from '../../rpc/json-rpc.ts';
import { feeRateToBaseUnits, type UtxoCoin } from '../coins.ts';
import type { UtxoRpc } from '../rpc.ts';

/** Blocks the estimate aims at: a settlement need not be in the next block. */
export const CONF_TARGET = 6;

export interface FeeRateInputs {
  /** estimatesmartfee's rate, null when the node has none. */
  estimate: bigint | null;
  /** The node's relay and mempool minimums. */
  nodeFloors: readonly bigint[];
}

export function chooseFeeRate(coin: UtxoCoin, i: FeeRateInputs): bigint {
  const floor = i.nodeFloors.reduce((a, b) => (b > a ? b : a), coin.minFeePerKvb);
  const wanted = i.estimate ?? coin.fallbackFeePerKvb;
  return wanted > floor ? wanted : floor;
}

/** Fee for `vbytes` at `perKvb`, rounded up (a fee a satoshi short is refused by the node). */
export const feeFor = (perKvb: bigint, vbytes: number): bigint => (perKvb * BigInt(vbytes) + 999n) / 1000n;

export async function currentFeeRate(rpc: UtxoRpc, coin: UtxoCoin): Promise<bigint> {
  const [estimate, net, pool] = await Promise.all([
    // Dogecoin 1.14 has it too (with the same answer shape); a node that lacks it falls back
    rpc.call<{ feerate?: number; errors?: string[] }>('estimatesmartfee', [CONF_TARGET]).catch((err): { feerate?: number } => {
      if (err instanceof RpcError) return {};
      throw err;
    }),
    rpc.call<{ relayfee?: number }>('getnetworkinfo'),
    rpc.call<{ mempoolminfee?: number }>('getmempoolinfo'),
  ]);
  const floors = [net.relayfee, pool.mempoolminfee].filter((v): v is number => typeof v === 'number').map(feeRateToBaseUnits);
  return chooseFeeRate(coin, { estimate: typeof estimate.feerate === 'number' && estimate.feerate > 0 ? feeRateToBaseUnits(estimate.feerate) : null, nodeFloors: floors });
}

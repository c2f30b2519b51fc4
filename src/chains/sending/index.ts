// The sending half of the chain layer, composed: the service's keys, a transfer family per chain
// with a node (Ethereum and BNB Smart Chain today; Bitcoin-family, Tron and XRP families plug in
// here the same way), the transfer worker, the hot wallets of /admin/wallets and the market's
// network fee quotes. One object with start/stop for the composition root.
import type { FastifyInstance } from 'fastify';
import type { Chain } from '../../config.ts';
import type { Platform } from '../../platform/context.ts';
import type { NetworkFeeQuoter } from '../../market/network-fee-port.ts';
import type { ChainNodes } from '../rpc/nodes.ts';
import { HotWallets, WalletKeys, registerWalletRoutes, type BalanceReader } from '../wallets/index.ts';
import { TransferService, type TransferFamily, type TransferServiceOptions } from '../transfers/index.ts';
import { EvmFamily, EvmFeeQuoter, EvmRpc, evmWalletBalances, tokenContracts } from '../evm/send/index.ts';
import type { UtxoChain } from '../addresses/index.ts';
import { UtxoReader, UtxoRpc, WrongNetworkError } from '../utxo/index.ts';
import { UtxoFamily, UtxoFeeQuoter, combinedFeeQuoter, depositTxsFromDb, utxoWalletBalances } from '../utxo/send/index.ts';

const EVM_CHAINS: readonly Chain[] = ['ethereum', 'bsc'];
const UTXO_CHAINS: readonly UtxoChain[] = ['bitcoin', 'litecoin', 'dogecoin'];

export interface ChainSendingOptions extends Partial<TransferServiceOptions> {
  /** Per chain: how long a sent transaction may stay unmined before it is looked at again. */
  stuckAfterMs?: Partial<Record<Chain, number>>;
}

/**
 * The worker's pass interval: the chain poll, and never longer than SETTLEMENT_DELAY_S (a final
 * deposit's direct settlement starts at most that long after it became final, even when no commit woke the worker).
 */
export function transferPollMs(config: Platform['config']): number {
  return config.settlementDelayS > 0 ? Math.min(config.chainPollMs, config.settlementDelayS * 1000) : config.chainPollMs;
}

export class ChainSending {
  readonly keys: WalletKeys;
  readonly transfers: TransferService;
  readonly wallets: HotWallets;
  readonly feeQuoter: NetworkFeeQuoter;
  /** The Bitcoin-family readers (one per chain with a node), shared with the chain watcher. */
  readonly utxoReaders: Partial<Record<UtxoChain, UtxoReader>> = {};
  readonly #platform: Platform;

  constructor(platform: Platform, nodes: ChainNodes, opts: ChainSendingOptions = {}) {
    const { config } = platform;
    this.#platform = platform;
    this.keys = new WalletKeys(config.walletMnemonic);
    const families: TransferFamily[] = [];
    const readers: Partial<Record<Chain, BalanceReader>> = {};
    const prices: Partial<Record<Chain, EvmFamily>> = {};
    for (const chain of EVM_CHAINS) {
      const endpoints = nodes[chain];
      if (!endpoints) continue;
      const rpc = new EvmRpc(endpoints);
      const contracts = tokenContracts(chain, config.tokenContracts);
      const family = new EvmFamily(chain, rpc, this.keys, contracts, { stuckAfterMs: opts.stuckAfterMs?.[chain] });
      families.push(family);
      prices[chain] = family;
      readers[chain] = (address) => evmWalletBalances(rpc, chain, address, contracts);
    }
    const utxoRpcs: Partial<Record<UtxoChain, UtxoRpc>> = {};
    for (const chain of UTXO_CHAINS) {
      const endpoints = nodes[chain];
      if (!endpoints) continue;
      const rpc = new UtxoRpc(endpoints);
      const reader = new UtxoReader(chain, rpc);
      utxoRpcs[chain] = rpc;
      this.utxoReaders[chain] = reader;
      families.push(new UtxoFamily(reader, rpc, this.keys, depositTxsFromDb(platform.db), { stuckAfterMs: opts.stuckAfterMs?.[chain] }));
      readers[chain] = (address) => utxoWalletBalances(rpc, chain, address);
    }
    this.transfers = new TransferService(platform, this.keys, families, { pollMs: transferPollMs(config), ...opts });
    this.wallets = new HotWallets(this.keys, readers, () => this.transfers.waitingForFunds(), platform.clock, platform.log);
    this.feeQuoter = combinedFeeQuoter(new EvmFeeQuoter(prices), new UtxoFeeQuoter(utxoRpcs));
  }

  registerRoutes(app: FastifyInstance): void {
    registerWalletRoutes(app, this.#platform.config.adminToken, this.wallets);
  }

  start(): void {
    this.transfers.start();
    // a Bitcoin-family node says its network (regtest: regtest addresses) before payments need one
    for (const reader of Object.values(this.utxoReaders)) {
      reader.network().catch((err: Error) => {
        if (err instanceof WrongNetworkError) this.#platform.log.error({ chain: reader.chain, err: err.message }, 'the chain\'s node serves another network: the chain is not watched');
      });
    }
  }

  stop(): Promise<void> {
    return this.transfers.stop();
  }
}

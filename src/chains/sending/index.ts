// The sending half of the chain layer, composed: the service's keys, a transfer family per chain
// with a node (Ethereum, BNB Smart Chain, Bitcoin, Litecoin, Dogecoin, Tron and XRP), the transfer
// worker, the hot wallets of /admin/wallets and the market's network fee quotes. One object with start/stop for the composition root.
import type { FastifyInstance } from 'fastify';
import type { Chain } from '../../config.ts';
import { tokenContracts, tokensOnChain } from '../../tokens/index.ts';
import type { Platform } from '../../platform/context.ts';
import type { NetworkFeeQuoter } from '../../market/network-fee-port.ts';
import type { ChainNodes } from '../rpc/nodes.ts';
import { HotWallets, OwnAddresses, WalletKeys, registerWalletRoutes, type BalanceReader } from '../wallets/index.ts';
import { TransferService, type TransferFamily, type TransferServiceOptions } from '../transfers/index.ts';
import type { EvmFamily } from '../evm/send/index.ts';
import { UTXO_CHAINS, type UtxoChain } from '../addresses/index.ts';
import type { UtxoReader, UtxoRpc } from '../utxo/index.ts';
import type { HotOutputs, UtxoFamily } from '../utxo/send/index.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import type { ChainReader, OwnWallet } from '../watch/types.ts';
import type { XrpRpc } from '../xrp/index.ts';
import { combinedFeeQuoter, familyFeeQuoter, type SweepFeeSource } from './family-fee-quoter.ts';
import { EVM_CHAINS, kitOf, loadChainKits, type ChainKits } from './chain-kits.ts';
import { EvmChainIds, type ChainIdSource } from './evm-chain-ids.ts';

export { EVM_CHAINS, kitOf, loadChainKits, type ChainKits } from './chain-kits.ts';

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
  /** The service's own addresses and the token contracts, where no payout may go. */
  readonly ownAddresses: OwnAddresses;
  readonly transfers: TransferService;
  readonly wallets: HotWallets;
  readonly feeQuoter: NetworkFeeQuoter;
  /** The Bitcoin-family readers (one per chain with a node), shared with the chain watcher. */
  readonly utxoReaders: Partial<Record<UtxoChain, UtxoReader>> = {};
  /** The Bitcoin-family transfer families (a test lowers one's `maxInputs`). */
  readonly utxoFamilies: Partial<Record<UtxoChain, UtxoFamily>> = {};
  /** The Bitcoin-family hot wallets, whose arrivals the watcher reports (an operator's top-up is known once mined). */
  readonly hotWallets: Partial<Record<Chain, OwnWallet>> = {};
  /** Readers of the chains whose families talk to their nodes through a connection of their own (Tron, XRP), for the watcher. */
  readonly readers: Partial<Record<Chain, ChainReader>> = {};
  /** The code of the chain families with a node (chain-kits.ts), also what the watcher reads them with. */
  readonly kits: ChainKits;
  /** The chain id each EVM node reports, for the checkout page's wallet links. */
  readonly evmChainIds: EvmChainIds;
  readonly #platform: Platform;
  #xrp: XrpRpc | null = null;

  /** Loads the code of the chain families that have a node, then composes them. */
  static async create(platform: Platform, nodes: ChainNodes, opts: ChainSendingOptions = {}): Promise<ChainSending> {
    return new ChainSending(platform, nodes, await loadChainKits(nodes), opts);
  }

  private constructor(platform: Platform, nodes: ChainNodes, kits: ChainKits, opts: ChainSendingOptions) {
    const { config } = platform;
    this.kits = kits;
    this.#platform = platform;
    this.keys = new WalletKeys(config.walletMnemonic);
    this.ownAddresses = new OwnAddresses(this.keys, config.tokenContracts);
    const families: TransferFamily[] = [];
    const readers: Partial<Record<Chain, BalanceReader>> = {};
    const prices: Partial<Record<Chain, EvmFamily>> = {};
    const quoters: NetworkFeeQuoter[] = [];
    const chainIds: Partial<Record<Chain, ChainIdSource>> = {};
    for (const chain of EVM_CHAINS) {
      const endpoints = nodes[chain];
      if (!endpoints) continue;
      const { EvmFamily, EvmRpc, evmWalletBalances } = kitOf(kits.evmSend, chain);
      const rpc = new EvmRpc(endpoints);
      const contracts = tokenContracts(chain, config.tokenContracts);
      const family = new EvmFamily(chain, rpc, this.keys, contracts, { stuckAfterMs: opts.stuckAfterMs?.[chain] });
      families.push(family);
      prices[chain] = family;
      readers[chain] = (address) => evmWalletBalances(rpc, chain, address, contracts);
      chainIds[chain] = () => rpc.chainId();
    }
    this.evmChainIds = new EvmChainIds(chainIds, config.chainPollMs);
    // Tron and XRP price their own sweeps
    const ownFees: Partial<Record<Chain, SweepFeeSource>> = {};
    if (kits.evmSend) quoters.push(new kits.evmSend.EvmFeeQuoter(prices));
    const utxoRpcs: Partial<Record<UtxoChain, UtxoRpc>> = {};
    let hotOutputs: HotOutputs | undefined; // one for all the Bitcoin-family chains
    for (const chain of UTXO_CHAINS) {
      const endpoints = nodes[chain];
      if (!endpoints) continue;
      const { UtxoReader, UtxoRpc } = kitOf(kits.utxo, chain);
      const { UtxoFamily, HotOutputs, depositTxsFromDb } = kitOf(kits.utxoSend, chain);
      hotOutputs ??= new HotOutputs(platform.db);
      const rpc = new UtxoRpc(endpoints);
      const reader = new UtxoReader(chain, rpc);
      utxoRpcs[chain] = rpc;
      this.utxoReaders[chain] = reader;
      this.readers[chain] = reader;
      const family = new UtxoFamily(reader, rpc, this.keys, depositTxsFromDb(platform.db), {
        stuckAfterMs: opts.stuckAfterMs?.[chain], hot: hotOutputs, now: () => platform.clock.now(),
      });
      families.push(family);
      this.utxoFamilies[chain] = family;
      this.hotWallets[chain] = { address: () => reader.normalizeAddress(family.hotAddress(true)), arrived: (txId, height) => family.hotArrival(txId, height) };
      // the live hot wallet's tracked outputs (a test-mode wallet is never on a node)
      readers[chain] = async () => [{ token: family.coin.token, amount: await family.hotBalance() }];
    }
    if (kits.utxoSend) quoters.push(new kits.utxoSend.UtxoFeeQuoter(utxoRpcs));
    const tron = nodes.tron;
    if (tron) {
      const { TronFamily, TronReader, TronRpc, dbTimestamps } = kitOf(kits.tron, 'tron');
      // the solidity routes live at TRON_SOLIDITY_URL when given, on the same nodes otherwise
      const rpc = new TronRpc(tron, config.tronSolidityUrls.length > 0 ? new NodeEndpoints(config.tronSolidityUrls) : tron);
      const contracts = tokenContracts('tron', config.tokenContracts);
      const family = new TronFamily(rpc, this.keys, contracts, {
        stuckAfterMs: opts.stuckAfterMs?.tron, timestamps: dbTimestamps(platform.db), now: () => platform.clock.now(),
      });
      ownFees.tron = family;
      families.push(family);
      this.readers.tron = new TronReader(rpc, config.tokenContracts, platform.log?.child({ chain: 'tron' }), platform.clock);
      // TRX and every token of the chain (a contract that cannot be read leaves its token out)
      const tronTokens = tokensOnChain('tron').filter((d) => !d.native).map((d) => d.token);
      readers.tron = async (address) => {
        const [trx, held] = await Promise.all([
          family.balance(address), Promise.all(tronTokens.map((token) => family.tokenBalance(token, address).catch(() => null))),
        ]);
        return [{ token: 'TRX' as const, amount: trx }, ...tronTokens.flatMap((token, i) => { const amount = held[i]; return amount === null ? [] : [{ token, amount }]; })];
      };
    }
    if (nodes.xrp) {
      const { XrpFamily, XrpReader, XrpRpc } = kitOf(kits.xrp, 'xrp');
      // one rippled connection (WebSocket or HTTP) shared by sending and watching
      this.#xrp = new XrpRpc(nodes.xrp);
      const family = new XrpFamily(this.#xrp, this.keys, { stuckAfterMs: opts.stuckAfterMs?.xrp });
      ownFees.xrp = family;
      families.push(family);
      this.readers.xrp = new XrpReader(this.#xrp);
      readers.xrp = async (address) => [{ token: 'XRP', amount: await family.balance(address) }];
    }
    this.transfers = new TransferService(platform, this.keys, families, { pollMs: transferPollMs(config), ...opts });
    this.wallets = new HotWallets(this.keys, readers, { funding: () => this.transfers.waitingForFunds(), consolidating: () => this.transfers.consolidating() }, platform.clock, platform.log);
    this.feeQuoter = combinedFeeQuoter(...quoters, familyFeeQuoter(ownFees));
  }

  registerRoutes(app: FastifyInstance): void {
    registerWalletRoutes(app, this.#platform.config.adminToken, this.wallets);
  }

  start(): void {
    this.transfers.start();
    // A Bitcoin-family node says its network (regtest: regtest addresses) before payments need one.
    // A failure is the watcher's to report (the chain `down`, one log line): nothing more here.
    for (const reader of Object.values(this.utxoReaders)) reader.network().catch(() => {});
    // An EVM node says its chain id (the checkout page's wallet links name it); asked until it answers.
    this.evmChainIds.start();
  }

  async stop(): Promise<void> {
    this.evmChainIds.stop();
    await this.transfers.stop();
    this.#xrp?.close();
  }
}

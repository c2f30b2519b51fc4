// The EVM family's ChainReader (Ethereum, BNB Smart Chain), with viem over the chain's
// NodeEndpoints. A block's transfers: native coin moved by a transaction that succeeded (its
// receipt's status; value moved by a contract's internal call from the node's call traces), and the `Transfer`
// logs of the configured token contracts (TOKEN_CONTRACTS, else mainnet), which only a successful
// transaction leaves. Receipts come in one eth_getBlockReceipts call, checked to belong to the
// block asked for, or by another way on a node without it (block-outcomes.ts). Addresses are keyed
// in lower case.
import { BlockNotFoundError, createPublicClient, TransactionNotFoundError, TransactionReceiptNotFoundError, type PublicClient } from 'viem';
import type { Chain } from '../../../config.ts';
import { ContractChecks, tokensOnChain, type TokenSymbol } from '../../../tokens/index.ts';
import type { NodeEndpoints } from '../../rpc/endpoints.ts';
import { endpointsTransport } from '../transport.ts';
import type { BlockRef, ChainBlock, ChainReader, ObservedTransfer, TxState } from '../../watch/types.ts';
import { checkTokenDecimals } from './token-decimals.ts';
import type { RawBlock } from './transfers.ts';
import { BlockOutcomes } from './block-outcomes.ts';
import type { Logger } from '../../../platform/logger.ts';
import type { Clock } from '../../../platform/clock.ts';

export const READ_TIMEOUT_MS = 15_000;

export class EvmReader implements ChainReader {
  readonly chain: Chain;
  readonly #client: PublicClient;
  readonly #native: TokenSymbol;
  /** Watched token contracts by lower-case address. */
  #contracts: Map<string, TokenSymbol>;
  readonly #configured: Partial<Record<TokenSymbol, string>>;
  readonly #checks: ContractChecks;
  readonly outcomes: BlockOutcomes;
  readonly #log: Logger | undefined;

  constructor(chain: Chain, endpoints: NodeEndpoints, contracts: Partial<Record<TokenSymbol, string>>, opts: { timeoutMs?: number; log?: Logger; clock?: Clock } = {}) {
    const timeoutMs = opts.timeoutMs ?? READ_TIMEOUT_MS;
    this.chain = chain;
    this.#client = createPublicClient({ transport: endpointsTransport(endpoints, timeoutMs), cacheTime: 0 }) as PublicClient;
    const native = tokensOnChain(chain).find((d) => d.native);
    if (!native) throw new Error(`${chain} has no native coin`);
    this.#native = native.token;
    this.#configured = contracts;
    this.#contracts = new Map(Object.entries(contracts).map(([token, address]) => [address.toLowerCase(), token as TokenSymbol]));
    this.outcomes = new BlockOutcomes(this.#client, endpoints, this.#native, opts.log);
    this.#log = opts.log;
    this.#checks = new ContractChecks(chain, this.#configured, opts.log, opts.clock);
  }

  /**
   * The chain id; the first time, also that each token contract has the token's decimals (else
   * nothing is read), and which have no code on the node; asked again every few minutes while one
   * has none (ContractChecks), so a contract deployed later is watched from then on.
   */
  async network(): Promise<string> {
    const id = await this.#client.getChainId();
    if (this.#checks.due()) {
      const { contracts, missing } = await checkTokenDecimals(this.#client, this.#configured);
      this.#contracts = contracts;
      this.#checks.checked(missing);
    }
    return String(id);
  }

  async head(): Promise<BlockRef> {
    return refOf(await this.#client.getBlock({ blockTag: 'latest' }));
  }

  async header(height: bigint): Promise<BlockRef | null> {
    try {
      return refOf(await this.#client.getBlock({ blockNumber: height }));
    } catch (err) {
      if (err instanceof BlockNotFoundError) return null;
      throw err;
    }
  }

  async block(height: bigint): Promise<ChainBlock | null> {
    let block: RawBlock;
    try {
      block = await this.#client.getBlock({ blockNumber: height, includeTransactions: true });
    } catch (err) {
      if (err instanceof BlockNotFoundError) return null;
      throw err;
    }
    const ref = refOf(block);
    return { ...ref, ...await this.outcomes.transfers({ ...block, hash: ref.hash }, this.#contracts) };
  }

  async txState(txId: string): Promise<TxState> {
    try {
      const r = await this.#client.getTransactionReceipt({ hash: txId as `0x${string}` });
      // Mined again after a reorganisation, but reverted there (the state of the new branch differs:
      // the sender's tokens spent first): it moved nothing and, its nonce spent, never will.
      if (r.status !== 'success') return { kind: 'conflicted' };
      return { kind: 'mined', height: r.blockNumber, blockHash: r.blockHash };
    } catch (err) {
      if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
    }
    try {
      await this.#client.getTransaction({ hash: txId as `0x${string}` });
      return { kind: 'pending' };
    } catch (err) {
      if (err instanceof TransactionNotFoundError) return { kind: 'unknown' };
      throw err;
    }
  }

  normalizeAddress(address: string): string {
    return address.toLowerCase();
  }
}

function refOf(b: { number: bigint | null; hash: string | null; parentHash: string; timestamp: bigint }): BlockRef {
  if (b.number === null || b.hash === null) throw new Error('the node answered a pending block');
  return { height: b.number, hash: b.hash, parentHash: b.parentHash, time: new Date(Number(b.timestamp) * 1000) };
}

export type { ObservedTransfer };

// Tron for the watcher: blocks from the full node (`getblockbynum` with its transactions, and
// `gettransactioninfobyblocknum` for TRC-20 Transfer logs), confirmations counted from the height,
// and the solidified block (walletsolidity) as the point at which a block is final whatever the count.
import type { Chain } from '../../config.ts';
import { ContractChecks, checkContractDecimals, setContractMissing, tokenContracts, tokensOnChain, type TokenSymbol } from '../../tokens/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { AddressIndex } from '../watch/address-index.ts';
import type { BlockRef, ChainBlock, ChainReader, TxState } from '../watch/types.ts';
import { blockTransfers } from './block-transfers.ts';
import { hexText, tronBase58, tronHex, type TronAnswer, type TronRpc } from './rpc.ts';

/**
 * What java-tron says of a mined transaction that failed: the receipt's result (REVERT,
 * OUT_OF_ENERGY…) or FAILED, with its message; null when it succeeded (a TRX TransferContract has no
 * receipt result and fails only when the info says FAILED).
 */
export function tronFailure(info: TronAnswer): string | null {
  const receipt = (info.receipt ?? {}) as TronAnswer;
  const failedCall = receipt.result !== undefined && receipt.result !== 'SUCCESS';
  if (info.result !== 'FAILED' && !failedCall) return null;
  const result = failedCall && typeof receipt.result === 'string' ? receipt.result : 'FAILED';
  const message = hexText(info.resMessage);
  return message ? `${result} (${message})` : result;
}

/** The header of a java-tron block answer; null for `{}` (no such block). */
export function tronBlockRef(b: TronAnswer): BlockRef | null {
  if (b.blockID === undefined && b.block_header === undefined) return null;
  const raw = ((b.block_header as TronAnswer | undefined)?.raw_data ?? {}) as TronAnswer;
  const id = String(b.blockID ?? '');
  const number = raw.number ?? 0;
  const parent = String(raw.parentHash ?? '');
  if (!/^[0-9a-f]{64}$/i.test(id) || !/^[0-9a-f]{64}$/i.test(parent) || typeof number !== 'number' || typeof raw.timestamp !== 'number') {
    throw new Error('the Tron node answered a block without id, number, parent or time');
  }
  return { height: BigInt(number), hash: id.toLowerCase(), parentHash: parent.toLowerCase(), time: new Date(raw.timestamp) };
}

/** Token contracts of Tron (TOKEN_CONTRACTS where given, mainnet otherwise), keyed as logs write them. */
export function tronLogContracts(configured: Record<string, string>): Map<string, TokenSymbol> {
  const out = new Map<string, TokenSymbol>();
  for (const d of tokensOnChain('tron')) {
    const contract = configured[d.token] ?? d.contract;
    const hex = contract ? tronHex(contract) : null;
    if (!d.native && hex) out.set(hex.slice(2), d.token);
  }
  return out;
}

export class TronReader implements ChainReader {
  readonly chain: Chain = 'tron';
  readonly #rpc: TronRpc;
  #contracts: Map<string, TokenSymbol>;
  /** Every contract of the chain's tokens, keyed as logs write them: #contracts less those missing from the node. */
  readonly #allContracts: ReadonlyMap<string, TokenSymbol>;
  readonly #configured: Partial<Record<TokenSymbol, string>>;
  readonly #checks: ContractChecks;
  readonly #log: Logger | undefined;

  constructor(rpc: TronRpc, configuredContracts: Record<string, string>, log?: Logger, clock?: Clock) {
    this.#rpc = rpc;
    this.#allContracts = tronLogContracts(configuredContracts);
    this.#contracts = new Map(this.#allContracts);
    this.#configured = tokenContracts('tron', configuredContracts);
    this.#log = log;
    this.#checks = new ContractChecks(this.chain, this.#configured, log, clock);
  }

  /**
   * The genesis block's id; the first time, also which token contracts the node has (else the token
   * is not watched), asked again every few minutes while one is missing (ContractChecks).
   */
  async network(): Promise<string> {
    const ref = tronBlockRef(await this.#rpc.wallet('getblockbynum', { num: 0 }));
    if (!ref) throw new Error('the Tron node has no genesis block');
    if (this.#checks.due()) await this.#checkContracts();
    return ref.hash;
  }

  /**
   * A TRC-20 contract the node does not hold (the mainnet USDT on a test network or local node):
   * java-tron's wallet/getcontract answers {} for it. Its token is left unwatched and unavailable in
   * live mode (tokens/live-contracts.ts; CONTRACT.md TOKEN_CONTRACTS), as the EVM reader does for a
   * contract without code: a live payment in it would wait for a deposit nothing sees.
   */
  async #checkContracts(): Promise<void> {
    const watched = new Map(this.#allContracts);
    const missing: TokenSymbol[] = [];
    for (const [token, contract] of Object.entries(this.#configured) as [TokenSymbol, string][]) {
      const hex = tronHex(contract);
      if (!hex) continue;
      const answer = await this.#rpc.wallet('getcontract', { value: hex });
      const absent = typeof answer.contract_address !== 'string';
      // A contract there with other decimals than the token's would credit amounts powers of ten
      // off: the chain is not read (the check runs again next pass) until TOKEN_CONTRACTS is fixed,
      // as evm/read/token-decimals.ts does.
      if (!absent) checkContractDecimals(token, contract, await this.#rpc.tokenDecimals(hex));
      setContractMissing(token, contract, absent);
      if (absent) {
        watched.delete(hex.slice(2));
        missing.push(token);
      }
    }
    this.#contracts = watched;
    this.#checks.checked(missing);
  }

  async head(): Promise<BlockRef> {
    const ref = tronBlockRef(await this.#rpc.wallet('getnowblock'));
    if (!ref) throw new Error('the Tron node has no head block');
    return ref;
  }

  /** The solidified block's height: a block at or below it is final whatever its confirmations. */
  async finalHeight(): Promise<bigint> {
    const ref = tronBlockRef(await this.#rpc.walletSolidity('getnowblock'));
    if (!ref) throw new Error('the Tron solidity node has no block');
    return ref.height;
  }

  async header(height: bigint): Promise<BlockRef | null> {
    return tronBlockRef(await this.#rpc.wallet('getblockbynum', { num: Number(height) }));
  }

  async block(height: bigint, watched?: AddressIndex): Promise<ChainBlock | null> {
    const b = await this.#rpc.wallet('getblockbynum', { num: Number(height) });
    const ref = tronBlockRef(b);
    if (!ref) return null;
    const txs = b.transactions === undefined ? [] : b.transactions;
    if (!Array.isArray(txs)) throw new Error('the Tron node answered a block with malformed transactions');
    let infos: unknown[] = [];
    if (txs.length > 0 && this.#contracts.size > 0) {
      const answer = await this.#rpc.wallet<unknown>('gettransactioninfobyblocknum', { num: Number(height) });
      if (!Array.isArray(answer)) throw new Error('the Tron node answered transaction infos that are not a list');
      infos = answer;
    }
    return { ...ref, transfers: blockTransfers(txs, infos, this.#contracts, watched) };
  }

  async txState(txId: string): Promise<TxState> {
    const info = await this.#rpc.wallet('gettransactioninfobyid', { value: txId });
    // Mined again after a reorganisation, but its call failed there (REVERT, OUT_OF_ENERGY): it moved
    // nothing and never will.
    if (typeof info.blockNumber === 'number' && tronFailure(info) !== null) return { kind: 'conflicted' };
    if (typeof info.blockNumber === 'number') {
      const ref = await this.header(BigInt(info.blockNumber));
      if (ref) return { kind: 'mined', height: ref.height, blockHash: ref.hash };
    }
    const tx = await this.#rpc.wallet('gettransactionbyid', { value: txId });
    return typeof tx.txID === 'string' ? { kind: 'pending' } : { kind: 'unknown' };
  }

  /** Hex (41…, lower case): what blocks carry, so matching a block encodes nothing. */
  normalizeAddress(address: string): string {
    return tronHex(address.trim()) ?? address.trim();
  }

  /** Base58check (T…), as deposit addresses are issued. */
  chainAddress(normalized: string): string {
    return tronHex(normalized) === normalized ? tronBase58(normalized) : normalized;
  }
}

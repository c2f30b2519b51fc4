// Ethereum and BNB Smart Chain in the transfer machinery: native transfers and ERC-20/BEP-20
// `transfer` calls, signed locally (viem) for the chain id the node reports, with EIP-1559 fees
// where its blocks carry a base fee and a legacy gas price otherwise. A deposit address that
// lacks gas for a token transfer asks the hot wallet for a top-up; a native coin's share pays its
// own fee (and the fees of the transfers before it from that address).
import { bytesToHex, encodeFunctionData, erc20Abi, keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Chain } from '../../../config.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../../tokens/index.ts';
import { RpcError } from '../../rpc/json-rpc.ts';
import type { WalletKeys } from '../../wallets/keys.ts';
import type { AttemptRow, TransferRow } from '../../transfers/schema.ts';
import type { BroadcastOutcome, Inclusion, PrepareContext, Preparation, SignedTx, TransferFamily } from '../../transfers/types.ts';
import { broadcastOutcome } from './broadcast-outcome.ts';
import { afterFailover } from '../../transfers/broadcasting.ts';
import { bumpFee, feeFields, feeFor, maxPrice, parseFeeFields, type EvmFee, type NetworkPrices } from './fees.ts';
import type { EvmCall, EvmRpc } from './rpc.ts';

/** How long a sent transaction may stay unmined before it is looked at again (about 15 blocks). */
export const STUCK_AFTER_MS: Partial<Record<Chain, number>> = { ethereum: 180_000, bsc: 45_000 };

interface Built { call: EvmCall; moved: bigint }

export class EvmFamily implements TransferFamily {
  readonly chain: Chain;
  readonly usesNonces = true;
  readonly stuckAfterMs: number;
  readonly #rpc: EvmRpc;
  readonly #keys: WalletKeys;
  readonly #contracts: Partial<Record<TokenSymbol, string>>;

  constructor(chain: Chain, rpc: EvmRpc, keys: WalletKeys, contracts: Partial<Record<TokenSymbol, string>>, opts: { stuckAfterMs?: number } = {}) {
    this.chain = chain;
    this.#rpc = rpc;
    this.#keys = keys;
    this.#contracts = contracts;
    this.stuckAfterMs = opts.stuckAfterMs ?? STUCK_AFTER_MS[chain] ?? 180_000;
  }

  hotAddress(livemode: boolean): string {
    return this.#keys.hotAddress(this.chain, livemode);
  }

  tip(): Promise<bigint> {
    return this.#rpc.blockNumber();
  }

  chainNonce(address: string, at?: bigint): Promise<bigint> {
    return this.#rpc.nonce(address, at);
  }

  async prices(): Promise<NetworkPrices> {
    const [baseFee, gasPrice] = await Promise.all([this.#rpc.baseFee(), this.#rpc.gasPrice()]);
    if (baseFee === null) return { baseFee, gasPrice, priorityFee: 0n };
    // a node without eth_maxPriorityFeePerGas: the tip its gas price suggests
    const priorityFee = await this.#rpc.maxPriorityFee().catch(() => (gasPrice > baseFee ? gasPrice - baseFee : 0n));
    return { baseFee, gasPrice, priorityFee };
  }

  /** The private key of the transfer's sender, checked against its address (a changed mnemonic never signs). */
  #key(t: TransferRow): Uint8Array | null {
    const k = t.fromRole === 'hot'
      ? { address: this.#keys.hotAddress(this.chain, t.livemode), privateKey: this.#keys.hotPrivateKey(this.chain, t.livemode) }
      : this.#keys.deposit(this.chain, t.livemode, t.fromIndex!);
    return k.address.toLowerCase() === t.fromAddress.toLowerCase() ? k.privateKey : null;
  }

  #build(t: TransferRow, moved: bigint): Built | string {
    const token = t.token as TokenSymbol;
    if (TOKEN_DEFS[token].native) return { call: { from: t.fromAddress, to: t.toAddress, value: moved }, moved };
    const contract = this.#contracts[token];
    if (!contract) return `no ${token} contract is configured`;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [t.toAddress as Hex, moved] });
    return { call: { from: t.fromAddress, to: contract, value: 0n, data }, moved };
  }

  async #estimate(call: EvmCall): Promise<bigint | string> {
    try {
      return await this.#rpc.estimateGas(call);
    } catch (err) {
      if (err instanceof RpcError) return `the transfer would fail: ${err.message}`;
      throw err;
    }
  }

  async prepare(t: TransferRow, ctx: PrepareContext): Promise<Preparation> {
    const key = this.#key(t);
    // the keys the service runs with do not derive this sender: no later try derives it either
    if (!key) return { kind: 'refused', why: 'the wallet key does not match the sending address', permanent: true };
    const token = t.token as TokenSymbol;
    const native = TOKEN_DEFS[token].native;
    const hot = t.fromRole === 'hot';
    // a share paying its own fee is estimated at 0 first (what it moves depends on its fee), then at what it moves
    const probe = this.#build(t, t.paysOwnFee ? 0n : t.amount);
    // no contract configured for its token: the configuration the service runs with
    if (typeof probe === 'string') return { kind: 'refused', why: probe, permanent: true };
    const [held, prices, chainId, estimated, balance] = await Promise.all([
      native ? Promise.resolve(null) : this.#rpc.tokenBalance(probe.call.to, t.fromAddress).catch(() => undefined),
      this.prices(), this.#rpc.chainId(), this.#estimate(probe.call), this.#rpc.balance(t.fromAddress),
    ]);
    if (!native) {
      // a node's answer, a balance: both may differ on a later try
      if (held === null || held === undefined) return { kind: 'refused', why: `the ${token} contract cannot be read on this node`, permanent: false };
      if (held < t.amount) {
        const why = `${hot ? 'the hot wallet' : 'the deposit address'} holds ${held} base units of ${token}, ${t.amount} are needed`;
        return hot ? { kind: 'no_funds', why } : { kind: 'refused', why, permanent: false };
      }
    }
    // a revert depends on the contracts' state (a paused token, a recipient's code), which may change
    if (typeof estimated === 'string') return { kind: 'refused', why: estimated, permanent: false };
    let gas = estimated;
    const fee = feeFor(prices);
    let reserve = gas * maxPrice(fee);
    let moved = t.paysOwnFee ? t.amount - ctx.feesPaidBefore - reserve : t.amount;
    if (moved <= 0n) return { kind: 'nothing_left', why: 'nothing is left after the network fee' };
    if (t.paysOwnFee) {
      // A contract may need more gas to take a value than to take nothing (a first non-zero store,
      // a call passing the coins on): estimated again at what is moved, never sent out of gas.
      const atValue = await this.#estimate((this.#build(t, moved) as Built).call);
      if (typeof atValue === 'string') return { kind: 'refused', why: atValue, permanent: false };
      if (atValue > gas) {
        gas = atValue;
        reserve = gas * maxPrice(fee);
        moved = t.amount - ctx.feesPaidBefore - reserve;
        if (moved <= 0n) return { kind: 'nothing_left', why: 'nothing is left after the network fee' };
      }
    }
    const built = this.#build(t, moved) as Built;
    const need = (native ? moved : 0n) + reserve;
    // The native coin of customers' deposits at this address is theirs to be settled, never this
    // transfer's gas: deposits no transfer moves yet, and the whole amount of another settlement's
    // native transfers recorded after this one (a BNB sent to a USDT address, swept or settled after
    // the USDT leaves). The hot wallet tops up instead.
    const kept = hot ? 0n : (ctx.heldForDeposits ? await ctx.heldForDeposits() : 0n) + this.#othersKeep(t, ctx);
    const available = balance - kept;
    if (available < need) {
      const why = `${hot ? 'the hot wallet' : 'the deposit address'} holds ${balance} wei${kept > 0n ? ` (${kept} of them deposits not settled yet)` : ''}, ${need} are needed`;
      if (hot) return { kind: 'no_funds', why };
      // the fees may fall, deposits held for others be settled
      if (t.paysOwnFee) return { kind: 'refused', why, permanent: false };
      return { kind: 'top_up', amount: need + await this.#othersNeed(t, ctx, fee) - available };
    }
    return { kind: 'ready', sign: (nonce) => this.#sign(key, chainId, nonce!, built, gas, fee) };
  }

  /** What the other unsent transfers from a deposit address will need of the native coin (one top-up covers them all). */
  async #othersNeed(t: TransferRow, ctx: PrepareContext, fee: EvmFee): Promise<bigint> {
    let total = 0n;
    for (const u of ctx.unsentFromSender) {
      if (u.id === t.id || u.paysOwnFee) continue;
      const built = this.#build(u, u.amount);
      if (typeof built === 'string') continue;
      const gas = await this.#estimate(built.call);
      if (typeof gas === 'string') continue;
      // another settlement's native amount is already kept out of what is available (#othersKeep)
      total += gas * maxPrice(fee) + (TOKEN_DEFS[u.token as TokenSymbol].native && u.reference === t.reference ? u.amount : 0n);
    }
    return total;
  }

  /** The native coin other references' unsent transfers from this deposit address will move. */
  #othersKeep(t: TransferRow, ctx: PrepareContext): bigint {
    let total = 0n;
    for (const u of ctx.unsentFromSender) {
      if (u.id !== t.id && u.reference !== t.reference && TOKEN_DEFS[u.token as TokenSymbol].native) total += u.amount;
    }
    return total;
  }

  async #sign(key: Uint8Array, chainId: number, nonce: bigint, b: Built, gas: bigint, fee: EvmFee): Promise<SignedTx> {
    const account = privateKeyToAccount(bytesToHex(key));
    const base = { chainId, nonce: Number(nonce), to: b.call.to as Hex, value: b.call.value ?? 0n, gas, ...(b.call.data ? { data: b.call.data } : {}) };
    const raw = await account.signTransaction(fee.type === 'eip1559'
      ? { ...base, type: 'eip1559', maxFeePerGas: fee.maxFeePerGas, maxPriorityFeePerGas: fee.maxPriorityFeePerGas }
      : { ...base, type: 'legacy', gasPrice: fee.gasPrice });
    return { txId: keccak256(raw), raw, nonce, value: b.moved, fee: feeFields(fee, gas), feeReserve: gas * maxPrice(fee) };
  }

  async replace(t: TransferRow, last: AttemptRow, ctx: PrepareContext): Promise<SignedTx | null> {
    const key = this.#key(t);
    if (!key || last.nonce === null) return null;
    const { fee: lastFee, gas } = parseFeeFields(last.fee);
    const [prices, chainId, balance] = await Promise.all([this.prices(), this.#rpc.chainId(), this.#rpc.balance(t.fromAddress)]);
    const fee = bumpFee(lastFee, feeFor(prices));
    const reserve = gas * maxPrice(fee);
    const moved = t.paysOwnFee ? t.amount - ctx.feesPaidBefore - reserve : last.value;
    if (moved <= 0n) return null;
    const native = TOKEN_DEFS[t.token as TokenSymbol].native;
    if (balance < (native ? moved : 0n) + reserve) return null;
    return this.#sign(key, chainId, last.nonce, this.#build(t, moved) as Built, gas, fee);
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    const failures: string[] = [];
    try {
      await this.#rpc.sendRaw(raw, failures);
      return { kind: 'accepted' };
    } catch (err) {
      return afterFailover(broadcastOutcome(err), failures);
    }
  }

  async inclusion(txIds: readonly string[]): Promise<Inclusion | null> {
    for (const txId of txIds) {
      const r = await this.#rpc.receipt(txId);
      if (r) return { txId, block: r.blockNumber, ok: r.status, feePaid: r.gasUsed * r.effectiveGasPrice };
    }
    return null;
  }

  known(txId: string): Promise<boolean> {
    return this.#rpc.transactionKnown(txId);
  }
}

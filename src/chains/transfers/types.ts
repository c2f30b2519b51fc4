// The words of the transfer machinery and what a chain family implements to plug into it. The core
// (this folder) owns the intents, the order of sending, nonces, retries, replacement and reporting;
// a family (evm/send, later utxo, tron, xrp) only talks to its nodes and signs.
import type { Chain } from '../../config.ts';
import type { Executor } from '../../platform/db/index.ts';
import type { AttemptRow, TransferRow } from './schema.ts';

/**
 * `account_setting`: a transaction of the hot wallet that moves nothing (XRP: AccountSet RequireDest).
 * `consolidation`: a Bitcoin-family hot wallet paying itself, many small outputs into one, so that a
 * transfer it holds enough for fits in one transaction the node relays (the fee is the service's).
 */
export const TRANSFER_PURPOSES = ['settlement', 'service_fee', 'sweep', 'gas_topup', 'payout', 'account_setting', 'consolidation'] as const;
export type TransferPurpose = (typeof TRANSFER_PURPOSES)[number];

export type TransferStatus = 'recorded' | 'signed' | 'sent' | 'mined' | 'final' | 'failed' | 'canceled';
/** Statuses the worker still works on. */
export const ACTIVE_STATUSES: readonly TransferStatus[] = ['recorded', 'signed', 'sent', 'mined'];
/** Waiting for the hot wallet to be funded (`needs_funding` in /admin/wallets). */
export const WAITING_FUNDS = 'funds';
/**
 * The statuses a transfer can wait for funds in: `recorded` (refused at preparation or at its first
 * broadcast) and `signed` (refused at a broadcast that may have reached a node: it keeps its nonce).
 */
export const MAY_WAIT_FOR_FUNDS: readonly TransferStatus[] = ['recorded', 'signed'];

/** A transaction signed and ready to broadcast; stored (as an attempt) before it is. */
export interface SignedTx {
  txId: string;
  /** The signed bytes, hex. */
  raw: string;
  nonce: bigint | null;
  /** What it moves (base units of the transfer's token). */
  value: bigint;
  /** Fee fields as signed, decimal strings. */
  fee: Record<string, string>;
  /** The most it can spend on the network fee, in the chain's native base units. */
  feeReserve: bigint;
}

/** What a family found out before anything is signed. */
export type Preparation =
  /**
   * Sign with this nonce (allocated by the core under the sender's lock), inside `tx`: the
   * transaction that stores the signed bytes, where a family records what the signing takes (the
   * UTXO hot wallet's outputs it spends), so nothing is taken unless the attempt is stored with it.
   */
  | { kind: 'ready'; sign: (nonce: bigint | null, tx?: Executor) => Promise<SignedTx> }
  /** The deposit address needs this much of the native coin first (a gas top-up from the hot wallet). */
  | { kind: 'top_up'; amount: bigint }
  /**
   * The hot wallet holds enough, but in more outputs than one transaction may spend: it pays itself
   * `amount` first (a `consolidation`, recorded with this transfer depending on it), spending the
   * outputs `reserve` takes for it in the transaction that records it. `why`: what is consolidated.
   */
  | { kind: 'consolidate'; amount: bigint; why: string; reserve: (tx: Executor, consolidationId: string) => Promise<void> }
  /** The hot wallet cannot pay it yet. */
  | { kind: 'no_funds'; why: string }
  /** Paying its own fee, nothing would be left to send. */
  | { kind: 'nothing_left'; why: string }
  /**
   * It cannot be sent as it stands (counts as a failed try). `permanent`: it never can, whatever a
   * later try finds (it depends only on the transfer's own fields, the destination's standing
   * settings, or the keys the service runs with): given up at once rather than tried four more
   * times over 42 minutes. Otherwise (funds, fees, a node, a contract's state) it is tried again.
   */
  | { kind: 'refused'; why: string; permanent: boolean };

export type BroadcastOutcome =
  | { kind: 'accepted' }
  /** The node says this nonce is used: mined already, or taken by another transaction. */
  | { kind: 'nonce_used'; why: string }
  | { kind: 'no_funds'; why: string }
  | { kind: 'refused'; why: string }
  /** No node answered clearly: the transaction may or may not be out there. */
  | { kind: 'uncertain'; why: string };

export interface Inclusion {
  txId: string;
  block: bigint;
  /** False when the transaction reverted (its nonce and fee are spent, nothing moved). */
  ok: boolean;
  feePaid: bigint;
  /** What the chain says of a failed one, where it says more than "reverted" (XRP's tec code, Tron's result). */
  failure?: string;
}

/** Context of one transfer at preparation time. */
export interface PrepareContext {
  /** Network fees already paid by this reference's transfers from the same address (for pays_own_fee). */
  feesPaidBefore: bigint;
  /** Unsent transfers from the same address (this one included), for a top-up that covers them all. */
  unsentFromSender: readonly TransferRow[];
  /**
   * Of a deposit address's native coin, what customers' deposits not yet moved by any transfer hold
   * (their own settlement will send it): not available for this transfer's fees. A query, made only
   * by a family that pays fees from that balance (Tron).
   */
  heldForDeposits?: () => Promise<bigint>;
  /**
   * The other transfers of the same reference from the same address with their signed transactions,
   * given to a family that sends them all in one transaction (`oneTransactionPerReference`): a
   * transfer another one's transaction already carries is signed as that same transaction.
   */
  siblings?: ReadonlyArray<{ row: TransferRow; attempts: readonly AttemptRow[] }>;
}

export interface TransferFamily {
  readonly chain: Chain;
  /** Whether senders have nonces (EVM, XRP sequences) the core allocates. */
  readonly usesNonces: boolean;
  /** How long a sent transaction may stay unmined before it is looked at again (re-broadcast or fee bump). */
  readonly stuckAfterMs: number;
  /**
   * Whether the transfers of one reference from one address leave in one transaction (UTXO: the
   * merchant's `net` and the service's share are two outputs of the transaction spending the
   * deposit); the core then hands `siblings` to `prepare`.
   */
  readonly oneTransactionPerReference?: boolean;
  /** The hot wallet of the chain in a mode (gas top-ups leave from it). */
  hotAddress(livemode: boolean): string;
  /**
   * Settings the hot wallet of a mode must carry, each made once by an `account_setting` transfer
   * (recorded before it is signed, like any transfer; `reference` says which, and a reference is
   * recorded only once). XRP: RequireDest on the service address.
   */
  accountSettings?(livemode: boolean): readonly string[];
  tip(): Promise<bigint>;
  /** Transactions of `address` in the best chain ('latest'), or as of block `at`. */
  chainNonce(address: string, at?: bigint): Promise<bigint>;
  prepare(t: TransferRow, ctx: PrepareContext): Promise<Preparation>;
  /** A replacement of `last` with a higher fee and the same nonce; null when it cannot be afforded. */
  replace(t: TransferRow, last: AttemptRow, ctx: PrepareContext): Promise<SignedTx | null>;
  broadcast(raw: string): Promise<BroadcastOutcome>;
  /** The first of these transactions found in the best chain. */
  inclusion(txIds: readonly string[]): Promise<Inclusion | null>;
  /** Whether the node still knows the transaction (in its pool or a block). */
  known(txId: string): Promise<boolean>;
  /**
   * Chains without nonces (UTXO): whether another transaction in the best chain, at or below
   * `finalHeight`, spends an input of these attempts (all spend the same ones), so that none of them
   * can ever be mined: what a nonce used for good is on the others.
   */
  spentElsewhere?(attempts: readonly AttemptRow[], finalHeight: bigint): Promise<boolean>;
  /**
   * Whether an unmined transaction can never be mined any more (XRP: a validated ledger past its
   * LastLedgerSequence): it is not broadcast again but replaced with the same nonce at once.
   */
  expired?(last: AttemptRow, tip: bigint): boolean;
}

/** What becomes of the things transfers are made for (settlements, payouts), in the transfer's transaction. */
export interface TransferOutcomes {
  final(tx: Executor, t: TransferRow, now: Date): Promise<void>;
  failed(tx: Executor, t: TransferRow, note: string, now: Date): Promise<void>;
  /** Not sent because its network fee would take all it moves (`nothing_left`): no longer open either. */
  canceled(tx: Executor, t: TransferRow, note: string, now: Date): Promise<void>;
}

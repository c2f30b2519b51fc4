// What the settlement executor needs from other rooms, as interfaces they implement.
import type { Executor } from '../platform/db/index.ts';
import type { Actor } from '../audit/index.ts';
import type { Chain } from '../config.ts';
import type { Decimal } from '../money/index.ts';
import type { TokenSymbol } from '../tokens/index.ts';
import type { SettlementSetting, ConvertInto } from './planner.ts';

/**
 * What a transfer is for. `settlement`: the merchant's money to its payout address, arriving exactly.
 * `service_fee`: the service's share of a deposit (its fee and the network fee) to its own wallet;
 * where the deposit address pays the network (a native coin) the fees come off it. `sweep`: a deposit
 * kept in a balance, all of it to the service's wallet (fees off it likewise). `payout`: from the
 * service's hot wallet to a merchant's payout address, arriving exactly.
 */
export type TransferKind = 'settlement' | 'service_fee' | 'sweep' | 'payout';

/** One transfer on chain. Implemented by the chain room: it records the intent in `tx` and sends after commit. */
export interface TransferRequest {
  chain: Chain;
  token: TokenSymbol;
  /** The deposit address the money sits on; absent: the service's hot wallet (payouts). */
  from?: string;
  /** Absent for the service's share and sweeps (the service's own wallet). */
  to?: string;
  amount: bigint;
  tag?: number;
  /** Default: `settlement` with a `to`, `service_fee` without. */
  purpose?: TransferKind;
  /** The settlement or payout it belongs to. */
  reference: string;
}

/** Where a recorded transfer stands, as the settlement room needs to know it. */
export interface TransferState {
  /** `pending` until final on chain (or given up: `failed`; canceled counts as failed). */
  status: 'pending' | 'final' | 'failed';
  /** Waiting for the service's hot wallet to be funded. */
  waiting_funds: boolean;
  tx_id?: string;
  /** The last failure or wait, for notes. */
  why?: string;
}

export interface TransferPort {
  /** Records the transfer's intent; returns its id. Completion is reported through completeSettlement/failSettlement. */
  send(tx: Executor, req: TransferRequest): Promise<string>;
  /** Whether transfers on `chain` can be made now (a family and a node for it); default yes. */
  supports?(chain: Chain): boolean;
  /** Tries the failed transfers of a reference again; returns how many. */
  retry?(tx: Executor, reference: string): Promise<number>;
  /**
   * Cancels the transfers of a reference that nothing was signed for yet; false when one may already
   * be on its way (it can no longer be called back). `only`: just that transfer of the reference,
   * its others left as they are (a treasury conversion's payout, its sweep final); false when the
   * reference has no such transfer.
   */
  cancel?(tx: Executor, reference: string, only?: string): Promise<boolean>;
  /** Where a transfer `send` recorded stands; null when unknown. */
  state?(tx: Executor, id: string): Promise<TransferState | null>;
  /**
   * Locks the row of a transfer `send` recorded until `tx` ends. Lock order: a transfer's row before
   * the row of the settlement it belongs to, as the chain room takes them (it ends a transfer, then
   * completes or fails its settlement, in one transaction).
   */
  lock?(tx: Executor, id: string): Promise<void>;
  /**
   * Locks the rows of every transfer of a reference until `tx` ends (none yet: nothing), in the
   * same lock order: before the row of the settlement or payout it belongs to.
   */
  lockReference?(tx: Executor, reference: string): Promise<void>;
}

/** The payment a settlement is made for: the settings it captured at creation. */
export interface SettlePayment {
  id: string;
  merchant_id: string;
  store_id?: string;
  livemode: boolean;
  token: TokenSymbol | '';
  /** Decimal string: the dollar price of one token locked at coin choice. */
  rate_locked?: string;
  /**
   * Base units of `token` (decimal string): the network fee recorded on the payment when its coin
   * was chosen (spec 1 "Fees"); a deposit of that coin is charged it. Absent: priced when it settles.
   */
  network_fee?: string;
  fee_bps: number;
  settlement: SettlementSetting;
  convert_into: ConvertInto;
  webhook_url?: string;
  deposit_address?: string;
}

export interface SettleDeposit {
  tx_id: string;
  token: TokenSymbol;
  /** Base units. */
  amount: bigint;
  /** Decimal string (at rate_locked, or market price for another coin). */
  usd_value: string;
  final_at: Date;
}

export interface SettleInput { payment: SettlePayment; deposits: readonly SettleDeposit[] }

/**
 * Loads what a closed payment settles: the payment and its final deposits ready to settle (the
 * payments room decides: none while the payment is still short or a deposit of that coin is
 * confirming). Null when the payment is unknown.
 */
export type DepositsPort = (tx: Executor, paymentId: string) => Promise<SettleInput | null>;

/**
 * A live settlement's service fee, final now: recorded in the ledger, or, when the real network fee
 * may still change it (real-network-fee.ts recordsRealNetworkFee), completed with that fee or returned.
 */
export interface FinalServiceFee {
  merchantId: string;
  paymentId: string;
  /** `<payment id>:<transaction id>` of the (first) deposit settled. */
  reference: string;
  /** Dollar value of the deposit(s) settled. */
  depositUsd: Decimal;
  /** The service fee, in dollars to the cent. */
  feeUsd: Decimal;
  at: Date;
}

/**
 * Told of every live service fee once it is final, in that transaction (the referral program credits
 * its commission there); it may be told of one twice and must then change nothing.
 */
export type ServiceFeePort = (tx: Executor, fee: FinalServiceFee) => Promise<void>;

/**
 * Why no payout of `token` may go to `address` (the service's own address, a token contract), or
 * null. Implemented by the chain room (chains/wallets/own-addresses.ts); `ex` reads the payments.
 */
export type OwnAddressCheck = (ex: Executor, token: TokenSymbol, address: string) => Promise<string | null>;

/**
 * Why payouts to an address can no longer go there: it was deleted, or its address or tag was
 * changed (the payouts keep the old one). The word ends the note `its payout address was <reason>`.
 */
export type AddressRetirement = 'deleted' | 'changed';

/**
 * Told that a payout address is being retired (deleted, or moved to another address or tag), in that
 * transaction before the address's row changes (the referral program cancels its payouts still
 * requested to it).
 */
export type AddressRetiredPort = (tx: Executor, address: { id: string; merchantId: string; livemode: boolean; token: string }, by: { userId: string; actor: Actor }, reason: AddressRetirement, now: Date) => Promise<void>;

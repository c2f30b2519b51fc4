// planSettlement: one settlement of one coin of a closed payment (spec 2, Settlement object),
// with the ledger entries it implies and any automatic payout (rule 6). Pure: no I/O, no clock.
import { dec, type Decimal } from '../money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import { autoPayout, type AutoPayoutRequest } from './auto-payout.ts';
import { BALANCE_TOKEN, NoMarketRateError, rateOf, type ConversionVia } from './conversion-paths.ts';
import { conversionFeeUnits, networkFeeUnits, serviceFeeUnits, splitUsd, usdRate, type CoinSplit, type UsdSplit } from './fees.ts';
import { ledgerEntries, type LedgerEntryPlan } from './ledger.ts';
import { conversionFeeBps, routeCoin, type Route } from './routing.ts';
import { checkSwap, marketConversion } from './swap-guard.ts';
import type { ConvertInto, MarketQuotes, PayoutAddressInput, SettlementSetting } from './types.ts';

export const NOTE_SMALLER_THAN_FEES = 'smaller than its fees';
/** Live: a rate the plan needs has no current price; nothing is priced from a stale one. */
export const NOTE_WAITING_PRICE = 'waiting for a current market price';
/** How soon a settlement waiting for a price is planned again (the replan job runs every minute). */
export const WAITING_PRICE_RETRY_MS = 60_000;

export interface PlanPayment {
  id: string;
  store_id?: string;
  livemode: boolean;
  /** The payment's coin and its locked rate: the service fee's floor uses it for that coin. */
  token: TokenSymbol | '';
  rate_locked?: Decimal;
  /** Base units of `token`: the network fee recorded when the coin was chosen (spec 1 "Fees"). */
  network_fee?: bigint;
  /** Settings captured at creation. */
  fee_bps: number;
  settlement: SettlementSetting;
  convert_into: ConvertInto;
}

export interface PlanDeposit {
  tx_id: string;
  token: TokenSymbol;
  amount: bigint;
  usd_value: Decimal;
  /** When it became final (rule 3's 48 h cap counts from the latest). Default `now`. */
  final_at?: Date;
}

export interface PlanInput {
  payment: PlanPayment;
  /** Deposits of ONE coin settled together (one service fee on the total, one network fee). */
  deposits: readonly PlanDeposit[];
  addresses: readonly PayoutAddressInput[];
  market: MarketQuotes;
  now: Date;
  /** USDT_TRC20 available before this plan; rule 6's automatic payout takes all of it. Default 0. */
  balance_available?: bigint;
  /**
   * The merchant is suspended: rule 6's automatic payout is not requested, the fallback stays in the
   * balance, and the automatic run (auto-retry.ts) pays it once they are reinstated.
   */
  payouts_paused?: boolean;
  /** Live: the coins the service can pay out from its hot wallets (conversion targets); absent: all. */
  can_pay_out?: (to: TokenSymbol, from: TokenSymbol) => boolean;
  /** The executor refused the conversion at execution (rule 5's guard): rule 6 with this note. */
  refuse_conversion?: string;
}

export type SettlementStatus = 'pending' | 'completed' | 'held';

export interface ConversionPlan {
  via: ConversionVia;
  from: TokenSymbol;
  amount_in: bigint;
  to: TokenSymbol;
  amount_out: bigint;
  status: 'pending' | 'done' | 'skipped';
  note?: string;
  /** A swap's least acceptable output (rule 5); the executor refuses less. */
  min_amount_out?: bigint;
}

/** One on-chain transfer the executor makes (rule 7: none for the service's share on XRP). */
export interface TransferPlan { purpose: 'settlement' | 'service_fee'; token: TokenSymbol; amount: bigint; address?: string; tag?: number }

export interface SettlementPlan extends CoinSplit, UsdSplit {
  payment_id: string;
  store_id?: string;
  livemode: boolean;
  mode: 'direct' | 'custodial';
  token: TokenSymbol;
  chain: Chain;
  deposit_tx: string;
  deposit_txs?: string[];
  usd_rate: Decimal;
  destination?: string;
  destination_tag?: number;
  status: SettlementStatus;
  note?: string;
  awaits_address?: { until: Date };
  conversion?: ConversionPlan;
  /** When a swap was skipped (rule 5): the purchase into the USDT_TRC20 balance the ledger records. */
  balance_purchase?: ConversionPlan;
  completed_at?: Date;
  /** Absent while the plan waits for a price. */
  route?: Route;
  transfers: TransferPlan[];
  /** Entries to write when the plan is carried out; empty while it awaits an address. */
  ledger: LedgerEntryPlan[];
  /** What stays in the balance per token (sum of `ledger` per token, computed independently). */
  balance_credit: { token: TokenSymbol; amount: bigint }[];
  payout_request?: AutoPayoutRequest;
  /** Plan again at this time (the awaited address's activation or the 48 h cap). */
  replan_at?: Date;
  /** A payout address the deposit was kept from (PayoutAddressInput.refused: routing.ts), and why. */
  refused_address?: { id: string; refusal: string };
}

export function planSettlement(input: PlanInput): SettlementPlan {
  const { deposits } = input;
  if (deposits.length === 0) throw new Error('a settlement needs at least one deposit');
  const token = deposits[0].token;
  if (deposits.some((d) => d.token !== token)) throw new Error('a settlement settles one coin');
  const amount = deposits.reduce((s, d) => s + d.amount, 0n);
  const usdExact = deposits.reduce((s, d) => s.plus(d.usd_value), dec(0));
  try {
    return planPriced(input, token, amount, usdExact);
  } catch (err) {
    // Only a live market lacks rates (a stale coin has none): test figures are complete.
    if (err instanceof NoMarketRateError && input.payment.livemode) return waitingForPrice(input, token, amount, usdExact);
    throw err;
  }
}

/**
 * A live settlement whose coin (or the coin it converts into) has no current price: nothing moves
 * and nothing is written to the ledger; it stays pending and is planned again a minute later. Its
 * figures are the deposit's, no fee taken yet.
 */
function waitingForPrice(input: PlanInput, token: TokenSymbol, amount: bigint, usdExact: Decimal): SettlementPlan {
  const { payment, deposits } = input;
  const split: CoinSplit = { amount, service_fee: 0n, network_fee: 0n, conversion_fee: 0n, net: amount };
  const usd = splitUsd(usdExact, split);
  return {
    payment_id: payment.id, ...(payment.store_id ? { store_id: payment.store_id } : {}), livemode: payment.livemode,
    token, chain: TOKEN_DEFS[token].chain, deposit_tx: deposits[0].tx_id,
    ...(deposits.length > 1 ? { deposit_txs: deposits.map((d) => d.tx_id) } : {}),
    ...split, ...usd, usd_rate: usdRate(token, usd.usd_value, amount),
    mode: payment.settlement === 'direct' ? 'direct' : 'custodial', status: 'pending', note: NOTE_WAITING_PRICE,
    replan_at: new Date(input.now.getTime() + WAITING_PRICE_RETRY_MS),
    transfers: [], ledger: [], balance_credit: [],
  };
}

function planPriced(input: PlanInput, token: TokenSymbol, amount: bigint, usdExact: Decimal): SettlementPlan {
  const { payment, deposits, market, now } = input;
  const rate = payment.token === token && payment.rate_locked ? payment.rate_locked : rateOf(market.rates, token);
  const service = serviceFeeUnits(token, amount, payment.fee_bps, rate);
  // The payment's own coin pays the network fee recorded on the payment at coin choice (what the
  // customer was asked for); any other coin's is priced now (spec 1 "Fees").
  const network = payment.token === token && payment.network_fee !== undefined
    ? payment.network_fee
    : networkFeeUnits(token, market.network_fee_usd[token] ?? dec(0), rate);
  const depositAt = new Date(Math.max(...deposits.map((d) => (d.final_at ?? now).getTime())));
  const route = routeCoin({
    token, livemode: payment.livemode, settlement: payment.settlement, convert_into: payment.convert_into,
    addresses: input.addresses, market, amount: amount - service - network > 0n ? amount - service - network : 0n, now, deposit_at: depositAt,
    ...(input.can_pay_out ? { can_pay_out: input.can_pay_out } : {}), ...(input.refuse_conversion ? { refuse_conversion: input.refuse_conversion } : {}),
  });
  const base = {
    payment_id: payment.id, ...(payment.store_id ? { store_id: payment.store_id } : {}), livemode: payment.livemode,
    token, chain: TOKEN_DEFS[token].chain, deposit_tx: deposits[0].tx_id,
    ...(deposits.length > 1 ? { deposit_txs: deposits.map((d) => d.tx_id) } : {}),
    reference: `${payment.id}:${deposits[0].tx_id}`, amount, usdExact, service, network, route,
  };
  const plan = buildPlan(base, input);
  // kept from an address no payout may go to: the merchant's money stays with the merchant, who is told
  return route.kind === 'balance_fallback' && route.refused ? { ...plan, refused_address: route.refused } : plan;
}

export interface PlanBase {
  payment_id: string; store_id?: string; livemode: boolean; token: TokenSymbol; chain: Chain; deposit_tx: string; deposit_txs?: string[];
  reference: string; amount: bigint; usdExact: Decimal; service: bigint; network: bigint; route: Route;
}

function buildPlan(b: PlanBase, input: PlanInput): SettlementPlan {
  const { route, token, amount } = b;
  const direct = input.payment.livemode ? input.payment.settlement === 'direct' : route.kind === 'as_is';
  if (b.service + b.network >= amount) return held(b, direct);
  const afterFees = amount - b.service - b.network;
  const asItIs = route.kind === 'as_is' || route.kind === 'awaits_address' || route.kind === 'balance'
    || (route.kind === 'balance_fallback' && route.from === BALANCE_TOKEN);
  if (asItIs) {
    return finish(b, input, { service_fee: b.service, network_fee: b.network, conversion_fee: 0n, net: afterFees });
  }
  const convFee = conversionFeeUnits(token, afterFees, conversionFeeBps(route));
  if (convFee >= afterFees) return held(b, direct);
  const split = { service_fee: b.service, network_fee: b.network, conversion_fee: convFee, net: afterFees - convFee };
  if (route.kind === 'swap') {
    const check = checkSwap(token, route.to, split.net, input.market);
    if (!check.ok) {
      const skipped: ConversionPlan = { via: 'swap', from: token, amount_in: split.net, to: route.to, amount_out: check.amount_out, status: 'skipped', note: check.reason };
      const fallback = buildPlan({ ...b, route: { kind: 'balance_fallback', from: token, reason: check.reason } }, input);
      return fallback.status === 'held' ? fallback : { ...fallback, conversion: skipped, ...(fallback.conversion ? { balance_purchase: fallback.conversion } : {}) };
    }
    return finish(b, input, split, { via: 'swap', from: token, amount_in: split.net, to: route.to, amount_out: check.amount_out, status: 'pending', min_amount_out: check.min_amount_out });
  }
  if (route.kind === 'exchange') {
    return finish(b, input, split, { via: 'exchange', from: token, amount_in: split.net, to: route.to, amount_out: marketConversion(token, route.to, split.net, input.market), status: 'pending' });
  }
  // platform, or a rule 6 fallback of a coin other than USDT_TRC20: bought at market into the balance
  const note = route.kind === 'balance_fallback' ? route.reason : undefined;
  return finish(b, input, split, { via: 'platform', from: token, amount_in: split.net, to: BALANCE_TOKEN, amount_out: marketConversion(token, BALANCE_TOKEN, split.net, input.market), status: 'done', ...(note ? { note } : {}) });
}

/**
 * Nothing left after fees: the fees take the whole deposit in order (service, network, then the
 * conversion fee takes what is left), nothing moves and nothing stays in the balance.
 */
function held(b: PlanBase, direct: boolean): SettlementPlan {
  const service_fee = b.service < b.amount ? b.service : b.amount;
  const afterService = b.amount - service_fee;
  const network_fee = b.network < afterService ? b.network : afterService;
  const split: CoinSplit = { amount: b.amount, service_fee, network_fee, conversion_fee: b.amount - service_fee - network_fee, net: 0n };
  const usd = splitUsd(b.usdExact, split);
  return {
    ...stripBase(b), ...split, ...usd, usd_rate: usdRate(b.token, usd.usd_value, b.amount), mode: direct ? 'direct' : 'custodial',
    status: 'held', note: NOTE_SMALLER_THAN_FEES, transfers: [], balance_credit: [],
    ledger: ledgerEntries({ token: b.token, split, usd, reference: b.reference, to_wallet: false }),
  };
}

function stripBase(b: PlanBase): Omit<PlanBase, 'reference' | 'usdExact' | 'service' | 'network' | 'amount'> {
  const { reference: _r, usdExact: _u, service: _s, network: _n, amount: _a, ...rest } = b;
  return rest;
}

function finish(b: PlanBase, input: PlanInput, fees: Omit<CoinSplit, 'amount'>, conversion?: ConversionPlan): SettlementPlan {
  const { route, token } = b;
  const split: CoinSplit = { amount: b.amount, ...fees };
  const usd = splitUsd(b.usdExact, split);
  const live = input.payment.livemode;
  const wallet = route.kind === 'as_is' || route.kind === 'awaits_address' || route.kind === 'swap' || route.kind === 'exchange' ? route.address : undefined;
  const awaiting = route.kind === 'awaits_address';
  const note = route.kind === 'balance_fallback' ? route.reason : undefined;
  const sent = conversion ? { token: conversion.to, amount: conversion.amount_out } : { token, amount: split.net };
  const status: SettlementStatus = wallet && (live || awaiting) ? 'pending' : 'completed';
  const transfers: TransferPlan[] = [];
  if (wallet && live) {
    transfers.push({ purpose: 'settlement', ...sent, address: wallet.address, ...(wallet.tag !== undefined ? { tag: wallet.tag } : {}) });
    // The service's share: everything the merchant does not get (its fee, the network fee the
    // transfers are paid from, a conversion's fee). Rule 7: on XRP it stays on the shared address.
    if (token !== 'XRP') transfers.push({ purpose: 'service_fee', token, amount: split.service_fee + split.network_fee + split.conversion_fee });
  }
  const balance_credit = wallet ? [] : [sent];
  let payout_request: AutoPayoutRequest | undefined;
  if (live && !input.payouts_paused && route.kind === 'balance_fallback' && input.payment.settlement === 'direct' && sent.token === BALANCE_TOKEN) {
    payout_request = autoPayout((input.balance_available ?? 0n) + sent.amount, input.addresses, input.now);
  }
  return {
    ...stripBase(b), ...split, ...usd, usd_rate: usdRate(token, usd.usd_value, b.amount),
    mode: wallet ? 'direct' : 'custodial', status,
    ...(wallet ? { destination: wallet.address } : {}),
    ...(wallet?.tag !== undefined ? { destination_tag: wallet.tag } : {}),
    ...(note ? { note } : {}),
    ...(awaiting ? { awaits_address: { until: route.until }, replan_at: route.until } : {}),
    ...(conversion ? { conversion } : {}),
    ...(status === 'completed' ? { completed_at: input.now } : {}),
    transfers, balance_credit,
    ledger: awaiting ? [] : ledgerEntries({ token, split, usd, reference: b.reference, converted: conversion ? { to: conversion.to, amount_out: conversion.amount_out } : undefined, to_wallet: !!wallet, note }),
    ...(payout_request ? { payout_request } : {}),
  };
}

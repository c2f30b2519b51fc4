// Carries out one settlement plan in the caller's transaction: the settlement row (new, or the
// waiting one planned again), its ledger entries and balances, transfer intents for live direct
// settlements, rule 6's automatic payout, and the events.
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { appendEvent } from '../events/index.ts';
import { SETTLEMENT_EVENTS } from '../events/webhook-types.ts';
import type { MarketData } from '../market/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../tokens/index.ts';
import type { Chain } from '../config.ts';
import type { LedgerEntryPlan, SettlementPlan } from './planner.ts';
import type { OwnAddressCheck, ServiceFeePort, SettleDeposit, SettlePayment, TransferPort } from './ports.ts';
import { tellRefused } from './refused-address.ts';
import { emitBalances, postEntries } from './balance-store.ts';
import { addressById } from './address-store.ts';
import { createPayoutOrWait } from './payouts/payout-store.ts';
import { ledgerEntries, settlementDeposits, settlements, type SettlementRow } from './schema.ts';
import { recordsRealNetworkFee } from './real-network-fee.ts';
import { settlementJson, SWEEP_NONE, type StoredConversion } from './json.ts';
import { storeInput } from './stored-input.ts';
import { settlementReference } from './ledger.ts';

/**
 * Whether a deposit kept by the service must be swept into its wallet: not when there is no deposit
 * address, nor on XRP, whose deposits are paid to the service address itself (the XRP hot wallet,
 * spec direct rule 7): a sweep there would pay that address to itself, which the XRP family refuses.
 */
export function needsSweep(token: string, depositAddress: string | null | undefined): depositAddress is string {
  return !!depositAddress && token !== 'XRP';
}

/** A live direct settlement stays pending with this note until the chain room provides transfers. */
export const NOTE_WAITING_TRANSFER = 'waiting for the chain transfer service';
/** A live direct settlement to be swapped or exchanged first while its deposit's chain cannot send: it waits for that. */
export const NOTE_WAITING_CONVERSION = 'waiting for the conversion service';
/** A live conversion under way: the deposit is being swept into the service's wallet (conversions.ts). */
export const NOTE_CONVERTING = "converting: the deposit is moving to the service's wallet";

export interface WriteContext {
  payment: SettlePayment;
  deposits: readonly SettleDeposit[];
  market: MarketData;
  transfers: TransferPort | null;
  fees?: ServiceFeePort | null;
  /** Refuses the service's own addresses and token contracts (rule 6's automatic payout). */
  ownAddresses: OwnAddressCheck;
  now: Date;
  /** The deposit already left for the service's wallet (a refused conversion): no sweep again, these intents kept. */
  swept?: string[];
}

/** A live direct settlement the service's treasury converts (conversions.ts): swept first, paid from a hot wallet. */
export function treasuryConversion(plan: SettlementPlan): boolean {
  const c = plan.conversion;
  return plan.livemode && plan.mode === 'direct' && plan.status === 'pending' && !plan.awaits_address
    && c?.status === 'pending' && (c.via === 'swap' || c.via === 'exchange');
}

function storedConversion(plan: SettlementPlan): StoredConversion | null {
  const c = plan.conversion;
  if (!c) return null;
  return { via: c.via, from: c.from, amount_in: c.amount_in.toString(), to: c.to, amount_out: c.amount_out.toString(), status: c.status, ...(c.note ? { note: c.note } : {}) };
}

export async function writePlan(tx: Executor, plan: SettlementPlan, ctx: WriteContext, existing?: SettlementRow): Promise<SettlementRow> {
  const { payment, now } = ctx;
  const id = existing?.id ?? newId('stl', now);
  const treasury = treasuryConversion(plan);
  const sends = plan.status === 'pending' && !plan.awaits_address && plan.transfers.length > 0 && !treasury;
  const converts = plan.conversion?.status === 'pending';
  const port = converts ? null : transfersFor(ctx.transfers, plan.chain);
  const from = payment.deposit_address ? { from: payment.deposit_address } : {};
  const intents: string[] = [...(ctx.swept ?? [])];
  if (sends && port) {
    for (const t of plan.transfers) {
      intents.push(await port.send(tx, {
        chain: plan.chain, token: t.token, ...from, ...(t.address ? { to: t.address } : {}), amount: t.amount,
        ...(t.tag !== undefined ? { tag: t.tag } : {}), purpose: t.purpose, reference: id,
      }));
    }
  }
  // A live deposit kept in a balance (custodial, scheduled, rule 6) is the service's now: swept into its
  // wallet. An XRP deposit already is there (its address is the service address: rule 7).
  if (plan.livemode && plan.mode === 'custodial' && plan.status === 'completed' && port && needsSweep(plan.token, payment.deposit_address) && !ctx.swept) {
    intents.push(await port.send(tx, { chain: plan.chain, token: plan.token, ...from, amount: plan.amount, purpose: 'sweep', reference: id }));
  }
  let note = sends && !port ? NOTE_WAITING_TRANSFER : plan.note ?? null;
  let conversion = storedConversion(plan);
  // A treasury conversion starts with the sweep of the deposit; it is carried on by conversions.ts.
  // Its ledger entries wait until it is carried out (priced and guarded at that moment).
  const treasuryPort = treasury ? transfersFor(ctx.transfers, plan.chain) : null;
  if (treasury) {
    note = treasuryPort ? NOTE_CONVERTING : NOTE_WAITING_CONVERSION;
    conversion = { ...conversion!, treasury: true };
    if (treasuryPort) {
      const sweep = needsSweep(plan.token, payment.deposit_address)
        ? await treasuryPort.send(tx, { chain: plan.chain, token: plan.token, from: payment.deposit_address, amount: plan.amount, purpose: 'sweep', reference: id })
        : SWEEP_NONE;
      if (sweep !== SWEEP_NONE) intents.push(sweep);
      conversion = { ...conversion!, sweep };
    }
  }
  const row: SettlementRow = {
    id, merchantId: payment.merchant_id, paymentId: plan.payment_id, storeId: plan.store_id ?? null, livemode: plan.livemode,
    mode: plan.mode, token: plan.token, chain: plan.chain, depositTx: plan.deposit_tx, depositTxs: plan.deposit_txs ?? null,
    amount: plan.amount, serviceFee: plan.service_fee, networkFee: plan.network_fee, conversionFee: plan.conversion_fee, net: plan.net,
    usdValue: plan.usd_value, usdRate: plan.usd_rate, serviceFeeUsd: plan.service_fee_usd, networkFeeUsd: plan.network_fee_usd,
    conversionFeeUsd: plan.conversion_fee_usd, netUsd: plan.net_usd, destination: plan.destination ?? null,
    destinationTag: plan.destination_tag ?? null, txId: null, status: plan.status, note,
    awaitsUntil: plan.awaits_address?.until ?? null, replanAt: plan.replan_at ?? null, conversion,
    input: storeInput(payment, ctx.deposits), webhookUrl: payment.webhook_url ?? null,
    transferIntents: intents.length > 0 ? intents : null, createdAt: existing?.createdAt ?? now, updatedAt: now,
    completedAt: plan.completed_at ?? null,
  };
  if (existing) {
    const { id: _id, createdAt: _c, ...changes } = row;
    await tx.update(settlements).set(changes).where(eq(settlements.id, id));
  } else {
    await tx.insert(settlements).values(row);
    await tx.insert(settlementDeposits).values(ctx.deposits.map((d) => ({ paymentId: payment.id, txId: d.tx_id, settlementId: id })));
  }
  const key = { merchantId: payment.merchant_id, livemode: plan.livemode };
  if (!treasury) await postLedger(tx, row, plan.ledger, ctx.fees ?? null, now);
  if (plan.payout_request) {
    const address = await addressById(tx, payment.merchant_id, plan.payout_request.address_id);
    // refused (e.g. the fee takes it all): the balance waits for the next one
    if (address) {
      await createPayoutOrWait(tx, {
        merchantId: payment.merchant_id, address, fromToken: plan.payout_request.from_token as TokenSymbol, amount: undefined,
        requestedBy: plan.payout_request.requested_by, market: ctx.market, now, ownAddresses: ctx.ownAddresses,
      });
    }
  }
  if (plan.refused_address) {
    // kept in the balance instead of sent to an address no payout may go to: the team is told why
    const address = await addressById(tx, payment.merchant_id, plan.refused_address.id);
    if (address) await tellRefused(tx, address, plan.refused_address.refusal, now);
  }
  if (plan.ledger.length > 0 && !treasury) await emitBalances(tx, key, now);
  await settlementEvents(tx, row, now);
  return row;
}

/**
 * A settlement's ledger entries, and its service fee to the referral program when it is final now.
 * A pending settlement whose real network fee is still to be recorded (recordsRealNetworkFee) is
 * not told here: what that fee moves changes `service_fee`, so it is told once it completes
 * (finalServiceFee).
 */
export async function postLedger(tx: Executor, row: SettlementRow, entries: readonly LedgerEntryPlan[], fees: ServiceFeePort | null, now: Date): Promise<void> {
  await postEntries(tx, { merchantId: row.merchantId, livemode: row.livemode }, entries, now, { paymentId: row.paymentId });
  if (row.status === 'pending' && recordsRealNetworkFee(row)) return;
  if (entries.some((e) => e.type === 'fee')) await tellServiceFee(tx, row, fees, now);
}

async function tellServiceFee(tx: Executor, row: SettlementRow, fees: ServiceFeePort | null, now: Date): Promise<void> {
  if (!row.livemode || !fees) return;
  await fees(tx, {
    merchantId: row.merchantId, paymentId: row.paymentId, reference: settlementReference(row),
    depositUsd: row.usdValue, feeUsd: row.serviceFeeUsd, at: now,
  });
}

/**
 * A settlement whose fee postLedger left untold (recordsRealNetworkFee) has it final now: completed
 * (with the real network fee recorded, or the quote standing when none was) or returned to the
 * balance. Its figures as they stand, told when its ledger charged a service fee (as postLedger
 * would have); nothing for any other settlement (told already) or in test mode.
 */
export async function finalServiceFee(tx: Executor, row: SettlementRow, fees: ServiceFeePort | null, now: Date): Promise<void> {
  if (!fees || !row.livemode || !recordsRealNetworkFee(row)) return;
  const [charged] = await tx.select({ seq: ledgerEntries.seq }).from(ledgerEntries).where(and(
    eq(ledgerEntries.paymentId, row.paymentId), eq(ledgerEntries.reference, settlementReference(row)), eq(ledgerEntries.type, 'fee'),
  )).limit(1);
  if (charged) await tellServiceFee(tx, row, fees, now);
}

/** The transfer service when it can send on `chain` now; null otherwise (the settlement waits for it). */
export function transfersFor(port: TransferPort | null, chain: Chain): TransferPort | null {
  return port && (port.supports?.(chain) ?? true) ? port : null;
}

/**
 * The planner's `can_pay_out` for live conversions: a target coin is paid from the service's hot
 * wallet of its chain, so that chain must be able to send. While the deposit's own chain cannot
 * send nothing moves at all, and the settlement waits for it as before (NOTE_WAITING_CONVERSION).
 */
export function canPayOut(port: TransferPort | null): ((to: TokenSymbol, from: TokenSymbol) => boolean) | undefined {
  if (!port) return undefined;
  return (to, from) => !transfersFor(port, TOKEN_DEFS[from].chain) || !!transfersFor(port, TOKEN_DEFS[to].chain);
}

/** `settlement:update` on every change; direct settlements also raise `settlement.completed`/`.failed`. */
export async function settlementEvents(tx: Executor, row: SettlementRow, now: Date): Promise<void> {
  const data = settlementJson(row);
  const base = { livemode: row.livemode, merchantId: row.merchantId, paymentId: row.paymentId, data, at: now };
  if (row.mode === 'direct' && (row.status === 'completed' || row.status === 'failed')) {
    await appendEvent(tx, { ...base, type: row.status === 'completed' ? SETTLEMENT_EVENTS.completed : SETTLEMENT_EVENTS.failed, webhookUrl: row.webhookUrl });
  }
  await appendEvent(tx, { ...base, type: 'settlement:update' });
}

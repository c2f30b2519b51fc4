// The coin choice (POST /checkout/{token}/token, POST /v1/payments/{id}/token): checks in the
// order of spec 7, then a compare-and-set on "still pending without a coin", so of two concurrent
// choices exactly one wins and the other gets 409.
import type { Database } from '../platform/db/index.ts';
import { badRequest, conflict } from '../platform/errors.ts';
import { dec } from '../money/index.ts';
import type { Timers } from '../platform/timers.ts';
import { checkChoice, coinFields, COIN_ALREADY_CHOSEN, NO_LONGER_PAYABLE, type CoinDeps } from './coin.ts';
import { findPayment, updatePaymentIf } from './repository.ts';
import type { PaymentRow } from './schema.ts';
import { emitPaymentEvent, SOCKET_EVENTS } from './payment-events.ts';
import { DEADLINE_TIMER } from './deadlines.ts';

export interface ChooseDeps extends CoinDeps {
  db: Database;
  timers: Timers;
}

export async function chooseCoin(deps: ChooseDeps, p: PaymentRow, tokenInput: unknown, now: Date): Promise<PaymentRow> {
  const token = checkChoice(p, tokenInput, deps.catalog, now);
  const fields = await coinFields(deps, { merchantId: p.merchantId, settings: p.settings, livemode: p.livemode, usdAmount: dec(p.usdAmount) }, token, now);
  return deps.db.transaction(async (tx) => {
    // The deadline's timer before the payment, in the order its handler takes them (the timer row,
    // then the payment): the other way round, a choice in the last moment of the hour and the
    // timer running then each held what the other waited for, and PostgreSQL aborted one. Now the
    // choice waits for a running timer (and then finds the payment expired) or the timer skips the
    // row the choice holds. Rolled back with the rest when the payment cannot take the coin.
    await deps.timers.schedule(tx, { kind: DEADLINE_TIMER, key: p.id, runAt: fields.expiresAt });
    const row = await updatePaymentIf(tx, p.id, { status: 'pending', token: '' }, { ...fields, updatedAt: now });
    if (!row) {
      const current = await findPayment(tx, p.id);
      if (current && current.token !== '') throw conflict(COIN_ALREADY_CHOSEN);
      throw badRequest(NO_LONGER_PAYABLE);
    }
    await emitPaymentEvent(tx, SOCKET_EVENTS.coinChosen, row, [], now);
    return row;
  });
}

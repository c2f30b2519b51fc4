// Recurring work of the settlement room: settlements waiting for an address are planned again when
// due (with the transfers, conversions and automatic payouts waiting), every minute; scheduled
// payouts run every hour (each merchant once a day, weekly ones on Mondays; `instant` ones also
// right after each credit). Both find what is due and do it, so a tick run twice is harmless.
import { HOUR_MS, MINUTE_MS, type RecurringWork } from '../platform/recurring.ts';
import type { SettlementService } from './service.ts';

export const REPLAN_WORK = 'settlement.replan';
export const SCHEDULED_PAYOUTS_WORK = 'settlement.scheduled-payouts';

export function scheduleSettlementWork(settlement: SettlementService, recurring: RecurringWork): void {
  recurring.every(REPLAN_WORK, MINUTE_MS, () => settlement.replanDue());
  recurring.every(SCHEDULED_PAYOUTS_WORK, HOUR_MS, (since) => settlement.runScheduledPayouts(undefined, since));
}

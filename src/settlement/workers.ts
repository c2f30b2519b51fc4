// Scheduled work of the settlement room through pg-boss: settlements waiting for an address are
// planned again when due, and scheduled payouts run every hour (each merchant once a day, weekly
// ones on Mondays; `instant` ones also right after each credit).
import type { Jobs } from '../platform/jobs.ts';
import type { SettlementService } from './service.ts';

export const REPLAN_QUEUE = 'settlement-replan';
export const SCHEDULED_PAYOUTS_QUEUE = 'scheduled-payouts';

export async function startSettlementWorkers(settlement: SettlementService, jobs: Jobs | null): Promise<void> {
  if (!jobs) return;
  await jobs.work(REPLAN_QUEUE, async () => { await settlement.replanDue(); });
  await jobs.every(REPLAN_QUEUE, '* * * * *');
  await jobs.work(SCHEDULED_PAYOUTS_QUEUE, async () => { await settlement.runScheduledPayouts(); });
  await jobs.every(SCHEDULED_PAYOUTS_QUEUE, '0 * * * *');
}

// The payment deadline as a durable timer at expires_at: the hour to choose a coin, then the 15
// minutes to pay. Choosing a coin moves the timer; a deadline that finds the payment detecting or
// closed changes nothing (applyChange decides), so running it twice is harmless. One that runs
// before expires_at (a failed attempt's retry moved it earlier, or anything else) sets itself again
// at expires_at: while a countdown runs its timer never goes missing, or the payment never expires.
import type { Timers } from '../platform/timers.ts';
import type { DepositIntake } from './intake.ts';
import { countdownRuns, type PaymentStatus } from './pure.ts';

export const DEADLINE_TIMER = 'payment.deadline';

export function registerDeadlines(timers: Timers, intake: DepositIntake): void {
  timers.handle(DEADLINE_TIMER, async (tx, t, now) => {
    const r = await intake.deadline(t.key, now, tx);
    if (r.kind !== 'recorded') return;
    const p = r.payment;
    if (countdownRuns(p.status as PaymentStatus) && p.expiresAt.getTime() > now.getTime()) {
      await timers.schedule(tx, { kind: DEADLINE_TIMER, key: p.id, runAt: p.expiresAt });
    }
  });
}

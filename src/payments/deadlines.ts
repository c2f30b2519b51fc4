// The payment deadline as a durable timer at expires_at: the hour to choose a coin, then the 15
// minutes to pay. Choosing a coin moves the timer; a deadline that finds the payment detecting or
// closed changes nothing (applyChange decides), so running it twice is harmless.
import type { Timers } from '../platform/timers.ts';
import type { DepositIntake } from './intake.ts';

export const DEADLINE_TIMER = 'payment.deadline';

export function registerDeadlines(timers: Timers, intake: DepositIntake): void {
  timers.handle(DEADLINE_TIMER, async (tx, t, now) => {
    await intake.deadline(t.key, now, tx);
  });
}

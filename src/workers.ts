// Background work: outbox subscribers, durable timers and the recurring work of every room,
// started after the app.
import type { Services } from './services.ts';
import { scheduleSettlementWork } from './settlement/index.ts';
import { transferPollMs } from './chains/sending/index.ts';
import { HOUR_MS, RecurringWork } from './platform/recurring.ts';
import { MAIL_PRUNE_WORK } from './mail/index.ts';
import type { ConversionWorker } from './settlement/conversion-worker.ts';

const conversionWorkers = new WeakMap<Services, ConversionWorker>();
const recurringWork = new WeakMap<Services, RecurringWork>();

export async function startWorkers(services: Services): Promise<void> {
  const { outbox, timers, clock, log } = services.platform;
  // Live rates refresh in the background: nothing waits for the first answers.
  services.market.start();
  // Subscribers attach before the dispatcher starts handing events over.
  await services.realtime.start();
  services.webhooks.start();
  outbox.start();
  // Every kind of timer has its handler before the scheduler looks at the table.
  const recurring = new RecurringWork(timers, clock, log);
  scheduleSettlementWork(services.settlement, recurring);
  recurring.every(MAIL_PRUNE_WORK, HOUR_MS, () => services.mail.prune());
  await recurring.start();
  recurringWork.set(services, recurring);
  timers.start();
  services.sending.start();
  // live conversions move as often as the transfer worker looks at the chains
  const conversions = services.settlement.conversionWorker(transferPollMs(services.platform.config));
  conversionWorkers.set(services, conversions);
  conversions.start();
  services.watching.start();
  services.mail.start();
}

export async function stopWorkers(services: Services): Promise<void> {
  await services.watching.stop();
  await services.mail.stop();
  // Recurring work hands transfers to the sending worker: it ends before that worker stops.
  await services.platform.timers.stop();
  await recurringWork.get(services)?.settled();
  await conversionWorkers.get(services)?.stop();
  await services.sending.stop();
  await services.payments.close();
  await services.platform.outbox.stop();
  await services.webhooks.stop();
  await services.realtime.stop();
  await services.market.stop();
}

// Background work: outbox subscribers and scheduled jobs of every room, started after the app.
import type { Services } from './services.ts';
import { startPaymentWorkers, stopPaymentWorkers } from './payments/index.ts';
import { startSettlementWorkers } from './settlement/index.ts';
import { transferPollMs } from './chains/sending/index.ts';
import type { ConversionWorker } from './settlement/conversion-worker.ts';

const conversionWorkers = new WeakMap<Services, ConversionWorker>();

export async function startWorkers(services: Services): Promise<void> {
  const { outbox } = services.platform;
  // Live rates refresh in the background: nothing waits for the first answers.
  services.market.start();
  // Subscribers attach before the dispatcher starts handing events over.
  await services.realtime.start();
  services.webhooks.start();
  outbox.start();
  startPaymentWorkers(services.payments);
  await startSettlementWorkers(services.settlement, services.platform.jobs);
  services.sending.start();
  // live conversions move as often as the transfer worker looks at the chains
  const conversions = services.settlement.conversionWorker(transferPollMs(services.platform.config));
  conversionWorkers.set(services, conversions);
  conversions.start();
  services.watching.start();
}

export async function stopWorkers(services: Services): Promise<void> {
  await services.watching.stop();
  await conversionWorkers.get(services)?.stop();
  await services.sending.stop();
  await stopPaymentWorkers(services.payments);
  await services.platform.outbox.stop();
  await services.webhooks.stop();
  await services.realtime.stop();
  await services.market.stop();
}

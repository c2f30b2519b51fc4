// Background work: outbox subscribers and scheduled jobs of every room, started after the app.
import type { Services } from './services.ts';

export async function startWorkers(services: Services): Promise<void> {
  const { outbox } = services.platform;
  services.webhooks.start(); // subscribes to the outbox before it starts dispatching
  outbox.start();
}

export async function stopWorkers(services: Services): Promise<void> {
  await services.platform.outbox.stop();
  await services.webhooks.stop();
}

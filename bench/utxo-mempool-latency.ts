// Issue "Live chains II": from a transaction entering a Litecoin node's mempool to the
// payment.detecting webhook reaching a receiver, on litecoind regtest with CHAIN_POLL_MS=500 and the
// watcher, outbox and webhook worker running as in production (their own timers and wake-ups).
// Each run pays N live LTC payments' deposit addresses one after another, each at a random moment
// of the poll interval; the time counts from the return of the node's `sendtoaddress` (the
// transaction is in its mempool then) to the webhook's arrival. Three runs; p50 and p99 of each.
// Target p99 < 1 s. Skips with one line where litecoind is absent.
// Run: node_modules/.bin/node bench/utxo-mempool-latency.ts [payments per run]
import './_interrupt.ts';
import { quantile, startDetectingReceiver } from './_detecting-receiver.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { testConfig } from '../test/harness/app.ts';
import { keyHeader, uid } from '../test/harness/accounts.ts';
import { owed } from '../test/harness/chain-send.ts';
import { litecoindAvailable, startLitecoind, LITECOIND_BIN } from '../test/harness/litecoind.ts';
import { ltcMerchant, ltcText, type LtcApp } from '../test/harness/utxo-send.ts';

const PER_RUN = Number(process.argv[2] ?? 50);
const RUNS = 3;
const POLL_MS = 500;

if (!litecoindAvailable()) {
  console.log(`utxo-mempool-latency skipped: ${LITECOIND_BIN} is absent (apt-get install -y litecoind)`);
  process.exit(0);
}

const receiver = await startDetectingReceiver();
const { hookUrl } = receiver;

const node = await startLitecoind();
// coinbase outputs enough to pay every payment from a confirmed coin (no long chains of unconfirmed change)
await node.mine(100);
const { db, drop } = await openScratchDatabase('pglite');
const config = testConfig({ LITECOIN_RPC_URL: node.url, CHAIN_POLL_MS: String(POLL_MS), CONFIRMATIONS_LITECOIN: '2' });
const platform = await bootPlatform(config, createLogger('silent'), { db });
const services = await createServices(platform);
const app = await buildApp(services);
await app.ready();
await services.sending.utxoReaders.litecoin!.network();
platform.outbox.start();
services.webhooks.start();
services.watching.start();
const t = { app, services, platform, config, node } as unknown as LtcApp;

const m = await ltcMerchant(t);
const createPayment = async (): Promise<{ id: string; address: string; amount: bigint }> => {
  const res = await app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(m.acct.liveKey), payload: { order_id: `o-${uid()}`, amount_usd: '20', token: 'LTC', webhook_url: hookUrl } });
  if (res.statusCode !== 201) throw new Error(`payment: ${res.statusCode} ${res.body}`);
  const p = res.json();
  return { id: p.id, address: p.deposit_address, amount: owed(p) };
};

const pct = quantile;
const reports: Array<{ p50: number; p99: number; max: number }> = [];
for (let run = 0; run < RUNS; run++) {
  const latencies: number[] = [];
  for (let i = 0; i < PER_RUN; i++) {
    const p = await createPayment();
    // the time counts from the transaction's arrival in the node's mempool
    latencies.push(await receiver.time(p.id, POLL_MS, () => node.pay(p.address, ltcText(p.amount))));
  }
  // the run's transactions leave the mempool; the next run starts after the watcher read that block
  await node.mine(1);
  await new Promise((r) => setTimeout(r, 2 * POLL_MS));
  const sorted = [...latencies].sort((a, b) => a - b);
  reports.push({ p50: Math.round(pct(sorted, 0.5)), p99: Math.round(pct(sorted, 0.99)), max: Math.round(sorted[sorted.length - 1]) });
}
console.log(JSON.stringify({ bench: 'utxo-mempool-latency', payments_per_run: PER_RUN, chain_poll_ms: POLL_MS, runs: reports, target_p99_ms: 1000 }));

await services.watching.stop();
await services.webhooks.stop();
await platform.outbox.stop();
await app.close();
await services.payments.close();
await drop();
await node.close();
receiver.close();

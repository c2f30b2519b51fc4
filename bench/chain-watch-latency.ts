// P6 (issue 13): from a block mined on anvil to the payment.detecting webhook reaching a receiver,
// over 200 live ETH payments, with CHAIN_POLL_MS=500 and the watcher, outbox and webhook worker
// running as in production (their own timers and wake-ups). Each payment is paid at a random moment
// of the poll interval, one after another; the time counts from the return of the transaction's
// submission (anvil automines it before answering) to the webhook's arrival. Target p99 < 1 s.
// The database is PostgreSQL (TEST_DATABASE_URL, as production runs) unless P6_DB=pglite: PGlite has
// one connection, so the outbox's dispatch waits behind the watcher's next transactions.
// Run: node_modules/.bin/node bench/chain-watch-latency.ts [payments]
import './_interrupt.ts';
import { quantile, startDetectingReceiver } from './_detecting-receiver.ts';
import type { Address } from 'viem';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { testConfig } from '../test/harness/app.ts';
import { startAnvil } from '../test/harness/anvil.ts';
import { keyHeader, uid } from '../test/harness/accounts.ts';
import { merchantWithAddresses, owed, type ChainApp } from '../test/harness/chain-send.ts';

const COUNT = Number(process.argv[2] ?? 200);
const POLL_MS = 500;

const receiver = await startDetectingReceiver();
const { hookUrl } = receiver;

const eth = await startAnvil({ chainId: 1 });
const DB_KIND = process.env.P6_DB === 'pglite' ? 'pglite' : 'postgres';
const { db, drop } = await openScratchDatabase(DB_KIND);
const config = testConfig({ ETHEREUM_RPC_URL: eth.url, CHAIN_POLL_MS: String(POLL_MS), CONFIRMATIONS_ETHEREUM: '3' });
const platform = await bootPlatform(config, createLogger('silent'), { db });
const services = await createServices(platform);
const app = await buildApp(services);
await app.ready();
platform.outbox.start();
services.webhooks.start();
services.watching.start();
const t = { app, services, platform, config } as unknown as ChainApp;

const m = await merchantWithAddresses(t, ['ETH']);
const createPayment = async (): Promise<{ id: string; address: string; amount: bigint }> => {
  const res = await app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(m.acct.liveKey), payload: { order_id: `o-${uid()}`, amount_usd: '20', token: 'ETH', webhook_url: hookUrl } });
  if (res.statusCode !== 201) throw new Error(`payment: ${res.statusCode} ${res.body}`);
  const p = res.json();
  return { id: p.id, address: p.deposit_address, amount: owed(p) };
};

const latencies: number[] = [];
for (let i = 0; i < COUNT; i++) {
  // one payment at a time (the API's rate limit)
  const p = await createPayment();
  // anvil automines the transaction before answering: the time counts from the block
  latencies.push(await receiver.time(p.id, POLL_MS, () => eth.wallet.sendTransaction({ account: eth.funder, to: p.address as Address, value: p.amount, chain: null })));
}

const sorted = [...latencies].sort((a, b) => a - b);
const pct = (q: number) => quantile(sorted, q);
console.log(`P6 block mined → payment.detecting webhook received, ${COUNT} payments, CHAIN_POLL_MS=${POLL_MS}, ${DB_KIND}: p50 ${pct(0.5).toFixed(0)} ms, p90 ${pct(0.9).toFixed(0)} ms, p99 ${pct(0.99).toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms (target p99 < 1000 ms)`);

await services.watching.stop();
await services.webhooks.stop();
await platform.outbox.stop();
await app.close();
await services.payments.close();
await drop();
await eth.close();
receiver.close();

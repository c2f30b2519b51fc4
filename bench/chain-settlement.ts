// How long a live direct settlement takes from its deposit becoming final to `completed`, on a
// real anvil node (chain id 1, automine), with SETTLEMENT_DELAY_S=0, CHAIN_POLL_MS=100 and
// CONFIRMATIONS_ETHEREUM=1: the outbox hands the payment to settlement, the transfer worker is
// woken by the commit, signs, broadcasts, sees the receipt and reports the transfer final. ETH
// (one transfer to the merchant) and USDT_ERC20 (a gas top-up from the hot wallet first).
// The worker runs as in production (its own timer and wake-ups); the bench only mines nothing and
// polls the settlement. Run: node_modules/.bin/node bench/chain-settlement.ts [settlements per coin]
import './_interrupt.ts';
import { createLogger } from '../src/platform/logger.ts';
import { bootPlatform } from '../src/platform/boot.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { openScratchDatabase } from '../test/harness/scratch-db.ts';
import { testConfig } from '../test/harness/app.ts';
import { startAnvil, deployTestToken } from '../test/harness/anvil.ts';
import {
  chainEnv, createLivePayment, fundHotWallet, hotWallet, merchantWithAddresses, owed, pay, settlementsOf, type ChainApp, type EvmNodes,
} from '../test/harness/chain-send.ts';
import type { TokenSymbol } from '../src/tokens/index.ts';

const PER_COIN = Number(process.argv[2] ?? 15);

const [eth, bsc] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 56 })]);
const nodes: EvmNodes = { eth, bsc, usdtErc20: await deployTestToken(eth, { decimals: 6 }), usdtBep20: await deployTestToken(bsc, { decimals: 18 }) };
const { db, drop } = await openScratchDatabase('pglite');
const config = testConfig(chainEnv(nodes, { CONFIRMATIONS_ETHEREUM: '1' }));
const platform = await bootPlatform(config, createLogger('silent'), { db });
const services = await createServices(platform);
const app = await buildApp(services);
await app.ready();
platform.outbox.start();
services.sending.start();
const t = { app, services, platform, config, nodes } as unknown as ChainApp;

await fundHotWallet(nodes, 'ethereum', (await hotWallet(t, 'ethereum')).address, 10n ** 18n);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

for (const token of ['ETH', 'USDT_ERC20'] as TokenSymbol[]) {
  const m = await merchantWithAddresses(t, [token]);
  const times: number[] = [];
  for (let i = 0; i < PER_COIN; i++) {
    const p = await createLivePayment(t, m, token);
    const paid = await pay(nodes, token, p.deposit_address, owed(p));
    await services.payments.intake.recordDeposit({ address: p.deposit_address }, { txId: paid.hash, token, amount: owed(p), confirmations: 0, at: new Date() });
    const start = performance.now();
    await services.payments.intake.markFinal({ address: p.deposit_address }, paid.hash, new Date());
    for (;;) {
      const [s] = await settlementsOf(t, p.id);
      if (s?.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    times.push(performance.now() - start);
  }
  console.log(`${token}: final deposit → settlement completed, ${PER_COIN} settlements: p50 ${pct(times, 0.5).toFixed(0)} ms, p90 ${pct(times, 0.9).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`);
}

await services.sending.stop();
await platform.outbox.stop();
await app.close();
await services.payments.close();
await drop();
await Promise.all([eth.close(), bsc.close()]);

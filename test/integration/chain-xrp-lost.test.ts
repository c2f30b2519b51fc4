// An XRP settlement whose broadcast got no clear answer (CONTRACT.md "Live chains": recorded before
// broadcast, reconciled after, neither lost nor sent twice), over rippled's JSON-RPC through a
// faulty network path: when the submit never reached the node, the transaction is known lost once
// a validated ledger passes its LastLedgerSequence and is signed again with the same sequence; when
// the node applied it but the answer was lost, it is found in the ledger and not sent again. Either
// way the payout address receives exactly one Payment of `net`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Wallet } from 'xrpl';
import { describeEachDb } from '../harness/databases.ts';
import { randomIp, tokenHeader, signupAccount, type Account } from '../harness/accounts.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { createLivePayment, settlementsOf } from '../harness/chain-send.ts';
import { payXrp } from '../harness/xrp.ts';
import { startXrpSim, type XrpSim } from '../sim/xrp/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { parseUnits } from '../../src/money/index.ts';
import { LEDGER_WINDOW } from '../../src/chains/xrp/index.ts';

type Fault = 'none' | 'drop_request' | 'drop_answer';

/** An HTTP path to the node that can lose `submit` calls before or after the node sees them. */
async function faultyPath(target: () => string): Promise<{ url: string; fault: Fault; close: () => Promise<void> }> {
  const state = { fault: 'none' as Fault };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      const submit = body.includes('"submit"');
      if (submit && state.fault === 'drop_request') return void res.writeHead(502).end('<html>502</html>');
      const answer = await fetch(target(), { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.text());
      if (submit && state.fault === 'drop_answer') return void res.writeHead(504).end('<html>504</html>');
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get fault() { return state.fault; },
    set fault(f: Fault) { state.fault = f; },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describeEachDb('XRP: a settlement whose broadcast got no answer', (h) => {
  let sim: XrpSim;
  let path: Awaited<ReturnType<typeof faultyPath>>;
  let t: TestApp;
  let acct: Account;
  const payout = Wallet.generate().address;

  beforeAll(async () => {
    sim = await startXrpSim();
    path = await faultyPath(() => sim.httpUrl);
    t = await startTestApp(h.db(), { clock: new ManualClock(new Date()), env: { XRP_RPC_URL: path.url, CONFIRMATIONS_XRP: '1', SETTLEMENT_DELAY_S: '0', CHAIN_POLL_MS: '100' } });
    acct = await signupAccount(t.app);
    expect((await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } })).statusCode).toBe(200);
    const res = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
      payload: { token: 'XRP', address: payout, tag: 5, password: acct.password },
    });
    expect(res.statusCode).toBe(201);
    payXrp(sim, payout, 20_000_000n);
    // the service address's reserve
    payXrp(sim, t.services.sending.keys.hotAddress('xrp', true), 30_000_000n);
    sim.close();
    await t.services.watching.runOnce();
  });
  afterAll(async () => {
    await t?.close();
    await path?.close();
    await sim?.stop();
  });

  const pass = async () => {
    await t.services.sending.transfers.runOnce().catch(() => {});
    await t.services.watching.runOnce().catch(() => {});
    await t.platform.outbox.drainNow();
  };
  const completed = async (id: string) => (await settlementsOf(t, id))[0]?.status === 'completed';
  const paymentsToPayout = () => sim.ledger.closed.flatMap((l) => l.txs).filter((x) => x.tx.Destination === payout && x.tx.Account !== Wallet.fromSeed('snoPBrXtMeMyMHUVTgbuqAfg1SUTb').address);

  it.each(['drop_request', 'drop_answer'] as const)('%s: exactly one Payment of net reaches the payout address', async (fault) => {
    const before = paymentsToPayout().length;
    const balance = sim.ledger.accounts.get(payout)!.balance;
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'XRP');
    payXrp(sim, p.deposit_address, parseUnits(p.crypto_amount, 6)!, p.destination_tag);
    sim.close();
    path.fault = fault;
    await pass();
    await pass();
    expect(await completed(p.id)).toBe(false);
    path.fault = 'none';
    // the validated ledger passes the LastLedgerSequence of what was signed
    for (let i = 0; i <= LEDGER_WINDOW + 1; i++) sim.close();
    for (let i = 0; i < 20 && !(await completed(p.id)); i++) {
      await pass();
      sim.close();
    }
    expect(await completed(p.id)).toBe(true);
    const [s] = await settlementsOf(t, p.id);
    const sent = paymentsToPayout().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ hash: s.tx_id, tx: { DestinationTag: 5, Amount: String(parseUnits(s.net, 6)) } });
    expect(sim.ledger.accounts.get(payout)!.balance - balance).toBe(parseUnits(s.net, 6));
  });
});

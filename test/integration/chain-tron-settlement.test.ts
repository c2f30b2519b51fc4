// Tron end to end on the simulated java-tron (which checks every transaction with tronweb's own
// protobuf code and recovers its signer): a live USDT_TRC20 or TRX payment paid by a customer with
// tronweb, read from the blocks by the chain watcher driving the Tron reader, is confirmed and settled: the payout address receives exactly `net`; a USDT deposit address
// first gets TRX for its energy from the hot wallet (never from a customer's TRX on that address
// still to be settled); the node going away and coming back leaves the
// settlement to complete; the service's share given up, or canceled with nothing left after its
// fee, still leaves the burnt fee recorded.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TronWeb } from 'tronweb';
import { describeEachDb } from '../harness/databases.ts';
import { codeOf } from '../harness/affiliate.ts';
import { randomIp, tokenHeader, signupAccount, type Account } from '../harness/accounts.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { createLivePayment, hotWallet, settlementsOf } from '../harness/chain-send.ts';
import { getPayment, type Json } from '../harness/payments.ts';
import { base58Address, hexAddress, startTronSim, type TronSim } from '../sim/tron/server.ts';
import { BANDWIDTH_PRICE_SUN, CREATE_ACCOUNT_FEE_SUN, FREE_BANDWIDTH } from '../sim/tron/chain.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { formatUnits, parseUnits } from '../../src/money/index.ts';
import type { TokenSymbol } from '../../src/tokens/index.ts';
import { eq } from 'drizzle-orm';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { ledgerEntries } from '../../src/settlement/index.ts';
import { dec, ROUND_UP, unitsToDecimal } from '../../src/money/index.ts';
import { commissions } from '../../src/affiliate/index.ts';
import { commissionUnits } from '../../src/affiliate/terms.ts';

type TronAccount = { address: { base58: string }; privateKey: string };
const newAccount = async () => (await TronWeb.createAccount()) as unknown as TronAccount;

describeEachDb('Tron paid, confirmed, settled on the simulated node', (h) => {
  let sim: TronSim;
  let t: TestApp;
  let acct: Account;
  let usdt: string;
  let customer: TronAccount;
  let tw: TronWeb;
  const payout: Partial<Record<TokenSymbol, string>> = {};
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    sim = await startTronSim();
    usdt = base58Address(sim.chain.deployToken(6));
    t = await startTestApp(h.db(), {
      clock, env: { TRON_API_URL: sim.url, TOKEN_CONTRACTS: `USDT_TRC20=${usdt}`, CONFIRMATIONS_TRON: '2', SETTLEMENT_DELAY_S: '0', CHAIN_POLL_MS: '100' },
    });
    expect(t.services.sending.readers.tron).toBeDefined();
    customer = await newAccount();
    sim.chain.fund(customer.address.base58, 10_000_000_000n);
    sim.chain.mint(usdt, customer.address.base58, 10_000_000_000n);
    sim.chain.fund(t.services.sending.keys.hotAddress('tron', true), 1_000_000_000n);
    sim.chain.mine(1);
    tw = new TronWeb({ fullHost: sim.url, privateKey: customer.privateKey });
    // the watcher's cursor starts here
    await watch();
    acct = await signupAccount(t.app);
    const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
    expect(live.statusCode).toBe(200);
    for (const token of ['USDT_TRC20', 'TRX'] as const) {
      payout[token] = (await newAccount()).address.base58;
      const res = await t.app.inject({
        method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
        payload: { token, address: payout[token], password: acct.password },
      });
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
    await sim?.stop();
  });

  /** The customer pays with tronweb; the block is mined and read as the watcher does. */
  async function payAndWatch(token: TokenSymbol, to: string, amount: bigint): Promise<void> {
    let sent: { result?: boolean };
    if (token === 'TRX') {
      sent = await tw.trx.sendTransaction(to, Number(amount));
    } else {
      const built = await tw.transactionBuilder.triggerSmartContract(usdt, 'transfer(address,uint256)', { feeLimit: 100_000_000, txLocal: true },
        [{ type: 'address', value: to }, { type: 'uint256', value: amount.toString() }], customer.address.base58);
      sent = await tw.trx.sendRawTransaction(await tw.trx.sign(built.transaction, customer.privateKey));
    }
    expect(sent.result).toBe(true);
    sim.chain.mine(1);
    await watch();
  }

  /** A pass of the chain watcher (the Tron reader), then the outbox. */
  async function watch(): Promise<void> {
    await t.services.watching.runOnce();
    await t.platform.outbox.drainNow();
  }

  async function driveUntil(done: () => Promise<boolean>, max = 40): Promise<void> {
    for (let i = 0; i < max; i++) {
      await t.services.sending.transfers.runOnce().catch(() => {});
      await t.services.watching.runOnce().catch(() => {});
      await t.platform.outbox.drainNow();
      if (await done()) return;
      sim.chain.mine(1);
    }
    throw new Error('not done');
  }

  const units = (v: string) => parseUnits(v, 6)!;

  /**
   * The payment's settlement completed with `networkFee` as its network fee: the merchant's net as
   * quoted, the service's share (service fee plus network fee) as quoted, and the ledger's fee
   * entries the same figures.
   */
  async function expectNetworkFeeRecorded(paymentId: string, quoted: Json, networkFee: bigint): Promise<void> {
    const [s] = await settlementsOf(t, paymentId);
    expect(s.status).toBe('completed');
    expect(units(s.network_fee)).toBe(networkFee);
    expect(s.net).toBe(quoted.net);
    expect(units(s.service_fee) + units(s.network_fee)).toBe(units(quoted.service_fee) + units(quoted.network_fee));
    const entries = (await h.db().orm.select().from(ledgerEntries)).filter((e) => e.reference === `${paymentId}:${s.deposit_tx}`);
    const sum = (type: string) => entries.filter((e) => e.type === type).reduce((a, e) => a + e.amount, 0n);
    expect(sum('network_fee')).toBe(-units(s.network_fee));
    expect(sum('fee')).toBe(-units(s.service_fee));
  }
  const completed = async (id: string) => (await settlementsOf(t, id))[0]?.status === 'completed';
  const balance = (token: TokenSymbol, address: string) =>
    token === 'TRX' ? sim.chain.account(address)?.balance ?? 0n : sim.chain.tokenBalance(usdt, address);

  it.each(['USDT_TRC20', 'TRX'] as const)('%s: paid, confirmed, settled with exactly net at the payout address', async (token) => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, token);
    expect(p.deposit_address).toMatch(/^T/);
    await payAndWatch(token, p.deposit_address, units(p.crypto_amount));
    // seen with 1 confirmation of the 2 CONFIRMATIONS_TRON asks; final one block later
    const seen = await getPayment(t.app, acct.liveKey, p.id);
    expect(seen.status).toBe('detecting');
    expect(seen.deposits[0]).toMatchObject({ confirmations: 1, token });
    sim.chain.mine(1);
    await watch();
    expect((await getPayment(t.app, acct.liveKey, p.id)).status).toBe('confirmed');
    await driveUntil(() => completed(p.id));
    const [done] = await settlementsOf(t, p.id);
    expect(balance(token, payout[token]!)).toBe(units(done.net));
    const found = sim.chain.findTx(done.tx_id)!;
    expect(found.tx.ret?.[0].contractRet).toBe('SUCCESS');
    // the service's share leaves after the merchant's transfer: once every transfer is final, the
    // settlement's network fee is what the node says they burnt (with the gas top-up), not the quote
    const transfers = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, done.id as string));
    await driveUntil(async () => (await transfers()).every((x) => x.status === 'final'));
    const ids = (await transfers()).map((x) => x.id);
    const gas = ids.length === 0 ? [] : (await h.db().orm.select().from(outgoingTransfers)).filter((x) => ids.includes(x.reference));
    const txIds = [...(await transfers()), ...gas].map((x) => x.txId!);
    const burnt = txIds.reduce((sum, id) => sum + BigInt((sim.chain.findTx(id)!.info.fee as number | undefined) ?? 0), 0n);
    expect(burnt).toBeGreaterThan(0n);
    const [s] = await settlementsOf(t, p.id);
    const trxRate = t.services.market.snapshot(true).TRX.rate;
    // USDT: the burnt TRX at the TRX rate, rounded up to a base unit (both coins have 6 decimals)
    const expected = token === 'TRX' ? burnt : BigInt(unitsToDecimal(burnt, 6).mul(trxRate).mul(1_000_000).toDecimalPlaces(0, ROUND_UP).toFixed());
    // never more than the service's whole share (service fee and quoted network fee): the merchant's
    // net was sent and stays; the simulated node's energy price makes a token transfer dearer than its quote
    const share = units(done.service_fee) + units(done.network_fee);
    expect(units(s.network_fee)).toBe(expected < share ? expected : share);
    if (token === 'TRX') expect(units(s.network_fee)).toBe(burnt);
    else expect(units(s.service_fee)).toBe(0n);
    // the service's share absorbed the difference: the figures still add up, net unchanged
    expect(s.net).toBe(done.net);
    expect(units(s.service_fee) + units(s.network_fee) + units(s.conversion_fee) + units(s.net)).toBe(units(s.amount));
    expect(units(s.service_fee) + units(s.network_fee)).toBe(units(done.service_fee) + units(done.network_fee));
    expect(dec(s.service_fee_usd).plus(s.network_fee_usd).plus(s.conversion_fee_usd).plus(s.net_usd).eq(dec(s.usd_value))).toBe(true);
    // the merchant's ledger says the same: its fee entries sum to the settlement's figures
    const entries = (await h.db().orm.select().from(ledgerEntries)).filter((e) => e.reference === `${p.id}:${s.deposit_tx}`);
    const sum = (type: string) => entries.filter((e) => e.type === type).reduce((a, e) => a + e.amount, 0n);
    expect(sum('network_fee')).toBe(-units(s.network_fee));
    expect(sum('fee')).toBe(-units(s.service_fee));
    if (token === 'USDT_TRC20') {
      // the deposit address got its TRX for energy from the hot wallet before its transfers
      const hot = t.services.sending.keys.hotAddress('tron', true);
      const topUps = sim.chain.blocks.flatMap((b) => b.txs).filter((x) => x.raw_data.contract[0].type === 'TransferContract'
        && x.raw_data.contract[0].parameter.value.owner_address === TronWeb.address.toHex(hot).toLowerCase()
        && x.raw_data.contract[0].parameter.value.to_address === TronWeb.address.toHex(p.deposit_address).toLowerCase());
      expect(topUps.length).toBeGreaterThanOrEqual(1);
      // the hot wallet's balances in /admin/wallets are read from the node
      const wallet = await hotWallet(t, 'tron');
      expect(wallet.address).toBe(hot);
      expect(wallet.balances).toEqual([{ token: 'TRX', amount: formatUnits(sim.chain.account(hot)!.balance, 6) }, { token: 'USDT_TRC20', amount: formatUnits(sim.chain.tokenBalance(usdt, hot), 6) }]);
    }
  });

  it('TRX sent to a USDT address still confirming when the USDT settlement leaves: its energy comes from the hot wallet, never from the customer\'s TRX', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'USDT_TRC20');
    await payAndWatch('USDT_TRC20', p.deposit_address, units(p.crypto_amount));
    sim.chain.mine(1);
    await watch();
    expect((await getPayment(t.app, acct.liveKey, p.id)).status).toBe('confirmed');
    // the customer also sends TRX to the address: seen with 1 of 2 confirmations when the USDT leaves
    const trxBefore = balance('TRX', payout.TRX!);
    const usdtBefore = balance('USDT_TRC20', payout.USDT_TRC20!);
    await payAndWatch('TRX', p.deposit_address, 30_000_000n);
    expect((await getPayment(t.app, acct.liveKey, p.id)).deposits.find((d: Json) => d.token === 'TRX')).toMatchObject({ status: 'pending', confirmations: 1 });
    await driveUntil(async () => {
      const s = await settlementsOf(t, p.id);
      return s.length === 2 && s.every((x) => x.status === 'completed');
    });
    const byToken = Object.fromEntries((await settlementsOf(t, p.id)).map((s) => [s.token, s]));
    // each payout address received exactly its settlement's net
    expect(balance('USDT_TRC20', payout.USDT_TRC20!) - usdtBefore).toBe(units(byToken.USDT_TRC20.net));
    expect(balance('TRX', payout.TRX!) - trxBefore).toBe(units(byToken.TRX.net));
  });

  it('TRX: a merchant\'s transfer topped up from the hot wallet, its address\'s free bandwidth used up: the top-up covers the bandwidth the transfer is billed for', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'TRX');
    const before = balance('TRX', payout.TRX!);
    await payAndWatch('TRX', p.deposit_address, units(p.crypto_amount));
    sim.chain.mine(1);
    await watch();
    const [quoted] = await settlementsOf(t, p.id);
    // the address holds only the merchant's net now and has no free bandwidth left: the merchant's
    // transfer needs a top-up for its bandwidth (a TRX transfer is billed about 265 bytes)
    const account = sim.chain.account(p.deposit_address)!;
    account.balance = units(quoted.net);
    account.freeNetUsed = FREE_BANDWIDTH;
    const transfers = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, quoted.id as string));
    await driveUntil(async () => {
      clock.advance(600_000);
      return completed(p.id) || (await transfers()).some((x) => x.purpose === 'settlement' && x.status === 'failed');
    });
    const merchant = (await transfers()).find((x) => x.purpose === 'settlement')!;
    expect(merchant.lastError).toBeNull();
    expect(await completed(p.id)).toBe(true);
    expect(balance('TRX', payout.TRX!) - before).toBe(units(quoted.net));
  });

  it('the node going away and coming back: the settlement completes once it answers', async () => {
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'TRX');
    const before = balance('TRX', payout.TRX!);
    await payAndWatch('TRX', p.deposit_address, units(p.crypto_amount));
    // confirmed: its settlement's transfers are recorded, and the node goes away before they are sent
    sim.chain.mine(1);
    await watch();
    await sim.stop();
    await expect(t.services.sending.transfers.runOnce()).rejects.toThrow();
    // the watcher notes the node down and goes on
    await t.services.watching.runOnce();
    expect(t.services.watching.states().find((x) => x.chain === 'tron')!.status).not.toBe('ok');
    await sim.start();
    await driveUntil(() => completed(p.id));
    const [s] = await settlementsOf(t, p.id);
    expect(balance('TRX', payout.TRX!) - before).toBe(units(s.net));
  });

  it('USDT_TRC20: the service\'s share given up after the merchant\'s transfer is final: what was burnt still becomes the network fee', async () => {
    // energy cheap enough that the burn is less than the service's share: the exact figure is recorded
    sim.chain.energyPrice = 10n;
    const p = await createLivePayment(t, { acct, addresses: {}, addressIds: {} }, 'USDT_TRC20');
    await payAndWatch('USDT_TRC20', p.deposit_address, units(p.crypto_amount));
    sim.chain.mine(1);
    await watch();
    const [quoted] = await settlementsOf(t, p.id);
    const transfers = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, quoted.id as string));
    // once the merchant's transfer is on its way, the deposit address keeps only what it moves: the
    // service's share, next, is refused (the deposit address no longer holds it) until given up
    let taken = false;
    await driveUntil(async () => {
      const merchant = (await transfers()).find((x) => x.purpose === 'settlement');
      if (!taken && merchant?.status === 'sent') {
        sim.chain.tokens.get(hexAddress(usdt))!.set(hexAddress(p.deposit_address), merchant.amount);
        taken = true;
      }
      return completed(p.id);
    });
    const fee = async () => (await transfers()).find((x) => x.purpose === 'service_fee')!;
    expect((await fee()).status).not.toBe('failed');
    // its tries are spread over the transfer backoff: the clock moves past each wait
    await driveUntil(async () => {
      clock.advance(3_600_000);
      return (await fee()).status === 'failed';
    });
    expect((await fee()).lastError).toMatch(/the deposit address holds/);
    // what the top-up and the merchant's transfer burnt is the settlement's network fee, as when
    // every transfer is final; the service's share that never left takes the difference
    const own = await transfers();
    const gas = (await h.db().orm.select().from(outgoingTransfers)).filter((x) => own.some((o) => o.id === x.reference));
    const burnt = [...own, ...gas].filter((x) => x.txId).reduce((sum, x) => sum + BigInt((sim.chain.findTx(x.txId!)!.info.fee as number | undefined) ?? 0), 0n);
    expect(burnt).toBeGreaterThan(0n);
    const trxRate = t.services.market.snapshot(true).TRX.rate;
    const expected = BigInt(unitsToDecimal(burnt, 6).mul(trxRate).mul(1_000_000).toDecimalPlaces(0, ROUND_UP).toFixed());
    expect(expected).toBeLessThan(units(quoted.service_fee) + units(quoted.network_fee));
    expect(expected).not.toBe(units(quoted.network_fee));
    await expectNetworkFeeRecorded(p.id, quoted, expected);
    sim.chain.energyPrice = 100n;
  });

  it('TRX: the service\'s share canceled with nothing left after its fee, once the merchant\'s transfer completed the settlement: what was burnt still becomes the network fee', async () => {
    // a merchant paid at a new Tron address: the merchant's transfer burns the account's creation
    const m = await signupAccount(t.app);
    const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(m.accessToken), payload: { enabled: true } });
    expect(live.statusCode).toBe(200);
    const added = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.accessToken),
      payload: { token: 'TRX', address: (await newAccount()).address.base58, password: m.password },
    });
    expect(added.statusCode).toBe(201);
    const p = await createLivePayment(t, { acct: m, addresses: {}, addressIds: {} }, 'TRX', '2');
    await payAndWatch('TRX', p.deposit_address, units(p.crypto_amount));
    sim.chain.mine(1);
    await watch();
    const [quoted] = await settlementsOf(t, p.id);
    const transfers = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, quoted.id as string));
    const fee = async () => (await transfers()).find((x) => x.purpose === 'service_fee')!;
    // once the merchant's transfer is on its way, the deposit address keeps only what it moves and
    // burns: the service's share, next, is refused and waits out its backoff (still open) while the
    // merchant's transfer becomes final and completes the settlement
    let taken = false;
    await driveUntil(async () => {
      const merchant = (await transfers()).find((x) => x.purpose === 'settlement');
      if (!taken && merchant?.status === 'sent') {
        sim.chain.account(p.deposit_address)!.balance = merchant.amount + CREATE_ACCOUNT_FEE_SUN;
        taken = true;
      }
      return completed(p.id);
    });
    expect((await fee()).status).toBe('recorded');
    expect((await fee()).lastError).toMatch(/the deposit address holds/);
    expect((await settlementsOf(t, p.id))[0].network_fee).toBe(quoted.network_fee);
    // bandwidth now so dear that the share's own fee would take all of it: nothing is left to send
    sim.chain.bandwidthPrice = 1_000_000n;
    await driveUntil(async () => {
      clock.advance(3_600_000);
      return (await fee()).status === 'canceled';
    });
    sim.chain.bandwidthPrice = BANDWIDTH_PRICE_SUN;
    expect((await fee()).lastError).toBe('nothing is left after the network fee');
    expect((await fee()).txId).toBeNull();
    // the last open transfer canceled: what the merchant's transfer burnt (the account's creation)
    // is the network fee, as when every transfer is final; the service's share takes the difference
    const burnt = (await transfers()).filter((x) => x.txId).reduce((sum, x) => sum + BigInt((sim.chain.findTx(x.txId!)!.info.fee as number | undefined) ?? 0), 0n);
    expect(burnt).toBe(CREATE_ACCOUNT_FEE_SUN);
    expect(burnt).toBeLessThan(units(quoted.network_fee));
    await expectNetworkFeeRecorded(p.id, quoted, burnt);
  });

  it('TRX, a referred merchant: the commission is credited once its transfers are final, on the service fee the burn left', async () => {
    const m = await signupAccount(t.app, { referral_code: await codeOf(h.db(), acct.merchant.id) });
    const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(m.accessToken), payload: { enabled: true } });
    expect(live.statusCode).toBe(200);
    const added = await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.accessToken),
      payload: { token: 'TRX', address: payout.TRX!, password: m.password },
    });
    expect(added.statusCode).toBe(201);
    const p = await createLivePayment(t, { acct: m, addresses: {}, addressIds: {} }, 'TRX');
    await payAndWatch('TRX', p.deposit_address, units(p.crypto_amount));
    sim.chain.mine(1);
    await watch();
    const [quoted] = await settlementsOf(t, p.id);
    const ofPayment = () => h.db().orm.select().from(commissions).where(eq(commissions.paymentId, p.id));
    // planned with the quoted network fee: not final, nothing credited yet
    expect(await ofPayment()).toEqual([]);
    const transfers = () => h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, quoted.id as string));
    await driveUntil(async () => await completed(p.id) && (await transfers()).every((x) => x.status === 'final'));
    const [s] = await settlementsOf(t, p.id);
    expect(s.service_fee_usd).not.toBe(quoted.service_fee_usd);
    const rows = await ofPayment();
    expect(rows.map((r) => [r.feeUsd.toString(), r.amount])).toEqual([[dec(s.service_fee_usd).toString(), commissionUnits(dec(s.service_fee_usd), 2500)]]);
  });
});

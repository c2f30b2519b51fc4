// Payout addresses stored before the gateway refused its own addresses and token contracts (an
// upgraded gateway's database, written here directly): no path pays them. A manual payout (and its
// quote, and the operator's approval of one requested before) answers 400 with the refusal; a
// scheduled payout and a live direct settlement (also one that waited for the transfer service)
// send nothing, the money stays in the balance, and the team is told once ("Payout address refused");
// the operator's retry of a failed settlement to it answers 400 (the operator returns it instead);
// no deposit is converted into its coin, and the token listing shows the route taken instead.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment, type Member } from '../harness/settlement.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { newId } from '../../src/platform/ids.ts';
import { merchants } from '../../src/accounts/schema.ts';
import { notifications } from '../../src/notifications/index.ts';
import type { Executor } from '../../src/platform/db/index.ts';
import { balances, NOTE_WAITING_TRANSFER, payoutAddresses, payouts, settlements, type TransferPort, type TransferRequest } from '../../src/settlement/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../src/tokens/index.ts';

const OWN = 'address belongs to this gateway: use an address of your own wallet';
const CONTRACT = 'address is the USDT_TRC20 token contract: tokens sent there are lost';
const USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_ERC20_CONTRACT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const ERC20_CONTRACT = 'address is the USDT_ERC20 token contract: tokens sent there are lost';
const ADMIN = { authorization: 'Bearer test-admin-token' };
const USDT = (whole: number): bigint => BigInt(whole) * 1_000_000n;

describeEachDb('payout addresses the gateway refuses, stored before it did', (h) => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock(new Date('2026-03-02T10:00:00Z'));
    t = await startTestApp(h.db(), { clock });
  });
  afterAll(async () => { await t.close(); });
  afterEach(async () => { await expectLedgerHolds(h.db()); });

  const hotTron = () => t.services.sending.keys.hotAddress('tron', true);
  const newMerchant = async (): Promise<{ id: string; owner: Member }> => {
    const acct = await signupAccount(t.app);
    return { id: acct.merchant.id, owner: await addMember(t, acct.merchant.id, 'owner') };
  };
  /** A live payout address as an old database holds it: active a day ago, never checked. */
  const storedAddress = async (merchantId: string, token: TokenSymbol, address: string): Promise<string> => {
    const at = new Date(clock.now().getTime() - 86_400_000);
    const id = newId('pa', at);
    await h.db().orm.insert(payoutAddresses).values({
      id, merchantId, livemode: true, token, chain: TOKEN_DEFS[token].chain, address, tag: null, label: '', isDefault: true,
      activeAt: at, createdBy: 'usr_old', createdAt: at, updatedAt: at, deletedAt: null,
    });
    return id;
  };
  const fund = (merchantId: string, amount: string) =>
    t.services.settlement.adjust({ merchant_id: merchantId, livemode: true, token: 'USDT_TRC20', amount, note: 'funding' }, { kind: 'admin' });
  const balanceOf = async (merchantId: string) => {
    const [b] = await h.db().orm.select().from(balances).where(and(eq(balances.merchantId, merchantId), eq(balances.livemode, true), eq(balances.token, 'USDT_TRC20')));
    return { available: b?.available ?? 0n, pending: b?.pendingPayout ?? 0n };
  };
  const refusedNotices = (merchantId: string) =>
    h.db().orm.select().from(notifications).where(and(eq(notifications.merchantId, merchantId), eq(notifications.title, 'Payout address refused')));
  const call = async (m: Member, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp() });

  it('answers a manual payout and its quote 400 with the refusal, holding nothing', async () => {
    const m = await newMerchant();
    await fund(m.id, '50');
    for (const [address, message] of [[hotTron(), OWN], [USDT_CONTRACT, CONTRACT]] as const) {
      const id = await storedAddress(m.id, 'USDT_TRC20', address);
      const res = await call(m.owner, 'POST', '/merchant/payouts', { address_id: id, amount: '20' });
      expect([res.statusCode, res.json()]).toEqual([400, { error: message }]);
      const quote = await call(m.owner, 'GET', `/merchant/payouts/quote?address_id=${id}&amount=20`);
      expect([quote.statusCode, quote.json()]).toEqual([400, { error: message }]);
    }
    expect(await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).toEqual([]);
    expect(await balanceOf(m.id)).toEqual({ available: USDT(50), pending: 0n });
  });

  it('refuses the approval of a payout requested to such an address before, which the operator can still reject', async () => {
    const m = await newMerchant();
    await fund(m.id, '50');
    const good = await storedAddress(m.id, 'USDT_TRC20', ADDR.TRON);
    const res = await call(m.owner, 'POST', '/merchant/payouts', { address_id: good, amount: '20' });
    expect(res.statusCode).toBe(201);
    const id = res.json().payout.id as string;
    // as an old database holds it: requested to the hot wallet
    await h.db().orm.update(payouts).set({ address: hotTron() }).where(eq(payouts.id, id));
    const approve = await t.app.inject({ method: 'POST', url: `/admin/payouts/${id}/approve`, headers: ADMIN, remoteAddress: randomIp() });
    expect([approve.statusCode, approve.json()]).toEqual([400, { error: OWN }]);
    expect((await h.db().orm.select().from(payouts).where(eq(payouts.id, id)))[0].status).toBe('requested');
    const reject = await t.app.inject({ method: 'POST', url: `/admin/payouts/${id}/reject`, payload: { note: 'address refused' }, headers: ADMIN, remoteAddress: randomIp() });
    expect(reject.statusCode).toBe(200);
    expect(await balanceOf(m.id)).toEqual({ available: USDT(50), pending: 0n });
  });

  it('makes no scheduled payout to it: the balance stays, the team is told once', async () => {
    const m = await newMerchant();
    await h.db().orm.update(merchants).set({ settlement: 'scheduled', payoutSchedule: 'daily' }).where(eq(merchants.id, m.id));
    await storedAddress(m.id, 'USDT_TRC20', hotTron());
    await fund(m.id, '40');
    for (let i = 0; i < 2; i++) {
      expect((await t.services.settlement.runScheduledPayouts()).filter((p) => p.merchantId === m.id)).toEqual([]);
    }
    expect(await h.db().orm.select().from(payouts).where(eq(payouts.merchantId, m.id))).toEqual([]);
    expect(await balanceOf(m.id)).toEqual({ available: USDT(40), pending: 0n });
    const told = await refusedNotices(m.id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      category: 'payouts', livemode: true,
      body: `Nothing was sent to the USDT_TRC20 payout address ${hotTron()}: ${OWN}. The money stays in your balance; change or delete this address.`,
    });
  });

  it('sends no live direct settlement to it: the deposit is kept in the balance with the refusal as its note', async () => {
    const m = await newMerchant();
    await storedAddress(m.id, 'USDT_TRC20', USDT_CONTRACT);
    const sent: TransferRequest[] = [];
    t.services.settlement.useTransfers({ send: async (_tx: Executor, req) => { sent.push(req); return `intent_${sent.length}`; } });
    try {
      const p = payment(m.id, { livemode: true, deposit_address: 'TDepositAddressOfThePayment' });
      const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: USDT(100), usd: '100' }]));
      expect(s).toMatchObject({ mode: 'custodial', status: 'completed', destination: null, note: `payout address refused: ${CONTRACT}` });
      expect(sent.filter((r) => r.to !== undefined)).toEqual([]);
      expect(await balanceOf(m.id)).toEqual({ available: s.net, pending: 0n });
      expect(await refusedNotices(m.id)).toHaveLength(1);
    } finally {
      t.services.settlement.useTransfers(null);
    }
  });
  /** A transfer service that records what it is asked to send (and to try again). */
  const recorder = () => {
    const sent: TransferRequest[] = [];
    const retried: string[] = [];
    const port: TransferPort = {
      send: async (_tx: Executor, req) => { sent.push(req); return `intent_${sent.length}`; },
      retry: async (_tx: Executor, reference) => { retried.push(reference); return 1; },
    };
    return { sent, retried, port };
  };
  /** As an old database holds it: the settlement and the merchant's address both point at the hot wallet. */
  const pointAtHotWallet = async (settlementId: string, addressId: string) => {
    await h.db().orm.update(settlements).set({ destination: hotTron() }).where(eq(settlements.id, settlementId));
    await h.db().orm.update(payoutAddresses).set({ address: hotTron() }).where(eq(payoutAddresses.id, addressId));
  };
  const settlementRow = async (id: string) => (await h.db().orm.select().from(settlements).where(eq(settlements.id, id)))[0];

  it('sends no settlement that waited for the transfer service to it: the deposit is swept and its net kept in the balance', async () => {
    const m = await newMerchant();
    const addressId = await storedAddress(m.id, 'USDT_TRC20', ADDR.TRON);
    t.services.settlement.useTransfers(null);
    const p = payment(m.id, { livemode: true, deposit_address: 'TDepositWaitingRefused' });
    const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: USDT(100), usd: '100' }]));
    expect(s).toMatchObject({ mode: 'direct', status: 'pending', note: NOTE_WAITING_TRANSFER, destination: ADDR.TRON, transferIntents: null });
    await pointAtHotWallet(s.id, addressId);
    const { sent, port } = recorder();
    t.services.settlement.useTransfers(port);
    try {
      await t.services.settlement.replanDue();
      // nothing to the hot wallet: the whole deposit goes to the service's wallet, as a kept one does
      expect(sent).toEqual([{ chain: 'tron', token: 'USDT_TRC20', from: 'TDepositWaitingRefused', amount: USDT(100), purpose: 'sweep', reference: s.id }]);
      expect(await settlementRow(s.id)).toMatchObject({
        mode: 'custodial', status: 'completed', destination: null, note: `payout address refused: ${OWN}`, transferIntents: ['intent_1'], completedAt: clock.now(),
      });
      expect(await balanceOf(m.id)).toEqual({ available: s.net, pending: 0n });
      expect(await refusedNotices(m.id)).toHaveLength(1);
      // done once: the next pass finds nothing
      await t.services.settlement.replanDue();
      expect(sent).toHaveLength(1);
    } finally {
      t.services.settlement.useTransfers(null);
    }
  });

  it('answers the operator\'s retry of a failed settlement to it 400 with the refusal; returning it to the balance still works', async () => {
    const m = await newMerchant();
    const addressId = await storedAddress(m.id, 'USDT_TRC20', ADDR.TRON);
    const { sent, retried, port } = recorder();
    t.services.settlement.useTransfers(port);
    try {
      const p = payment(m.id, { livemode: true, deposit_address: 'TDepositFailedRefused' });
      const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: USDT(100), usd: '100' }]));
      expect(s).toMatchObject({ mode: 'direct', status: 'pending', destination: ADDR.TRON });
      await h.db().transaction((tx) => t.services.settlement.failSettlement(tx, s.id, 'the transfer failed'));
      await pointAtHotWallet(s.id, addressId);
      const before = sent.length;
      const res = await t.app.inject({ method: 'POST', url: `/admin/settlements/${s.id}/retry`, headers: ADMIN, remoteAddress: randomIp() });
      expect([res.statusCode, res.json()]).toEqual([400, { error: OWN }]);
      expect([sent.length, retried]).toEqual([before, []]);
      expect(await settlementRow(s.id)).toMatchObject({ status: 'failed', note: 'the transfer failed' });
      expect(await balanceOf(m.id)).toEqual({ available: 0n, pending: 0n });
      // the note goes into the ledger entry: at most 500 characters
      const long = await t.app.inject({ method: 'POST', url: `/admin/settlements/${s.id}/return`, payload: { note: 'n'.repeat(501) }, headers: ADMIN, remoteAddress: randomIp() });
      expect([long.statusCode, long.json()]).toEqual([400, { error: 'note must be at most 500 characters' }]);
      const back = await t.app.inject({ method: 'POST', url: `/admin/settlements/${s.id}/return`, payload: { note: 'address refused' }, headers: ADMIN, remoteAddress: randomIp() });
      expect(back.statusCode).toBe(200);
      expect(await balanceOf(m.id)).toEqual({ available: s.net, pending: 0n });
    } finally {
      t.services.settlement.useTransfers(null);
    }
  });
  it('converts into another payout coin rather than one whose address is refused, and lists the coin so', async () => {
    const m = await newMerchant();
    // the merchant asks for USDT on Ethereum, whose stored address is that token's contract
    await h.db().orm.update(merchants).set({ convertInto: 'USDT_ERC20' }).where(eq(merchants.id, m.id));
    await storedAddress(m.id, 'USDT_ERC20', USDT_ERC20_CONTRACT);
    await storedAddress(m.id, 'USDC_ERC20', ADDR.EVM);
    const tokens = async (who: Member) => new Map(((await call(who, 'GET', '/merchant/tokens')).json().tokens as { token: string; settles_to: string; paid_out_in?: string }[])
      .map((x) => [x.token, { settles_to: x.settles_to, paid_out_in: x.paid_out_in }]));
    const listed = await tokens(m.owner);
    expect(listed.get('ETH')).toEqual({ settles_to: 'wallet', paid_out_in: 'USDC_ERC20' });
    expect(listed.get('USDT_ERC20')).toEqual({ settles_to: 'balance', paid_out_in: undefined });
    const p = payment(m.id, { livemode: true, token: 'ETH', rate_locked: '3000', convert_into: 'USDT_ERC20', deposit_address: '0x00000000000000000000000000000000000000e1' });
    const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 10n ** 18n, usd: '3000' }]));
    expect(s).toMatchObject({ mode: 'direct', status: 'pending', destination: ADDR.EVM, conversion: expect.objectContaining({ to: 'USDC_ERC20' }) });
    expect(await refusedNotices(m.id)).toEqual([]);

    // with no other coin to convert into, the listing says the balance, and so does the settlement
    const only = await newMerchant();
    await storedAddress(only.id, 'USDT_ERC20', USDT_ERC20_CONTRACT);
    expect((await tokens(only.owner)).get('ETH')).toEqual({ settles_to: 'balance', paid_out_in: undefined });
    const q = payment(only.id, { livemode: true, token: 'ETH', rate_locked: '3000', deposit_address: '0x00000000000000000000000000000000000000e2' });
    const [k] = await t.services.settlement.settle(h.db(), input(q, [{ amount: 10n ** 18n, usd: '3000' }]));
    expect(k).toMatchObject({ mode: 'custodial', status: 'completed', destination: null, note: `payout address refused: ${ERC20_CONTRACT}` });
    expect(await refusedNotices(only.id)).toHaveLength(1);
  });
});

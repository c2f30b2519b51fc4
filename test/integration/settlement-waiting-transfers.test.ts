// Live direct settlements that waited for the chain transfer service (waiting-transfers.ts): once a
// TransferPort is plugged in, each is sent as planned: on XRP the net alone with its destination tag
// (the service's share stays on the shared address, rule 7), on a chain the port cannot send on yet
// nothing, a conversion still pending waits for the conversion service instead, and a converted one
// sends what the conversion bought plus the whole service share (fees and conversion fee) in the deposit coin.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, input, payment, type Member } from '../harness/settlement.ts';
import type { Actor } from '../../src/audit/index.ts';
import type { Executor } from '../../src/platform/db/index.ts';
import type { Chain } from '../../src/config.ts';
import { events } from '../../src/events/index.ts';
import { NOTE_WAITING_CONVERSION, NOTE_WAITING_TRANSFER, settlements, type TransferPort, type TransferRequest } from '../../src/settlement/index.ts';
import { sendWaitingTransfers } from '../../src/settlement/waiting-transfers.ts';

describeEachDb('settlements waiting for the transfer service', (h) => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(h.db()); });
  afterAll(async () => { await t.close(); });

  const newMerchant = async (): Promise<{ id: string; owner: Member }> => {
    const acct = await signupAccount(t.app);
    return { id: acct.merchant.id, owner: await addMember(t, acct.merchant.id, 'owner') };
  };
  const addAddress = async (m: { id: string; owner: Member }, body: Record<string, unknown>) => {
    const actor: Actor = { kind: 'merchant', id: m.owner.userId };
    return t.services.settlement.addresses.add({ merchantId: m.id, userId: m.owner.userId, actor }, true, { ...body, password: m.owner.password });
  };
  /** A port that records what it is asked to send; `supports` as given. */
  const recorder = (supports?: (c: Chain) => boolean, delayMs = 0) => {
    const sent: TransferRequest[] = [];
    const port: TransferPort = {
      send: async (_tx: Executor, req) => {
        sent.push(req);
        if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return `intent_${sent.length}`;
      },
      ...(supports ? { supports } : {}),
    };
    return { sent, port };
  };
  const row = async (id: string) => (await h.db().orm.select().from(settlements).where(eq(settlements.id, id)))[0];
  const now = () => t.platform.clock.now();

  it('sends a waiting XRP settlement as one transfer of its net with the destination tag, keeping the service share on the shared address', async () => {
    const m = await newMerchant();
    await addAddress(m, { token: 'XRP', address: ADDR.XRP, tag: 77 });
    const p = payment(m.id, { livemode: true, token: 'XRP', rate_locked: '0.6', deposit_address: 'rSharedDeposit' });
    const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 100_000_000n, usd: '60' }]));
    expect(s).toMatchObject({ status: 'pending', note: NOTE_WAITING_TRANSFER, transferIntents: null, destinationTag: 77 });
    // 100 XRP less the 1% service fee (1 XRP) and the $0.50 network fee at $0.60 (0.833334 XRP)
    expect(s.net).toBe(98_166_666n);

    const { sent, port } = recorder();
    expect(await sendWaitingTransfers(h.db(), port, t.services.settlement.deps, now())).toBe(1);
    expect(sent).toEqual([{ chain: 'xrp', token: 'XRP', from: 'rSharedDeposit', to: ADDR.XRP, amount: 98_166_666n, tag: 77, purpose: 'settlement', reference: s.id }]);
    expect(await row(s.id)).toMatchObject({ status: 'pending', note: null, transferIntents: ['intent_1'] });
    // the payment's trail shows the settlement with its transfer
    expect(await t.services.settlement.trailSettlements(p.id)).toEqual([
      { settlement: expect.objectContaining({ id: s.id, status: 'pending', destination_tag: 77, net: '98.166666' }), transfers: [{ intent_id: 'intent_1' }] },
    ]);
    // its dashboard update says it is no longer waiting
    const updates = await h.db().orm.select().from(events).where(and(eq(events.merchantId, m.id), eq(events.type, 'settlement:update'))).orderBy(events.seq);
    expect(updates.map((e) => (e.data as { id: string; note?: string }).note)).toEqual([NOTE_WAITING_TRANSFER, undefined]);
    // sent once: a second pass finds nothing
    expect(await sendWaitingTransfers(h.db(), port, t.services.settlement.deps, now())).toBe(0);
    expect(sent).toHaveLength(1);
    await expectLedgerHolds(h.db());
  });

  it('leaves a settlement waiting while the port cannot send on its chain, and sends it once it can', async () => {
    const m = await newMerchant();
    await addAddress(m, { token: 'USDT_TRC20', address: ADDR.TRON });
    const p = payment(m.id, { livemode: true, deposit_address: 'TDepositWaiting' });
    const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 50_000_000n, usd: '50' }]));
    expect(s).toMatchObject({ status: 'pending', note: NOTE_WAITING_TRANSFER });

    const noTron = recorder((c) => c !== 'tron');
    expect(await sendWaitingTransfers(h.db(), noTron.port, t.services.settlement.deps, now())).toBe(0);
    expect(noTron.sent).toEqual([]);
    expect(await row(s.id)).toMatchObject({ status: 'pending', note: NOTE_WAITING_TRANSFER, transferIntents: null });

    const tron = recorder((c) => c === 'tron');
    expect(await sendWaitingTransfers(h.db(), tron.port, t.services.settlement.deps, now())).toBe(1);
    expect(tron.sent.map((r) => [r.purpose, r.token, r.to, r.amount])).toEqual([
      ['settlement', 'USDT_TRC20', ADDR.TRON, s.net], ['service_fee', 'USDT_TRC20', undefined, s.serviceFee + s.networkFee],
    ]);
  });

  /** A live direct ETH settlement to a USDT_ERC20 address: planned as a swap, today waiting for the conversion service. */
  const swapSettlement = async () => {
    const m = await newMerchant();
    await addAddress(m, { token: 'USDT_ERC20', address: ADDR.EVM });
    const p = payment(m.id, { livemode: true, token: 'ETH', rate_locked: '3000', deposit_address: '0xDepositOfEth' });
    const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 10n ** 18n, usd: '3000' }]));
    expect(s).toMatchObject({ status: 'pending', note: NOTE_WAITING_CONVERSION, conversion: { via: 'swap', from: 'ETH', to: 'USDT_ERC20', status: 'pending' } });
    expect(s.conversionFee).toBeGreaterThan(0n);
    return s;
  };

  it('moves a waiting settlement whose conversion is still pending to waiting for the conversion service, sending nothing', async () => {
    const s = await swapSettlement();
    // as one made before conversions waited for their own service
    await h.db().orm.update(settlements).set({ note: NOTE_WAITING_TRANSFER }).where(eq(settlements.id, s.id));
    const { sent, port } = recorder();
    expect(await sendWaitingTransfers(h.db(), port, t.services.settlement.deps, now())).toBe(0);
    expect(sent).toEqual([]);
    expect(await row(s.id)).toMatchObject({ status: 'pending', note: NOTE_WAITING_CONVERSION, transferIntents: null });
  });

  it('sends what a done conversion bought, in the bought coin, and the whole service share with the conversion fee in the deposit coin', async () => {
    const s = await swapSettlement();
    const c = s.conversion as Record<string, unknown>;
    await h.db().orm.update(settlements).set({ note: NOTE_WAITING_TRANSFER, conversion: { via: 'swap', from: 'ETH', amount_in: c.amount_in, to: 'USDT_ERC20', amount_out: c.amount_out, status: 'done' } })
      .where(eq(settlements.id, s.id));
    const { sent, port } = recorder();
    expect(await sendWaitingTransfers(h.db(), port, t.services.settlement.deps, now())).toBe(1);
    expect(sent).toEqual([
      { chain: 'ethereum', token: 'USDT_ERC20', from: '0xDepositOfEth', to: ADDR.EVM, amount: BigInt(c.amount_out as string), purpose: 'settlement', reference: s.id },
      { chain: 'ethereum', token: 'ETH', from: '0xDepositOfEth', amount: s.serviceFee + s.networkFee + s.conversionFee, purpose: 'service_fee', reference: s.id },
    ]);
    // the deposit is moved whole: what the swap takes in plus the service's share
    expect(BigInt(c.amount_in as string) + s.serviceFee + s.networkFee + s.conversionFee).toBe(s.amount);
    expect(await row(s.id)).toMatchObject({ note: null, transferIntents: ['intent_1', 'intent_2'] });
  });

  it('sends a waiting settlement once when several passes run at once', async () => {
    const m = await newMerchant();
    await addAddress(m, { token: 'USDT_TRC20', address: ADDR.TRON });
    const [s] = await t.services.settlement.settle(h.db(), input(payment(m.id, { livemode: true, deposit_address: 'TDepositRace' }), [{ amount: 40_000_000n, usd: '40' }]));
    expect(s).toMatchObject({ status: 'pending', note: NOTE_WAITING_TRANSFER });
    // each send takes a while: the passes overlap inside the settlement's transaction
    const { sent, port } = recorder(undefined, 50);
    const counts = await Promise.all(Array.from({ length: 4 }, () => sendWaitingTransfers(h.db(), port, t.services.settlement.deps, now())));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(sent.filter((r) => r.reference === s.id).map((r) => r.purpose)).toEqual(['settlement', 'service_fee']);
    expect((await row(s.id)).transferIntents).toHaveLength(2);
  });
});

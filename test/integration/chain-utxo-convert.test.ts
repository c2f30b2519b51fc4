// A cross-network conversion from the Bitcoin family, on real nodes: a live LTC payment (litecoind
// regtest) for a merchant with only a USDT_ERC20 address (anvil) is exchanged by the service's
// treasury: the deposit is swept into the service's Litecoin hot wallet, and the merchant receives
// exactly `amount_out` USDT on Ethereum from the service's hot wallet there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { describeEachDb } from '../harness/databases.ts';
import { anvilOrSkip } from '../harness/anvil.ts';
import { useEvmNodes } from '../harness/evm-nodes.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';
import { payAndReportLtc, startLtcApp, unspentAt, type LtcApp } from '../harness/utxo-send.ts';
import {
  balanceOf, chainEnv, createLivePayment, fundHotWallet, hotWallet, merchantWithAddresses, owed, settlementsOf,
} from '../harness/chain-send.ts';
import { expectLedgerHolds } from '../harness/settlement.ts';
import { parseUnits } from '../../src/money/index.ts';
import { outgoingTransfers } from '../../src/chains/transfers/index.ts';
import { setLiveNetwork } from '../../src/chains/addresses/index.ts';
import { NOTE_CONVERTING } from '../../src/settlement/settlement-writer.ts';

describe.runIf(litecoindOrSkip() && anvilOrSkip())('LTC exchanged into USDT_ERC20 by the service\'s treasury', () => {
  const nodes = useEvmNodes();
  let ltc: LitecoinNode;
  beforeAll(async () => { ltc = await startLitecoind(); }, 60_000);
  afterAll(async () => { await ltc?.close(); setLiveNetwork('litecoin', 'main'); });

  describeEachDb('litecoind and anvil', (h) => {
    let t: LtcApp;
    beforeAll(async () => {
      t = await startLtcApp(h.db(), ltc, chainEnv(nodes));
      const hot = (await hotWallet(t, 'ethereum')).address;
      await fundHotWallet(nodes, 'ethereum', hot, 10n ** 18n, 10_000n * 10n ** 6n);
    });
    afterAll(async () => { await t?.close(); });

    it('the deposit is swept on litecoind, the merchant paid exactly amount_out on anvil', async () => {
      const m = await merchantWithAddresses(t, ['USDT_ERC20']);
      const p = await createLivePayment(t, m, 'LTC');
      const amount = owed(p);
      await payAndReportLtc(t, ltc, p.deposit_address, amount);
      const [pending] = await settlementsOf(t, p.id);
      expect(pending).toMatchObject({ status: 'pending', note: NOTE_CONVERTING, conversion: { via: 'exchange', from: 'LTC', to: 'USDT_ERC20', status: 'pending' } });

      for (let i = 0; i < 60 && (await settlementsOf(t, p.id))[0].status !== 'completed'; i++) {
        await t.services.sending.transfers.runOnce();
        await t.services.settlement.advanceConversions();
        await t.platform.outbox.drainNow();
        await Promise.all([ltc.mine(1), nodes.eth.mine(1)]);
      }
      const [s] = await settlementsOf(t, p.id);
      expect(s).toMatchObject({ status: 'completed', conversion: { status: 'done' } });
      const out = parseUnits(s.conversion.amount_out, 6)!;
      expect(await balanceOf(nodes, 'USDT_ERC20', m.addresses.USDT_ERC20!)).toBe(out);
      expect((await nodes.eth.client.getTransactionReceipt({ hash: s.tx_id as Hex })).status).toBe('success');
      const rows = await h.db().orm.select().from(outgoingTransfers).where(eq(outgoingTransfers.reference, s.id));
      expect(rows.map((r) => [r.purpose, r.chain, r.status]).sort()).toEqual([['settlement', 'ethereum', 'final'], ['sweep', 'litecoin', 'final']]);
      // the whole deposit left its address: what reached the hot wallet and the network's fee
      expect(await unspentAt(ltc, p.deposit_address)).toBe(0n);
      await expectLedgerHolds(h.db());
    });
  });
});

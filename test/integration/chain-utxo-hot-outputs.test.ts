// The hot wallet's tracked outputs (HotOutputs) as a send reserves them: inside the transaction that
// stores the spend's signed bytes, which holds the wallet's free outputs locked meanwhile, so a
// spend of many inputs (a consolidation takes up to 1,303) is reserved in a fixed number of
// statements, not one per output; what a transfer held before is let go.
import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { and, eq, isNull } from 'drizzle-orm';
import { HotOutputs, utxoHotOutputs, type HotOutput } from '../../src/chains/utxo/send/hot-outputs.ts';
import type { Executor } from '../../src/platform/db/index.ts';

/** `ex`, counting the statements started through it. */
function counting(ex: Executor): { ex: Executor; statements: () => number } {
  let n = 0;
  const started = new Set(['select', 'insert', 'update', 'delete', 'execute']);
  const proxy = new Proxy(ex, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop === 'string' && started.has(prop) && typeof v === 'function') {
        return (...args: unknown[]) => { n++; return (v as (...a: unknown[]) => unknown).apply(target, args); };
      }
      return v;
    },
  });
  return { ex: proxy, statements: () => n };
}

describeEachDb('hot-wallet outputs reserved by a send', (h) => {
  it('a spend of many outputs reserves them in a fixed number of statements; its earlier ones are let go', async () => {
    const store = new HotOutputs(h.db());
    const txid = crypto.randomBytes(32).toString('hex');
    const outs: HotOutput[] = Array.from({ length: 300 }, (_, vout) => ({ txid, vout, amount: 1_000n + BigInt(vout), height: 10 }));
    await store.add('litecoin', true, outs, new Date());
    // an output of the other mode's wallet, of another transaction
    const other = crypto.randomBytes(32).toString('hex');
    await store.add('litecoin', false, [{ txid: other, vout: 0, amount: 5n, height: 10 }], new Date());
    /** The vouts of the transaction's outputs no transfer holds. */
    const unheld = async () => (await h.db().orm.select({ vout: utxoHotOutputs.vout }).from(utxoHotOutputs)
      .where(and(eq(utxoHotOutputs.txid, txid), isNull(utxoHotOutputs.spentBy))).orderBy(utxoHotOutputs.vout)).map((r) => r.vout);

    const first = outs.slice(0, 250);
    await h.db().transaction(async (tx) => {
      const c = counting(tx);
      await store.reserve(c.ex, 'litecoin', 'trf_many', first);
      expect(c.statements()).toBeLessThanOrEqual(2);
    });
    expect((await store.of(h.db().orm, 'litecoin', 'trf_many')).map((o) => o.vout)).toEqual(first.map((o) => o.vout));
    expect(await unheld()).toEqual(outs.slice(250).map((o) => o.vout));

    // signed again with other outputs: the first ones are free again
    const second = [...outs.slice(200, 210), outs[299]];
    await store.reserve(h.db().orm, 'litecoin', 'trf_many', second);
    expect((await store.of(h.db().orm, 'litecoin', 'trf_many')).map((o) => o.vout)).toEqual(second.map((o) => o.vout));
    expect(await unheld()).toHaveLength(300 - second.length);
    // the same outpoint on another chain is not touched
    await store.reserve(h.db().orm, 'dogecoin', 'trf_many', [{ txid, vout: 0 }]);
    expect(await store.of(h.db().orm, 'litecoin', 'trf_many')).toHaveLength(second.length);

    // nothing: all let go
    await store.reserve(h.db().orm, 'litecoin', 'trf_many', []);
    expect(await store.of(h.db().orm, 'litecoin', 'trf_many')).toEqual([]);
    expect(await unheld()).toHaveLength(300);
    expect((await h.db().orm.select().from(utxoHotOutputs).where(eq(utxoHotOutputs.txid, other)))[0].spentBy).toBeNull();
  });
});

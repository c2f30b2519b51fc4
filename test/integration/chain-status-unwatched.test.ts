// GET /admin/chains from a process that does not watch the chain: it shows the state the watching
// process stored, until that state has not been kept up for longer than the chain's staleness limit
// (the watching process died or hangs): then `stale`, saying why, however `ok` it was.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { ADMIN } from '../harness/chain-send.ts';
import { startTronSim, type TronSim } from '../sim/tron/server.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { STALE_AFTER_S } from '../../src/chains/watch/service.ts';
import { NOT_REPORTED } from '../../src/chains/watch/report.ts';

describeEachDb('/admin/chains from a process that does not watch the chain', (h) => {
  let sim: TronSim;
  let watching: TestApp;
  let other: TestApp;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    sim = await startTronSim(() => clock.now().getTime());
    sim.chain.mine(1);
    const env = { TRON_API_URL: sim.url };
    // two processes of one service: the first watches Tron (its passes driven here), the second never does
    watching = await startTestApp(h.db(), { clock, env });
    other = await startTestApp(h.db(), { clock, env });
  });
  afterAll(async () => {
    await other?.close();
    await watching?.close();
    await sim?.stop();
  });

  const tron = async (t: TestApp) => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/chains', headers: ADMIN });
    expect(res.statusCode).toBe(200);
    return res.json().chains.find((c: { chain: string }) => c.chain === 'tron');
  };

  it('shows the stored ok while it is kept up, stale once nothing has updated it for longer than the limit', async () => {
    await watching.services.watching.runOnce();
    const height = Number(sim.chain.head.number);
    expect(await tron(other)).toMatchObject({ status: 'ok', height, last_error: null });

    // the watching process stops (its last word was ok); blocks go on being produced
    clock.advance(STALE_AFTER_S.tron * 1000 - 1000);
    expect((await tron(other)).status).toBe('ok');
    clock.advance(2000);
    const shown = await tron(other);
    expect(shown).toMatchObject({ status: 'stale', height, last_error: NOT_REPORTED(STALE_AFTER_S.tron + 1) });

    // watched again: the row is current and says so everywhere
    sim.chain.mine(1);
    await watching.services.watching.runOnce();
    expect(await tron(other)).toMatchObject({ status: 'ok', height: height + 1, last_error: null });
  });
});

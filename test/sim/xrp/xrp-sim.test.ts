// The XRP simulator checked with the official SDK (xrpl.js 5, API v2 over WebSocket) and by hand
// over JSON-RPC: what it accepts and refuses, and the shapes it answers in, so the gateway's XRP
// code is tested against the protocol rather than against our own idea of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Wallet, xrpToDrops, type Payment, type TransactionMetadata } from 'xrpl';
import { GENESIS, startXrpSim, type XrpSim } from './server.ts';

let sim: XrpSim;
let client: Client;
const genesis = Wallet.fromSeed(GENESIS.seed);

async function rpc(method: string, params: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await fetch(sim.httpUrl, { method: 'POST', body: JSON.stringify({ method, params: [params] }) });
  return ((await res.json()) as { result: Record<string, any> }).result;
}

/** Signs and submits with the SDK's autofill; the ledger is closed by the test. */
async function pay(from: Wallet, to: string, amount: string, extra: Partial<Payment> = {}) {
  const tx = await client.autofill({ TransactionType: 'Payment', Account: from.address, Destination: to, Amount: amount, ...extra } as Payment);
  const signed = from.sign(tx);
  const res = await client.submit(signed.tx_blob);
  return { engine: res.result.engine_result, hash: signed.hash, blob: signed.tx_blob };
}

beforeAll(async () => {
  sim = await startXrpSim();
  client = new Client(sim.wsUrl);
  await client.connect();
});
afterAll(async () => {
  await client?.disconnect();
  await sim?.stop();
});

describe('XRP simulator, driven by xrpl.js', () => {
  it('funds a new account from genesis: tesSUCCESS once validated, delivered_amount in the metadata', async () => {
    const w = Wallet.generate();
    const { engine, hash } = await pay(genesis, w.address, xrpToDrops(50));
    expect(engine).toBe('tesSUCCESS');
    sim.close();
    const tx = await client.request({ command: 'tx', transaction: hash });
    expect(tx.result.validated).toBe(true);
    expect(tx.result.tx_json.TransactionType).toBe('Payment');
    expect((tx.result.tx_json as Payment).DeliverMax).toBe('50000000');
    expect((tx.result.meta as TransactionMetadata).TransactionResult).toBe('tesSUCCESS');
    expect((tx.result.meta as TransactionMetadata).delivered_amount).toBe('50000000');
    expect(await client.getXrpBalance(w.address)).toBe(50);
  });

  it('accepts secp256k1 and ed25519 signatures, and a wallet made from raw BIP-32 key bytes', async () => {
    for (const algorithm of ['ecdsa-secp256k1', 'ed25519'] as const) {
      const w = Wallet.generate(algorithm as never);
      await pay(genesis, w.address, xrpToDrops(20));
      sim.close();
      const back = await pay(w, genesis.address, xrpToDrops(1));
      expect(back.engine).toBe('tesSUCCESS');
      sim.close();
    }
    const raw = Wallet.generate();
    const fromKeys = new Wallet(raw.publicKey, raw.privateKey);
    await pay(genesis, fromKeys.address, xrpToDrops(20));
    sim.close();
    expect((await pay(fromKeys, genesis.address, '1000')).engine).toBe('tesSUCCESS');
    sim.close();
  });

  it('refuses a tampered signature, a reused sequence and an expired LastLedgerSequence', async () => {
    const w = Wallet.generate();
    const ok = await pay(genesis, w.address, xrpToDrops(30));
    sim.close();
    // Flip a byte of the amount: the signature no longer matches.
    const tampered = ok.blob.replace(/6140000000/, '6140000001');
    expect((await client.request({ command: 'submit', tx_blob: tampered })).result.engine_result).toBe('temBAD_SIGNATURE');
    expect((await client.request({ command: 'submit', tx_blob: ok.blob })).result.engine_result).toBe('tefPAST_SEQ');
    const old = await client.autofill({ TransactionType: 'Payment', Account: w.address, Destination: genesis.address, Amount: '100' } as Payment);
    old.LastLedgerSequence = sim.ledger.currentIndex - 1;
    expect((await client.submit(w.sign(old).tx_blob)).result.engine_result).toBe('tefMAX_LEDGER');
  });

  it('keeps the reserve: a new account needs 1 XRP, a tec result still burns the fee', async () => {
    const w = Wallet.generate();
    const before = sim.ledger.accounts.get(genesis.address)!.balance;
    expect((await pay(genesis, w.address, '999999')).engine).toBe('tecNO_DST_INSUF_XRP');
    sim.close();
    expect(sim.ledger.accounts.has(w.address)).toBe(false);
    expect(before - sim.ledger.accounts.get(genesis.address)!.balance).toBe(BigInt(12));
  });

  it('RequireDest: a payment without a destination tag is tecDST_TAG_NEEDED, with one it arrives', async () => {
    const svc = Wallet.generate();
    await pay(genesis, svc.address, xrpToDrops(10));
    sim.close();
    const set = await client.autofill({ TransactionType: 'AccountSet', Account: svc.address, SetFlag: 1 });
    expect((await client.submit(svc.sign(set).tx_blob)).result.engine_result).toBe('tesSUCCESS');
    sim.close();
    expect((await pay(genesis, svc.address, xrpToDrops(2))).engine).toBe('tecDST_TAG_NEEDED');
    expect((await pay(genesis, svc.address, xrpToDrops(2), { DestinationTag: 100042 })).engine).toBe('tesSUCCESS');
    sim.close();
    // 10 + 2 XRP received, less the 12 drops the AccountSet burnt.
    expect(await client.getXrpBalance(svc.address)).toBe(11.999988);
  });

  it('DepositAuth: a payment is tecNO_PERMISSION (its fee burnt) unless both it and the balance are at most the base reserve; deposit_authorized tells', async () => {
    const dst = Wallet.generate();
    await pay(genesis, dst.address, xrpToDrops(1));
    sim.close();
    const set = await client.autofill({ TransactionType: 'AccountSet', Account: dst.address, SetFlag: 9 });
    expect((await client.submit(dst.sign(set).tx_blob)).result.engine_result).toBe('tesSUCCESS');
    sim.close();
    expect(await rpc('deposit_authorized', { source_account: genesis.address, destination_account: dst.address, ledger_index: 'validated' }))
      .toMatchObject({ deposit_authorized: false, validated: true });
    expect(await rpc('deposit_authorized', { source_account: dst.address, destination_account: genesis.address })).toMatchObject({ deposit_authorized: true });
    expect((await pay(genesis, dst.address, xrpToDrops(2))).engine).toBe('tecNO_PERMISSION');
    // its balance (1 XRP less a fee) and the payment are at most the base reserve: it may still be paid
    expect((await pay(genesis, dst.address, xrpToDrops(1))).engine).toBe('tesSUCCESS');
    sim.close();
    expect((await pay(genesis, dst.address, xrpToDrops(1))).engine).toBe('tecNO_PERMISSION');
  });

  it('streams validated transactions of a subscribed account and closed ledgers', async () => {
    const w = Wallet.generate();
    const seen: Array<{ hash?: string; validated?: boolean; tag?: number }> = [];
    const ledgers: number[] = [];
    client.on('transaction', (t) => seen.push({ hash: t.hash, validated: t.validated, tag: (t.tx_json as Payment | undefined)?.DestinationTag }));
    client.on('ledgerClosed', (l) => ledgers.push(l.ledger_index));
    await client.request({ command: 'subscribe', accounts: [w.address], streams: ['ledger'] });
    const { hash } = await pay(genesis, w.address, xrpToDrops(5), { DestinationTag: 7 });
    const closed = sim.close();
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toEqual({ hash, validated: true, tag: 7 });
    await expect.poll(() => ledgers).toContain(closed.index);
  });

  it('holds ledgers back from validation when asked: validated=false until then', async () => {
    const w = Wallet.generate();
    sim.ledger.validationLag = 1;
    const { hash } = await pay(genesis, w.address, xrpToDrops(5));
    sim.close();
    expect((await client.request({ command: 'tx', transaction: hash })).result.validated).toBe(false);
    sim.validateAll();
    expect((await client.request({ command: 'tx', transaction: hash })).result.validated).toBe(true);
  });
});

describe('XRP simulator over JSON-RPC', () => {
  it('answers rippled-style results and errors', async () => {
    const info = await rpc('server_info');
    expect(info.status).toBe('success');
    expect(info.info.validated_ledger.base_fee_xrp).toBe(0.00001);
    const missing = await rpc('account_info', { account: Wallet.generate().address, ledger_index: 'validated' });
    expect(missing).toMatchObject({ status: 'error', error: 'actNotFound', error_code: 19 });
    expect(await rpc('no_such_method')).toMatchObject({ status: 'error', error: 'unknownCmd' });
  });

  it('ledger with expanded transactions: v2 {tx_json, meta, hash}, v1 flat with metaData', async () => {
    const w = Wallet.generate();
    const { hash } = await pay(genesis, w.address, xrpToDrops(3), { DestinationTag: 9 });
    const l = sim.close();
    const v2 = await rpc('ledger', { ledger_index: l.index, transactions: true, expand: true, api_version: 2 });
    expect(v2.validated).toBe(true);
    expect(v2.ledger.ledger_index).toBe(l.index);
    const t2 = v2.ledger.transactions.find((t: { hash: string }) => t.hash === hash);
    expect(t2.tx_json).toMatchObject({ DestinationTag: 9, DeliverMax: '3000000' });
    expect(t2.tx_json.Amount).toBeUndefined();
    expect(t2.meta.delivered_amount).toBe('3000000');
    const v1 = await rpc('ledger', { ledger_index: l.index, transactions: true, expand: true });
    expect(v1.ledger.ledger_index).toBe(String(l.index));
    const t1 = v1.ledger.transactions.find((t: { hash: string }) => t.hash === hash);
    expect(t1).toMatchObject({ Amount: '3000000', DeliverMax: '3000000', DestinationTag: 9 });
    expect(t1.metaData.TransactionResult).toBe('tesSUCCESS');
  });

  it('account_tx pages with a marker, oldest first with forward', async () => {
    const w = Wallet.generate();
    for (let i = 0; i < 3; i++) {
      await pay(genesis, w.address, xrpToDrops(2 + i));
      sim.close();
    }
    const first = await rpc('account_tx', { account: w.address, forward: true, limit: 2, api_version: 2 });
    expect(first.transactions.map((t: any) => t.tx_json.DeliverMax)).toEqual(['2000000', '3000000']);
    const rest = await rpc('account_tx', { account: w.address, forward: true, limit: 2, marker: first.marker, api_version: 2 });
    expect(rest.transactions.map((t: any) => t.tx_json.DeliverMax)).toEqual(['4000000']);
    expect(rest.marker).toBeUndefined();
  });

  it('an injected partial payment shows its delivered amount apart from its DeliverMax', async () => {
    const w = Wallet.generate();
    const hash = sim.ledger.inject(
      { TransactionType: 'Payment', Account: genesis.address, Destination: w.address, DestinationTag: 5, Amount: '1000000000', Flags: 0x00020000, Fee: '12' },
      { TransactionResult: 'tesSUCCESS', delivered_amount: '1500', AffectedNodes: [] },
    );
    sim.close();
    const tx = await rpc('tx', { transaction: hash, api_version: 2 });
    expect(tx.tx_json.DeliverMax).toBe('1000000000');
    expect(tx.meta.delivered_amount).toBe('1500');
  });

  it('answers garbage when told to, and comes back on the same port after a stop', async () => {
    sim.garbage = true;
    const res = await fetch(sim.httpUrl, { method: 'POST', body: '{}' });
    expect(res.status).toBe(502);
    sim.garbage = false;
    const url = sim.httpUrl;
    await sim.stop();
    await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toThrow();
    await sim.start();
    expect(sim.httpUrl).toBe(url);
    expect((await rpc('ledger_current')).ledger_current_index).toBe(sim.ledger.currentIndex);
  });
});

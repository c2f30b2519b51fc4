// The signing of both script types the family spends, checked by a real node (litecoind regtest,
// `testmempoolaccept`): P2WPKH inputs as on Bitcoin and Litecoin, and legacy P2PKH inputs signed
// over the whole previous transaction, version 1 and no replaceability, as on Dogecoin 1.14 (which
// shares its regtest P2PKH version byte, 0x6f, with Litecoin's regtest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { hash160, encodeBase58Check, encodeSegwit } from '../../src/chains/addresses/encoding.ts';
import { UTXO_NETWORKS } from '../../src/chains/addresses/index.ts';
import { HDKey } from '@scure/bip32';
import { UTXO_COINS, coinsToBaseUnits, scriptOfAddress } from '../../src/chains/utxo/index.ts';
import { signSpend } from '../../src/chains/utxo/send/sign.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';

describe.runIf(litecoindOrSkip())('signed spends accepted by litecoind', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); }, 60_000);
  afterAll(async () => { await node?.close(); });

  const key = HDKey.fromMasterSeed(new Uint8Array(32).fill(9)).derive("m/0/1");
  const regtest = UTXO_NETWORKS.litecoin.regtest;

  async function fund(address: string, ltc: string) {
    const txid = await node.pay(address, ltc);
    await node.mine(1);
    const tx = await node.rpc<{ hex: string; vout: Array<{ n: number; value: number; scriptPubKey: { hex: string } }> }>('getrawtransaction', [txid, true]);
    const out = tx.vout.find((o) => o.scriptPubKey.hex === hex.encode(scriptOfAddress(regtest, address)!))!;
    return { txid, vout: out.n, amount: coinsToBaseUnits(out.value), script: hex.decode(out.scriptPubKey.hex), prevRaw: hex.decode(tx.hex) };
  }

  it.each([
    ['P2WPKH (Bitcoin, Litecoin)', 'litecoin', (pub: Uint8Array) => encodeSegwit(regtest.hrp!, 0, hash160(pub))],
    ['P2PKH (Dogecoin)', 'dogecoin', (pub: Uint8Array) => encodeBase58Check(regtest.p2pkh, hash160(pub))],
  ] as const)('%s', async (_name, coin, addressOf) => {
    const from = addressOf(key.publicKey!);
    const input = await fund(from, '1.5');
    const to = await node.minerAddress();
    const signed = await signSpend(UTXO_COINS[coin], [input], [{ script: scriptOfAddress(regtest, to)!, amount: input.amount - 100_000n }], key.privateKey!);
    const [verdict] = await node.rpc<Array<{ allowed: boolean; 'reject-reason'?: string; txid: string }>>('testmempoolaccept', [[signed.raw]]);
    expect(verdict).toMatchObject({ allowed: true, txid: signed.txId });
    const decoded = await node.rpc<{ version: number; vin: Array<{ sequence: number }> }>('decoderawtransaction', [signed.raw]);
    expect(decoded.version).toBe(coin === 'dogecoin' ? 1 : 2);
    expect(decoded.vin[0].sequence).toBe(coin === 'dogecoin' ? 0xffffffff : 0xfffffffd);
  });
});

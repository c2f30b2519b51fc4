// Every Litecoin payout-address format the service accepts (validatePayoutAddress, live on a regtest
// node) is one the sender can pay: the output script scriptOfAddress builds is the one the node
// itself makes of that address (validateaddress), the signed spend is accepted (testmempoolaccept),
// and the node reads the output back as the same address. Litecoin regtest shares Bitcoin's
// segwit rules (P2WPKH, P2WSH, P2TR, and BIP-350's future witness versions 1 to 16, which it relays
// as witness_unknown) and has both P2SH version bytes (Q… and the older 2…).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bech32m, hex } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hash160, encodeBase58Check, encodeSegwit } from '../../src/chains/addresses/encoding.ts';
import { UTXO_NETWORKS, setLiveNetwork, validatePayoutAddress } from '../../src/chains/addresses/index.ts';
import { UTXO_COINS, coinsToBaseUnits, scriptOfAddress } from '../../src/chains/utxo/index.ts';
import { signSpend } from '../../src/chains/utxo/send/sign.ts';
import { litecoindOrSkip, startLitecoind, type LitecoinNode } from '../harness/litecoind.ts';

describe.runIf(litecoindOrSkip())('payout address formats paid on litecoind regtest', () => {
  let node: LitecoinNode;
  beforeAll(async () => { node = await startLitecoind(); setLiveNetwork('litecoin', 'regtest'); }, 60_000);
  afterAll(async () => { setLiveNetwork('litecoin', 'main'); await node?.close(); });

  const key = HDKey.fromMasterSeed(new Uint8Array(32).fill(12)).derive('m/0/3');
  const regtest = UTXO_NETWORKS.litecoin.regtest;
  const someHash = hash160(new Uint8Array([1, 2, 3]));
  const xOnly = secp256k1.getPublicKey(new Uint8Array(32).fill(5), true).subarray(1);
  const fortyBytes = new Uint8Array(40).fill(7);

  const formats: Array<[string, string, string]> = [
    ['P2PKH (m…/n…)', encodeBase58Check(regtest.p2pkh, someHash), `76a914${hex.encode(someHash)}88ac`],
    ['P2SH (Q…)', encodeBase58Check(0x3a, someHash), `a914${hex.encode(someHash)}87`],
    ['legacy P2SH (2…)', encodeBase58Check(0xc4, someHash), `a914${hex.encode(someHash)}87`],
    ['P2WPKH (rltc1q…, 20 bytes)', encodeSegwit('rltc', 0, someHash), `0014${hex.encode(someHash)}`],
    ['P2WSH (rltc1q…, 32 bytes)', encodeSegwit('rltc', 0, sha256(new Uint8Array([9]))), `0020${hex.encode(sha256(new Uint8Array([9])))}`],
    ['P2TR (rltc1p…, bech32m)', encodeSegwit('rltc', 1, xOnly), `5120${hex.encode(xOnly)}`],
    ['P2TR in upper case', encodeSegwit('rltc', 1, xOnly).toUpperCase(), `5120${hex.encode(xOnly)}`],
    // BIP-350's future witness versions (rltc1z…, …): OP_n and the program's push
    ['witness v2 (rltc1z…, 32 bytes)', encodeSegwit('rltc', 2, xOnly), `5220${hex.encode(xOnly)}`],
    ['witness v16 (rltc1s…, 2 bytes)', encodeSegwit('rltc', 16, someHash.subarray(0, 2)), `6002${hex.encode(someHash.subarray(0, 2))}`],
    ['witness v5 (40 bytes)', encodeSegwit('rltc', 5, fortyBytes), `5528${hex.encode(fortyBytes)}`],
    ['witness v1 of 20 bytes (not taproot)', encodeSegwit('rltc', 1, someHash), `5114${hex.encode(someHash)}`],
  ];

  it.each(formats)('%s: accepted, paid with the script it means, and the node takes the spend', async (_name, address, script) => {
    const check = validatePayoutAddress('LTC', address, true);
    expect(check.ok).toBe(true);
    const stored = (check as { normalized: string }).normalized;
    const ours = scriptOfAddress(regtest, stored)!;
    expect(hex.encode(ours)).toBe(script);
    const v = await node.rpc<{ isvalid: boolean; scriptPubKey: string }>('validateaddress', [stored]);
    expect(v).toMatchObject({ isvalid: true, scriptPubKey: script });

    const from = encodeSegwit(regtest.hrp!, 0, hash160(key.publicKey!));
    const txid = await node.pay(from, '1');
    await node.mine(1);
    const prev = await node.rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { hex: string } }> }>('getrawtransaction', [txid, true]);
    const out = prev.vout.find((o) => o.scriptPubKey.hex === hex.encode(scriptOfAddress(regtest, from)!))!;
    const input = { txid, vout: out.n, amount: coinsToBaseUnits(out.value), script: hex.decode(out.scriptPubKey.hex), height: 0 };
    // with the change as the sender has it: a lone 2-byte program's spend is under the node's smallest size (tx-size-small)
    const change = { script: input.script, amount: input.amount - 10_000_000n - 100_000n };
    const signed = await signSpend(UTXO_COINS.litecoin, [input], [{ script: ours, amount: 10_000_000n }, change], key.privateKey!);
    const [verdict] = await node.rpc<Array<{ allowed: boolean; 'reject-reason'?: string }>>('testmempoolaccept', [[signed.raw]]);
    expect(verdict, verdict['reject-reason']).toMatchObject({ allowed: true });
    const decoded = await node.rpc<{ vout: Array<{ scriptPubKey: { hex: string; address?: string; addresses?: string[] } }> }>('decoderawtransaction', [signed.raw]);
    expect(decoded.vout[0].scriptPubKey.hex).toBe(script);
  }, 60_000);

  it('pays a witness v2 address: mined, the node reads a witness_unknown output of exactly the amount', async () => {
    const address = encodeSegwit('rltc', 2, xOnly);
    const stored = (validatePayoutAddress('LTC', address.toUpperCase(), true) as { normalized: string }).normalized;
    expect(stored).toBe(address);
    const from = encodeSegwit(regtest.hrp!, 0, hash160(key.publicKey!));
    const funding = await node.pay(from, '1');
    await node.mine(1);
    const prev = await node.rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { hex: string } }> }>('getrawtransaction', [funding, true]);
    const out = prev.vout.find((o) => o.scriptPubKey.hex === hex.encode(scriptOfAddress(regtest, from)!))!;
    const input = { txid: funding, vout: out.n, amount: coinsToBaseUnits(out.value), script: hex.decode(out.scriptPubKey.hex), height: 0 };
    const amount = input.amount - 100_000n;
    const signed = await signSpend(UTXO_COINS.litecoin, [input], [{ script: scriptOfAddress(regtest, stored)!, amount }], key.privateKey!);
    const txid = await node.rpc<string>('sendrawtransaction', [signed.raw]);
    await node.mine(1);
    const mined = await node.rpc<{ confirmations: number; vout: Array<{ value: number; scriptPubKey: { hex: string; type: string } }> }>('getrawtransaction', [txid, true]);
    expect(mined.confirmations).toBe(1);
    expect(mined.vout).toHaveLength(1);
    expect(mined.vout[0].scriptPubKey).toMatchObject({ hex: `5220${hex.encode(xOnly)}`, type: 'witness_unknown' });
    expect(coinsToBaseUnits(mined.vout[0].value)).toBe(amount);
    const script = await node.rpc<{ type: string }>('decodescript', [mined.vout[0].scriptPubKey.hex]);
    expect(script.type).toBe('witness_unknown');
  }, 60_000);

  it('refuses what the node cannot pay or reads otherwise: witness v17, 1- or 41-byte programs, mixed case, bech32 on v1, bech32m on v0, MWEB, mainnet forms', async () => {
    const refused = [
      bech32m.encode('rltc', [17, ...bech32m.toWords(xOnly)]),
      encodeSegwit('rltc', 2, new Uint8Array([1])),
      encodeSegwit('rltc', 2, new Uint8Array(41)),
      encodeSegwit('ltc', 1, xOnly),
      `RLTC1${encodeSegwit('rltc', 1, xOnly).slice(5)}`, // mixed case (BIP-173)
      encodeBase58Check(0x30, someHash),
      'ltcmweb1qq20e2arnhvxw97katjkmsd35agw3capxjkrkh7dk8szp0s5hpd9d6qjgvyrm0pvqz5m0p7yvsynp5pl5wh4s2hkxwl8k5x4zkqcf4kqpxt6j4zp',
    ];
    for (const a of refused) expect(validatePayoutAddress('LTC', a, true)).toMatchObject({ ok: false, message: 'address is not a valid litecoin address' });
  });
});

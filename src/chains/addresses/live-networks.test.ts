import { afterEach, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { encodeBase58Check, encodeSegwit } from './encoding.ts';
import { UTXO_NETWORKS } from './networks.ts';
import { inModeNetwork, setLiveNetwork } from './live-networks.ts';
import { scriptOfAddress } from '../utxo/scripts.ts';

const hash = new Uint8Array(20).fill(0x42);

describe('inModeNetwork', () => {
  afterEach(() => { for (const c of ['bitcoin', 'litecoin', 'dogecoin'] as const) setLiveNetwork(c, 'main'); });

  it.each([
    ['bitcoin', 0x05], ['litecoin', 0x32], ['litecoin', 0x05], ['dogecoin', 0x16],
  ] as const)('writes a %s mainnet P2SH address (version %i) for a regtest node, as it does P2PKH and segwit', (chain, version) => {
    setLiveNetwork(chain, 'regtest');
    const regtest = UTXO_NETWORKS[chain].regtest;
    const moved = inModeNetwork(chain, true, encodeBase58Check(version, hash));
    expect(moved).toBe(encodeBase58Check(regtest.p2sh[0], hash));
    expect(hex.encode(scriptOfAddress(regtest, moved)!)).toBe(`a914${hex.encode(hash)}87`);
    expect(inModeNetwork(chain, true, encodeBase58Check(UTXO_NETWORKS[chain].main.p2pkh, hash))).toBe(encodeBase58Check(regtest.p2pkh, hash));
  });

  it('leaves an address already in the network, and other chains, as they are', () => {
    setLiveNetwork('litecoin', 'regtest');
    const q = encodeBase58Check(0x3a, hash);
    expect(inModeNetwork('litecoin', true, q)).toBe(q);
    expect(inModeNetwork('litecoin', true, encodeSegwit('ltc', 0, hash))).toBe(encodeSegwit('rltc', 0, hash));
    expect(inModeNetwork('tron', true, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  });
});

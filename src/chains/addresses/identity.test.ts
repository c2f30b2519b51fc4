import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { addressIdentity, identityForms } from './identity.ts';
import { encodeBase58Check, encodeSegwit, encodeXrpBase58Check, toChecksumAddress } from './encoding.ts';

const H = hex.decode('751e76e8199196d454941c45d1b3a323f1433bd6');

describe('addressIdentity', () => {
  it('is the key hash of a P2WPKH or P2PKH address of any network of the chain, and of an XRP account', () => {
    const id = 'k:751e76e8199196d454941c45d1b3a323f1433bd6';
    for (const a of [encodeSegwit('bc', 0, H), encodeSegwit('tb', 0, H).toUpperCase(), encodeSegwit('bcrt', 0, H), encodeBase58Check(0x00, H), encodeBase58Check(0x6f, H)]) {
      expect(addressIdentity('bitcoin', a), a).toBe(id);
    }
    for (const a of [encodeSegwit('ltc', 0, H), encodeSegwit('rltc', 0, H), encodeBase58Check(0x30, H)]) expect(addressIdentity('litecoin', a), a).toBe(id);
    for (const a of [encodeBase58Check(0x1e, H), encodeBase58Check(0x71, H)]) expect(addressIdentity('dogecoin', a), a).toBe(id);
    expect(addressIdentity('xrp', encodeXrpBase58Check(0, H))).toBe(id);
  });

  it('is the account id of an EVM address in any case and of a Tron address', () => {
    const id = `a:${hex.encode(H)}`;
    for (const a of [toChecksumAddress(H), `0x${hex.encode(H)}`, `0x${hex.encode(H).toUpperCase()}`]) {
      expect(addressIdentity('ethereum', a)).toBe(id);
      expect(addressIdentity('bsc', a)).toBe(id);
    }
    expect(addressIdentity('tron', encodeBase58Check(0x41, H))).toBe(id);
  });

  it('gives none to script addresses, which pay no single key', () => {
    expect(addressIdentity('bitcoin', encodeBase58Check(0x05, H))).toBeNull();
    expect(addressIdentity('bitcoin', encodeSegwit('bc', 0, new Uint8Array(32).fill(1)))).toBeNull();
    expect(addressIdentity('litecoin', encodeBase58Check(0x32, H))).toBeNull();
  });
});

describe('identityForms', () => {
  it('writes the identity in every form it can be stored in', () => {
    const k = identityForms(`k:${hex.encode(H)}`);
    for (const a of [encodeSegwit('bc', 0, H), encodeSegwit('tltc', 0, H), encodeBase58Check(0x1e, H), encodeBase58Check(0x71, H), encodeXrpBase58Check(0, H)]) expect(k).toContain(a);
    expect(identityForms(`a:${hex.encode(H)}`)).toEqual([toChecksumAddress(H), `0x${hex.encode(H)}`, encodeBase58Check(0x41, H)]);
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { deriveChildKey } from './child-key.ts';

const root = HDKey.fromMasterSeed(mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'));

describe('deriveChildKey', () => {
  it('equals @scure/bip32 deriveChild for any non-hardened index (property)', () => {
    const branches = ["m/84'/0'/0'/0", "m/44'/60'/11'/0", "m/44'/144'/3'/0"].map((p) => root.derive(p));
    fc.assert(
      fc.property(fc.constantFrom(...branches), fc.integer({ min: 0, max: 0x7fffffff }), (branch, index) => {
        const expected = branch.deriveChild(index);
        const got = deriveChildKey(branch, index);
        expect(got.privateKey).toEqual(expected.privateKey);
        expect(got.publicKey).toEqual(expected.publicKey);
        expect(got.uncompressedPublicKey).toEqual(secp256k1.getPublicKey(expected.privateKey!, false));
      }),
      { numRuns: 40 },
    );
  });

  it('needs a private parent', () => {
    const neutered = HDKey.fromExtendedKey(root.derive("m/44'/60'/0'/0").publicExtendedKey);
    expect(() => deriveChildKey(neutered, 0)).toThrow(/private extended key/);
  });
});

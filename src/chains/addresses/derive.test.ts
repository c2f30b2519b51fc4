import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { networks, payments, type Network } from 'bitcoinjs-lib';
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey, privateKeyToAccount } from 'viem/accounts';
import { toHex } from 'viem';
import { CHAINS, type Chain } from '../../config.ts';
import {
  addressOfPublicKey, deriveDepositAddress, deriveDepositKey, hotWalletAddress, seedFromMnemonic, validatePayoutAddress,
  xrpServiceAddress, MAX_ADDRESS_INDEX,
} from './index.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const seed = seedFromMnemonic(MNEMONIC);

// Published first addresses of the BIP-39 test mnemonic at the standard paths (BIP-84's own vector for
// Bitcoin; Ian Coleman's tool, Ledger, Trust Wallet and xrpl.js agree on the others).
const PUBLISHED: Array<[Chain, string, string]> = [
  ['bitcoin', "m/84'/0'/0'/0/0", 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
  ['bitcoin', "m/84'/0'/0'/0/1", 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'],
  ['litecoin', "m/84'/2'/0'/0/0", 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh'],
  ['litecoin', "m/84'/2'/0'/0/1", 'ltc1qwlezpr3890hcp6vva9twqh27mr6edadreqvhnn'],
  ['dogecoin', "m/44'/3'/0'/0/0", 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC'],
  ['ethereum', "m/44'/60'/0'/0/0", '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'],
  ['tron', "m/44'/195'/0'/0/0", 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'],
  ['tron', "m/44'/195'/0'/0/1", 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK'],
  ['xrp', "m/44'/144'/0'/0/0", 'rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3'],
  ['xrp', "m/44'/144'/0'/0/1", 'r3AgF9mMBFtaLhKcg96weMhbbEFLZ3mx17'],
];

// ---- An independent reference: @scure/bip32's full path derivation (the implementation does the last
// step with libsecp256k1), viem's private-key accounts, bitcoinjs-lib payments, node:crypto hashes and
// a BigInt base58 written here, none of which the implementation uses.
const litecoin: Network = { ...networks.bitcoin, bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 };
const litecoinTest: Network = { ...networks.testnet, bech32: 'tltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef };
const dogecoin: Network = { ...networks.bitcoin, bech32: '', pubKeyHash: 0x1e, scriptHash: 0x16, wif: 0x9e };
const dogecoinTest: Network = { ...networks.testnet, bech32: '', pubKeyHash: 0x71, scriptHash: 0xc4, wif: 0xf1 };
const BITCOIN_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const XRP_ALPHABET = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';

const nodeHash = (name: string, data: Uint8Array): Uint8Array => new Uint8Array(createHash(name).update(data).digest());
function referenceBase58Check(alphabet: string, data: Uint8Array): string {
  const full = Uint8Array.from([...data, ...nodeHash('sha256', nodeHash('sha256', data)).subarray(0, 4)]);
  let n = BigInt('0x' + Buffer.from(full).toString('hex'));
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const byte of full) {
    if (byte !== 0) break;
    out = alphabet[0] + out;
  }
  return out;
}

const referenceRoot = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));

function referenceAddress(chain: Chain, livemode: boolean, path: string): string {
  const node = referenceRoot.derive(path);
  const pubkey = node.publicKey!;
  const account = privateKeyToAccount(toHex(node.privateKey!));
  const evmHex = account.address.slice(2).toLowerCase();
  switch (chain) {
    case 'bitcoin':
      return payments.p2wpkh({ pubkey, network: livemode ? networks.bitcoin : networks.testnet }).address!;
    case 'litecoin':
      return payments.p2wpkh({ pubkey, network: livemode ? litecoin : litecoinTest }).address!;
    case 'dogecoin':
      return payments.p2pkh({ pubkey, network: livemode ? dogecoin : dogecoinTest }).address!;
    case 'ethereum':
    case 'bsc':
      return account.address;
    case 'tron':
      return referenceBase58Check(BITCOIN_ALPHABET, Uint8Array.from(Buffer.from('41' + evmHex, 'hex')));
    case 'xrp':
      return referenceBase58Check(XRP_ALPHABET, Uint8Array.from([0, ...nodeHash('ripemd160', nodeHash('sha256', pubkey))]));
  }
}

// The documented account scheme, written out: purpose, coin and account of each chain and mode.
const EXPECTED_BRANCH: Record<Chain, { live: string; test: string; hotLive: string; hotTest: string }> = {
  bitcoin: { live: "m/84'/0'/0'/0", test: "m/84'/1'/1'/0", hotLive: "m/84'/0'/2'/0", hotTest: "m/84'/1'/3'/0" },
  litecoin: { live: "m/84'/2'/0'/0", test: "m/84'/2'/1'/0", hotLive: "m/84'/2'/2'/0", hotTest: "m/84'/2'/3'/0" },
  dogecoin: { live: "m/44'/3'/0'/0", test: "m/44'/3'/1'/0", hotLive: "m/44'/3'/2'/0", hotTest: "m/44'/3'/3'/0" },
  ethereum: { live: "m/44'/60'/0'/0", test: "m/44'/60'/1'/0", hotLive: "m/44'/60'/2'/0", hotTest: "m/44'/60'/3'/0" },
  bsc: { live: "m/44'/60'/10'/0", test: "m/44'/60'/11'/0", hotLive: "m/44'/60'/12'/0", hotTest: "m/44'/60'/13'/0" },
  tron: { live: "m/44'/195'/0'/0", test: "m/44'/195'/1'/0", hotLive: "m/44'/195'/2'/0", hotTest: "m/44'/195'/3'/0" },
  xrp: { live: "m/44'/144'/0'/0", test: "m/44'/144'/1'/0", hotLive: "m/44'/144'/2'/0", hotTest: "m/44'/144'/3'/0" },
};

describe('published vectors of the test mnemonic', () => {
  it.each(PUBLISHED)('%s %s is %s', (chain, path, address) => {
    const node = seed.root.derive(path);
    expect(addressOfPublicKey(chain, true, node.publicKey!)).toBe(address);
    expect(referenceAddress(chain, true, path)).toBe(address);
  });

  it('live deposits of every chain but BNB Smart Chain sit on the standard account 0', () => {
    for (const [chain, path, address] of PUBLISHED) {
      const index = Number(path.split('/').pop());
      expect(deriveDepositAddress(seed, chain, true, index)).toEqual({ address, path });
    }
  });
});

describe('deriveDepositAddress', () => {
  it('follows the account scheme and matches the independent reference in both modes', () => {
    for (const chain of CHAINS) {
      for (const livemode of [true, false]) {
        for (const index of [0, 1, 7, 1000, MAX_ADDRESS_INDEX]) {
          const got = deriveDepositAddress(seed, chain, livemode, index);
          expect(got.path).toBe(`${EXPECTED_BRANCH[chain][livemode ? 'live' : 'test']}/${index}`);
          expect(got.address).toBe(referenceAddress(chain, livemode, got.path));
        }
      }
    }
  });

  it('uses testnet formats in test mode for Bitcoin, Litecoin and Dogecoin, the same format elsewhere', () => {
    const format: Record<Chain, [RegExp, RegExp]> = {
      bitcoin: [/^bc1q[a-z0-9]{38}$/, /^tb1q[a-z0-9]{38}$/],
      litecoin: [/^ltc1q[a-z0-9]{38}$/, /^tltc1q[a-z0-9]{38}$/],
      dogecoin: [/^D[1-9A-Za-z]{33}$/, /^n[1-9A-Za-z]{33}$/],
      ethereum: [/^0x[0-9a-fA-F]{40}$/, /^0x[0-9a-fA-F]{40}$/],
      bsc: [/^0x[0-9a-fA-F]{40}$/, /^0x[0-9a-fA-F]{40}$/],
      tron: [/^T[1-9A-Za-z]{33}$/, /^T[1-9A-Za-z]{33}$/],
      xrp: [/^r[1-9A-Za-z]{24,34}$/, /^r[1-9A-Za-z]{24,34}$/],
    };
    for (const chain of CHAINS) {
      for (let index = 0; index < 5; index++) {
        expect(deriveDepositAddress(seed, chain, true, index).address).toMatch(format[chain][0]);
        expect(deriveDepositAddress(seed, chain, false, index).address).toMatch(format[chain][1]);
      }
    }
  });

  it('derives addresses that pass payout validation (test-mode Bitcoin and Litecoin ones in test mode)', () => {
    for (const chain of CHAINS) {
      const live = deriveDepositAddress(seed, chain, true, 3).address;
      expect(validatePayoutAddress(chain, live, true)).toEqual({ ok: true, normalized: live });
      if (chain !== 'dogecoin') {
        const test = deriveDepositAddress(seed, chain, false, 3).address;
        expect(validatePayoutAddress(chain, test, false)).toEqual({ ok: true, normalized: test });
      }
    }
  });

  it('gives distinct addresses for distinct indexes, and live never equals test (property)', () => {
    const chain = fc.constantFrom(...CHAINS);
    const index = fc.integer({ min: 0, max: MAX_ADDRESS_INDEX });
    fc.assert(
      fc.property(chain, index, index, fc.boolean(), (c, a, b, livemode) => {
        fc.pre(a !== b);
        expect(deriveDepositAddress(seed, c, livemode, a).address).not.toBe(deriveDepositAddress(seed, c, livemode, b).address);
      }),
      { numRuns: 60 },
    );
    fc.assert(
      fc.property(chain, index, index, (c, a, b) => {
        expect(deriveDepositAddress(seed, c, true, a).address.toLowerCase())
          .not.toBe(deriveDepositAddress(seed, c, false, b).address.toLowerCase());
      }),
      { numRuns: 60 },
    );
  });

  it('never gives Ethereum and BNB Smart Chain the same address (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_ADDRESS_INDEX }), fc.integer({ min: 0, max: MAX_ADDRESS_INDEX }), fc.boolean(), (a, b, livemode) => {
        expect(deriveDepositAddress(seed, 'ethereum', livemode, a).address).not.toBe(deriveDepositAddress(seed, 'bsc', livemode, b).address);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses an index outside 0 … 2^31-1 and an invalid mnemonic', () => {
    for (const bad of [-1, 1.5, MAX_ADDRESS_INDEX + 1, Number.NaN]) {
      expect(() => deriveDepositAddress(seed, 'bitcoin', true, bad)).toThrow(RangeError);
    }
    expect(() => seedFromMnemonic('abandon '.repeat(12).trim())).toThrow(/not a valid BIP-39/);
  });

  it('returns the signing key of the address', () => {
    const key = deriveDepositKey(seed, 'ethereum', true, 0);
    expect(key.privateKey).toHaveLength(32);
    expect(addressOfPublicKey('ethereum', true, key.publicKey)).toBe(key.address);
    expect(key.address).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('is fast once the account branch is cached', () => {
    const fresh = seedFromMnemonic(MNEMONIC);
    for (const chain of CHAINS) deriveDepositAddress(fresh, chain, true, 0);
    const count = 100;
    const started = performance.now();
    for (const chain of CHAINS) for (let i = 1; i <= count; i++) deriveDepositAddress(fresh, chain, true, i);
    const perAddress = (performance.now() - started) / (count * CHAINS.length);
    console.log(`deposit address derivation: ${perAddress.toFixed(3)} ms per address`);
    expect(perAddress).toBeLessThan(5);
  });
});

describe('hot wallets', () => {
  it('sit on their own accounts, apart from every deposit address', () => {
    for (const chain of CHAINS) {
      for (const livemode of [true, false]) {
        const hot = hotWalletAddress(seed, chain, livemode);
        const branch = EXPECTED_BRANCH[chain][livemode ? 'hotLive' : 'hotTest'];
        expect(hot.path).toBe(`${branch}/0`);
        expect(hot.address).toBe(referenceAddress(chain, livemode, hot.path));
        for (let index = 0; index < 20; index++) {
          expect(deriveDepositAddress(seed, chain, livemode, index).address).not.toBe(hot.address);
        }
      }
      expect(hotWalletAddress(seed, chain, true).address).not.toBe(hotWalletAddress(seed, chain, false).address);
    }
  });

  it('the XRP service address is the XRP hot wallet, one per mode', () => {
    expect(xrpServiceAddress(seed, true)).toEqual(hotWalletAddress(seed, 'xrp', true));
    expect(xrpServiceAddress(seed, false)).toEqual(hotWalletAddress(seed, 'xrp', false));
    expect(xrpServiceAddress(seed, true).address).not.toBe(xrpServiceAddress(seed, false).address);
  });
});

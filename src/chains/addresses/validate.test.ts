import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { address as btcAddress, initEccLib, networks, payments, type Network } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { getAddress, isAddress } from 'viem';
import { bech32m } from '@scure/base';
import { CHAINS, type Chain } from '../../config.ts';
import { TOKENS, TOKEN_DEFS } from '../../tokens/index.ts';
import {
  INVALID_TAG_MESSAGE, X_ADDRESS_HINT, isDepositDestinationTag, validateDestinationTag, validatePayoutAddress,
} from './index.ts';
import { encodeBase58Check, encodeSegwit, encodeXrpBase58Check } from './encoding.ts';

initEccLib(ecc); // bitcoinjs-lib checks taproot output keys with it

const litecoin: Network = { ...networks.bitcoin, bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 };
const litecoinTest: Network = { ...networks.testnet, bech32: 'tltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef };
const dogecoin: Network = { ...networks.bitcoin, bech32: 'doge-has-none', pubKeyHash: 0x1e, scriptHash: 0x16, wif: 0x9e };
const dogecoinTest: Network = { ...networks.testnet, bech32: 'doge-has-none', pubKeyHash: 0x71, scriptHash: 0xc4, wif: 0xf1 };

const hash20 = Uint8Array.from({ length: 20 }, (_, i) => i * 7 + 3);
const hash32 = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
/** P2PKH, P2SH and (where the network has them) P2WPKH and P2WSH addresses built by bitcoinjs-lib. */
function built(network: Network, segwit: boolean): string[] {
  const out = [payments.p2pkh({ hash: hash20, network }).address!, payments.p2sh({ hash: hash20, network }).address!];
  if (segwit) out.push(payments.p2wpkh({ hash: hash20, network }).address!, payments.p2wsh({ hash: hash32, network }).address!);
  return out;
}

/** A bech32m v1 address whose 32-byte key is no x coordinate on secp256k1 (libsecp256k1 says which). */
function taprootOffCurve(): string {
  const x = new Uint8Array(32);
  do x[31]++; while (ecc.isXOnlyPoint(x));
  return bech32m.encode('bc', [1, ...bech32m.toWords(x)]);
}

const ok = (chain: Chain | (typeof TOKENS)[number], address: string, livemode: boolean) => validatePayoutAddress(chain, address, livemode).ok;

const VALID: Record<Chain, { live: string[]; testOnly: string[] }> = {
  bitcoin: {
    live: [
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', ...built(networks.bitcoin, true),
      // BIP-350: witness versions 1 (not 32 bytes) to 16, programs of 2 to 40 bytes (future soft forks)
      'BC1SW50QGDZ25J', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs',
      'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
    ],
    testOnly: [
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc',
      'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', ...built(networks.testnet, true),
    ],
  },
  litecoin: {
    live: [
      'LdP8Qox1VAhCzLJNqrr74YovaWYyNBUWvL', 'LUWPbpM43E2p7ZSh8cyTBEkvpHmr3cB8Ez', 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
      payments.p2sh({ hash: hash20, network: networks.bitcoin }).address!, ...built(litecoin, true),
      encodeSegwit('ltc', 2, hash32), encodeSegwit('ltc', 16, hash20), encodeSegwit('ltc', 1, hash20),
    ],
    testOnly: [...built(litecoinTest, true), encodeSegwit('tltc', 3, hash32)],
  },
  dogecoin: {
    live: ['DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L', 'A7HRQk3GFCW2QasvdZxXuYj8kkQK5QrYLs', '9rSGfPZLcyCGzY4uYEL1fkzJr6fkicS2rs', ...built(dogecoin, false)],
    testOnly: [],
  },
  ethereum: {
    live: ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB'],
    testOnly: [],
  },
  bsc: { live: ['0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb', '0x55d398326f99059fF775485246999027B3197955'], testOnly: [] },
  tron: { live: ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK'], testOnly: [] },
  xrp: { live: ['rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3', 'r3AgF9mMBFtaLhKcg96weMhbbEFLZ3mx17', 'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf'], testOnly: [] },
};

const INVALID: Record<Chain, Array<[string, string]>> = {
  bitcoin: [
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'bech32 checksum'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'base58 checksum'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN', 'length'],
    ['bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mixed case'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'taproot with a bech32 checksum'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'version 0 with a bech32m checksum'],
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'version 0 program of 16 bytes'],
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'witness version 17'],
    ['bc1pw5dgrnzv', 'witness program of 1 byte'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'witness program of 41 bytes'],
    ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'version 16 with a bech32 checksum'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'zero padding of more than 4 bits'],
    ['bc1gmk9yu', 'empty data section'],
    [taprootOffCurve(), 'taproot key off the curve'],
    ['ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', 'litecoin'],
    ['LdP8Qox1VAhCzLJNqrr74YovaWYyNBUWvL', 'litecoin P2PKH'],
    ['DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', 'dogecoin'],
  ],
  litecoin: [
    ['ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wj', 'bech32 checksum'],
    ['LdP8Qox1VAhCzLJNqrr74YovaWYyNBUWvM', 'base58 checksum'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'bitcoin segwit'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'bitcoin P2PKH'],
    ['DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', 'dogecoin'],
    ['ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4', 'length'],
  ],
  dogecoin: [
    ['DRjyUS2uuieEPkhZNdQz8hE5YycxVEqSXA', 'base58 checksum'],
    ['DBus3bamQjgJULBJtYXpEzDWQRwF5iwx', 'length'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'bitcoin'],
    ['LdP8Qox1VAhCzLJNqrr74YovaWYyNBUWvL', 'litecoin'],
    [payments.p2pkh({ hash: hash20, network: dogecoinTest }).address!, 'dogecoin testnet'],
  ],
  ethereum: [
    ['0x9858EfFD232B4033E47d90003D41EC34EcaEda95', 'checksum case of a changed address'],
    ['0x9858efFD232B4033E47d90003D41EC34EcaEda94', 'one letter in the wrong case'],
    ['0x9858EfFD232B4033E47d90003D41EC34EcaEda9', 'length 39'],
    ['0x9858EfFD232B4033E47d90003D41EC34EcaEda944', 'length 41'],
    ['9858EfFD232B4033E47d90003D41EC34EcaEda94', 'no 0x'],
    ['0x9858EfFD232B4033E47d90003D41EC34EcaEdaZZ', 'not hex'],
    ['0x0000000000000000000000000000000000000000', 'zero address'],
    ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', 'tron'],
  ],
  bsc: [['0xd1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb', 'checksum case']],
  tron: [
    ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdJ', 'base58 checksum'],
    ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYd', 'length 33'],
    ['tUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', 'lowercase t'],
    [encodeBase58Check(0x42, hash20), 'T… with prefix byte 0x42'],
    ['41cf6d6e0b5bc5a7c0ae1a1f8b8c8e0a1ddb0b0f5a', 'hex form'],
    ['T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', 'zero address (the black hole: 41 and 20 zero bytes)'],
    ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 'ethereum'],
  ],
  xrp: [
    ['rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v4', 'checksum'],
    ['rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5', 'length'],
    ['RHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3', 'capital R'],
    [encodeXrpBase58Check(0, new Uint8Array(20)), 'account zero (black hole)'],
    ['rrrrrrrrrrrrrrrrrrrrBZbvji', 'account one (black hole)'],
    ['rrrrrrrrrrrrrrrrrNAMEtxvNvQ', 'the name reservation black hole'],
    ['rrrrrrrrrrrrrrrrrrrn5RM1rHd', 'the NaN address (black hole)'],
    [encodeXrpBase58Check(5, hash20), 'another version byte'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'bitcoin'],
  ],
};

describe('validatePayoutAddress', () => {
  it.each(CHAINS)('accepts valid %s addresses, mainnet in both modes', (chain) => {
    for (const address of VALID[chain].live) {
      const lower = /^(bc|tb|ltc|tltc)1/i.test(address) ? address.toLowerCase() : address;
      const normalized = chain === 'ethereum' || chain === 'bsc' ? getAddress(address) : lower;
      expect(validatePayoutAddress(chain, address, true), address).toEqual({ ok: true, normalized });
      expect(validatePayoutAddress(chain, address, false), address).toEqual({ ok: true, normalized });
    }
  });

  it('accepts testnet Bitcoin and Litecoin addresses in test mode only', () => {
    for (const chain of ['bitcoin', 'litecoin'] as const) {
      for (const address of VALID[chain].testOnly) {
        expect(ok(chain, address, false), address).toBe(true);
        expect(validatePayoutAddress(chain, address, true), address).toEqual({ ok: false, message: `address is not a valid ${chain} address` });
      }
    }
  });

  it.each(CHAINS)('refuses invalid %s addresses with the spec message', (chain) => {
    for (const [address, why] of INVALID[chain]) {
      for (const livemode of [true, false]) {
        expect(validatePayoutAddress(chain, address, livemode), why).toEqual({ ok: false, message: `address is not a valid ${chain} address` });
      }
    }
    for (const nothing of ['', '   ', undefined, null, 42, {}]) expect(ok(chain, nothing as string, true)).toBe(false);
  });

  it('agrees with bitcoinjs-lib on every Bitcoin and Litecoin example it knows (not version 1 of other than 32 bytes)', () => {
    const cases: Array<[Chain, Network, boolean, string]> = [];
    for (const [chain, main, test] of [['bitcoin', networks.bitcoin, networks.testnet], ['litecoin', litecoin, litecoinTest]] as const) {
      for (const a of [...VALID[chain].live, ...INVALID[chain].map(([a]) => a)]) cases.push([chain, main, true, a]);
      for (const a of VALID[chain].testOnly) cases.push([chain, test, false, a]);
    }
    // bitcoinjs-lib reads every version 1 program as taproot; BIP-350 makes the other lengths valid
    const v1NotTaproot = new Set([VALID.bitcoin.live.find((a) => a.startsWith('bc1pw508'))!, encodeSegwit('ltc', 1, hash20)]);
    for (const [chain, network, livemode, address] of cases) {
      if (address === payments.p2sh({ hash: hash20, network: networks.bitcoin }).address || v1NotTaproot.has(address)) continue;
      let oracle = true;
      try {
        btcAddress.toOutputScript(address, network);
      } catch {
        oracle = false;
      }
      expect(ok(chain, address, livemode), address).toBe(oracle);
    }
  });

  it("refuses Litecoin's MWEB-reserved programs (a v9 peg-in, the v8 HogEx output, 32 bytes) and takes those versions elsewhere", () => {
    for (const version of [8, 9]) {
      for (const hrp of ['ltc', 'tltc']) expect(ok('litecoin', encodeSegwit(hrp, version, hash32), false), `${hrp} v${version}`).toBe(false);
      expect(ok('litecoin', encodeSegwit('ltc', version, hash20), true), `ltc v${version} of 20 bytes`).toBe(true);
      expect(ok('bitcoin', encodeSegwit('bc', version, hash32), true), `bc v${version}`).toBe(true);
    }
  });

  it('trims surrounding whitespace and normalizes bech32 to lowercase and EVM to its checksum', () => {
    expect(validatePayoutAddress('bitcoin', ' BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4\n', true))
      .toEqual({ ok: true, normalized: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' });
    for (const form of ['0x9858effd232b4033e47d90003d41ec34ecaeda94', '0x9858EFFD232B4033E47D90003D41EC34ECAEDA94']) {
      expect(validatePayoutAddress('ethereum', form, true)).toEqual({ ok: true, normalized: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' });
    }
  });

  it('takes every bech32 payout address of every chain in upper case and refuses it in mixed case (BIP-173)', () => {
    const bech = /^(bc|tb|ltc|tltc)1/i;
    let seen = 0;
    for (const chain of CHAINS) {
      for (const [list, livemode] of [[VALID[chain].live, true], [VALID[chain].testOnly, false]] as const) {
        for (const address of list.filter((a) => bech.test(a))) {
          const lower = address.toLowerCase();
          const upper = address.toUpperCase();
          expect(validatePayoutAddress(chain, upper, livemode), upper).toEqual({ ok: true, normalized: lower });
          expect(validatePayoutAddress(chain, lower, livemode), lower).toEqual({ ok: true, normalized: lower });
          // one letter of the data part, and the prefix alone, in the other case
          const at = [...lower].findIndex((c, i) => i > lower.indexOf('1') && /[a-z]/.test(c));
          const oneLetter = lower.slice(0, at) + lower[at].toUpperCase() + lower.slice(at + 1);
          const prefixOnly = lower.slice(0, lower.indexOf('1')).toUpperCase() + lower.slice(lower.indexOf('1'));
          for (const mixed of [oneLetter, prefixOnly, upper.slice(0, -1) + lower.slice(-1)]) {
            if (mixed === lower || mixed === upper) continue;
            expect(validatePayoutAddress(chain, mixed, livemode), mixed).toEqual({ ok: false, message: `address is not a valid ${chain} address` });
          }
          seen++;
        }
      }
    }
    // Bitcoin and Litecoin, mainnet and testnet, every witness version the lists hold
    expect(seen).toBeGreaterThanOrEqual(20);
  });

  it('names the network of the token in the message', () => {
    const names: Record<Chain, string> = { bitcoin: 'bitcoin', litecoin: 'litecoin', dogecoin: 'dogecoin', ethereum: 'ethereum', bsc: 'bsc', tron: 'tron', xrp: 'xrp' };
    for (const token of TOKENS) {
      const chain = TOKEN_DEFS[token].chain;
      expect(validatePayoutAddress(token, 'nope', true)).toEqual({ ok: false, message: `address is not a valid ${names[chain]} address` });
      expect(ok(token, VALID[chain].live[0], true)).toBe(true);
    }
    expect(validatePayoutAddress('USDT_TRC20', 'nope', true)).toEqual({ ok: false, message: 'address is not a valid tron address' });
  });

  it('refuses XRP X-addresses with a note', () => {
    expect(validatePayoutAddress('XRP', 'X7AcgcsBL6XDcUb289X4mJ8djcdyKaB5hJDWMArnXr61cqZ', true))
      .toEqual({ ok: false, message: 'address is not a valid xrp address', hint: X_ADDRESS_HINT });
  });

  it('accepts any EIP-55 address and refuses one with a letter of the wrong case (property, viem as oracle)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat(), (bytes, pick) => {
        const checksummed = getAddress(`0x${Buffer.from(bytes).toString('hex')}`);
        fc.pre(!/^0x0{40}$/.test(checksummed));
        expect(validatePayoutAddress('bsc', checksummed, true)).toEqual({ ok: true, normalized: checksummed });
        const letters = [...checksummed].map((c, i) => (i > 1 && /[a-fA-F]/.test(c) ? i : -1)).filter((i) => i >= 0);
        fc.pre(letters.length > 1);
        const at = letters[pick % letters.length];
        const c = checksummed[at];
        const flipped = checksummed.slice(0, at) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + checksummed.slice(at + 1);
        const stillMixed = flipped.slice(2) !== flipped.slice(2).toLowerCase() && flipped.slice(2) !== flipped.slice(2).toUpperCase();
        fc.pre(stillMixed);
        expect(ok('ethereum', flipped, true)).toBe(false);
        expect(isAddress(flipped)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses any single-character change of a valid address (property)', () => {
    const samples: Array<[Chain, string]> = CHAINS.filter((c) => c !== 'ethereum' && c !== 'bsc').flatMap((c) => VALID[c].live.map((a) => [c, a] as [Chain, string]));
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), fc.nat(), ([chain, address], at, pick) => {
        const i = at % address.length;
        const bech = /^(bc|ltc)1/.test(address);
        const chars = bech ? 'qpzry9x8gf2tvdw0s3jn54khce6mua7l' : alphabet;
        const replacement = chars[pick % chars.length];
        fc.pre(replacement !== address[i] && !(bech && i < address.indexOf('1') + 1));
        const changed = address.slice(0, i) + replacement + address.slice(i + 1);
        expect(ok(chain, changed, true)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('destination tags', () => {
  it('takes an integer from 0 to 4294967295 on a payout address', () => {
    for (const tag of [0, 1, 12345, 4294967295]) expect(validateDestinationTag(tag)).toEqual({ ok: true, tag });
    for (const bad of [-1, 4294967296, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '5', null, undefined, 5n]) {
      expect(validateDestinationTag(bad)).toEqual({ ok: false, message: INVALID_TAG_MESSAGE });
    }
  });

  it('allocates deposit tags from 1 to 4294967295 only', () => {
    expect(isDepositDestinationTag(0)).toBe(false);
    expect(isDepositDestinationTag(1)).toBe(true);
    expect(isDepositDestinationTag(4294967295)).toBe(true);
    expect(isDepositDestinationTag(4294967296)).toBe(false);
    expect(isDepositDestinationTag(2.5)).toBe(false);
  });
});

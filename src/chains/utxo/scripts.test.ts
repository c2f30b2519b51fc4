// Output scripts to addresses against published vectors: BIP-173's own examples, the key hash of the
// generator point (Bitcoin's well-known 1BgGZ9…), Litecoin vectors published with blockchain_utils
// and hdAddressGenerator, and Dogecoin's first BIP-44 address of the BIP-39 test mnemonic.
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { hash160 } from '../addresses/encoding.ts';
import { UTXO_NETWORKS, deriveDepositKey, seedFromMnemonic } from '../addresses/index.ts';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { addressOfScript } from './scripts.ts';

const btc = UTXO_NETWORKS.bitcoin;
const ltc = UTXO_NETWORKS.litecoin;
const doge = UTXO_NETWORKS.dogecoin;
const p2pkh = (h: string) => `76a914${h}88ac`;

describe('addressOfScript', () => {
  it('decodes a BIP-350 taproot output', () => {
    expect(addressOfScript(btc.main, '5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c'))
      .toBe('bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr');
  });

  it('decodes BIP-173 P2WPKH and P2WSH examples on mainnet and testnet', () => {
    expect(addressOfScript(btc.main, '0014751e76e8199196d454941c45d1b3a323f1433bd6')).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    expect(addressOfScript(btc.test, '0014751e76e8199196d454941c45d1b3a323f1433bd6')).toBe('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
    expect(addressOfScript(btc.main, '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'))
      .toBe('bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3');
    expect(addressOfScript(btc.test, '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'))
      .toBe('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7');
  });

  it('decodes P2PKH of the generator point and a Litecoin P2WPKH vector', () => {
    expect(addressOfScript(btc.main, p2pkh('751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe('1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH');
    expect(addressOfScript(ltc.main, '001431ce0f0a4df57e6722d2deddf032816c59c97337')).toBe('ltc1qx88q7zjd74lxwgkjmmwlqv5pd3vujuehexfttt');
    const pub = hex.decode('03815fc9ef332b925205576c4ca7b8d79c5620e350b5fcadbd9f5e9539ad302257');
    expect(addressOfScript(ltc.main, p2pkh(hex.encode(hash160(pub))))).toBe('LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh');
  });

  it('decodes Dogecoin P2PKH (BIP-44 m/44\'/3\'/0\'/0/0 of the test mnemonic) and refuses segwit there', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'));
    const key = root.derive("m/44'/3'/0'/0/0");
    expect(addressOfScript(doge.main, p2pkh(hex.encode(hash160(key.publicKey!))))).toBe('DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC');
    expect(addressOfScript(doge.main, '0014751e76e8199196d454941c45d1b3a323f1433bd6')).toBeNull();
  });

  it('gives regtest formats for a regtest network and agrees with the gateway\'s own derivation', () => {
    const seed = seedFromMnemonic('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
    const k = deriveDepositKey(seed, 'litecoin', false, 0);
    const script = `0014${hex.encode(hash160(k.publicKey))}`;
    expect(addressOfScript(ltc.test, script)).toBe(k.address);
    expect(addressOfScript(ltc.regtest, script)).toMatch(/^rltc1q/);
    expect(addressOfScript(btc.regtest, script)).toMatch(/^bcrt1q/);
    expect(addressOfScript(ltc.main, `a914${'11'.repeat(20)}87`)).toMatch(/^M/);
  });

  it('returns null for scripts that pay no address', () => {
    expect(addressOfScript(btc.main, '6a0b68656c6c6f20776f726c64')).toBeNull(); // OP_RETURN
    expect(addressOfScript(btc.main, '')).toBeNull();
    expect(addressOfScript(btc.main, `0015${'11'.repeat(21)}`)).toBeNull(); // v0 with a 21-byte program
    expect(addressOfScript(btc.main, `5120${'11'.repeat(31)}`)).toBeNull(); // push length disagrees with the script
    expect(addressOfScript(ltc.regtest, `5820${'11'.repeat(32)}`)).toBeNull(); // MWEB HogEx output (witness v8)
  });
});

describe('scriptOfAddress', () => {
  it('gives back the script of each published address (the inverse of addressOfScript)', async () => {
    const { scriptOfAddress } = await import('./scripts.ts');
    const cases: Array<[typeof btc.main, string, string]> = [
      [btc.main, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
      [btc.main, 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
      [btc.main, 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'],
      [btc.main, 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr', '5120a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c'],
      [btc.main, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH', p2pkh('751e76e8199196d454941c45d1b3a323f1433bd6')],
      [ltc.main, 'ltc1qx88q7zjd74lxwgkjmmwlqv5pd3vujuehexfttt', '001431ce0f0a4df57e6722d2deddf032816c59c97337'],
      [doge.main, 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', p2pkh('4a483568665dcdfa68dd58a1f62893448a643339')],
      // BIP-350's future witness versions: OP_n and the program's push
      [btc.main, 'BC1SW50QGDZ25J', '6002751e'],
      [btc.main, 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
      [btc.main, 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
        '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6'],
    ];
    for (const [network, address, script] of cases) expect(hex.encode(scriptOfAddress(network, address)!), address).toBe(script);
    expect(scriptOfAddress(btc.main, 'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R')).toBeNull(); // version 17
    expect(scriptOfAddress(btc.main, 'bc1pw5dgrnzv')).toBeNull(); // a 1-byte program
    expect(scriptOfAddress(btc.main, 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')).toBeNull();
    expect(scriptOfAddress(doge.main, '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { walletUri } from './wallet-uri.ts';

const BTC = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const EVM = '0x8e23Ee67d1332aD560396262C48ffbB01f93d052';
const LIVE = { livemode: true };

describe('wallet links', () => {
  it('none for a test payment: its address is watched by nothing, and a wallet would send real coins on the main network', () => {
    for (const [token, address] of [['BTC', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'], ['ETH', EVM], ['USDT_ERC20', EVM], ['XRP', 'rDsbeomae4FXwgQTJp9Rs64Qg9vDiTCdBv'], ['TRX', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf']] as const) {
      expect(walletUri({ livemode: false, token, address, amount: '1' }), token).toBeNull();
    }
  });

  it('BIP21 for Bitcoin, Litecoin and Dogecoin', () => {
    expect(walletUri({ ...LIVE, token: 'BTC', address: BTC, amount: '0.00042' })).toBe(`bitcoin:${BTC}?amount=0.00042`);
    expect(walletUri({ ...LIVE, token: 'LTC', address: 'ltc1qabc', amount: '1.5' })).toBe('litecoin:ltc1qabc?amount=1.5');
    expect(walletUri({ ...LIVE, token: 'DOGE', address: 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L', amount: '42' })).toBe('dogecoin:DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L?amount=42');
  });

  it('EIP-681 for the chain\'s coin: chain id and the value in wei (exponent = decimals)', () => {
    expect(walletUri({ ...LIVE, token: 'ETH', address: EVM, amount: '0.01234567' })).toBe(`ethereum:${EVM}@1?value=0.01234567e18`);
    expect(walletUri({ ...LIVE, token: 'BNB', address: EVM, amount: '2' })).toBe(`ethereum:${EVM}@56?value=2e18`);
  });

  it('EIP-681 for a token: its contract\'s transfer, recipient and amount in the token\'s unit', () => {
    expect(walletUri({ ...LIVE, token: 'USDT_ERC20', address: EVM, amount: '26.27' }))
      .toBe(`ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${EVM}&uint256=26.27e6`);
    expect(walletUri({ ...LIVE, token: 'USDC_BEP20', address: EVM, amount: '25.76' }))
      .toBe(`ethereum:0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d@56/transfer?address=${EVM}&uint256=25.76e18`);
  });

  it('TOKEN_CONTRACTS replaces the mainnet contract', () => {
    const local = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    expect(walletUri({ ...LIVE, token: 'USDT_ERC20', address: EVM, amount: '1', contracts: { USDT_ERC20: local } }))
      .toBe(`ethereum:${local}@1/transfer?address=${EVM}&uint256=1e6`);
  });

  it('EIP-681 names the chain id of the gateway\'s node (a test network), mainnet where it names none', () => {
    const chainIds = { ethereum: 31337, bsc: 97 };
    const local = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    expect(walletUri({ ...LIVE, token: 'ETH', address: EVM, amount: '1.5', chainIds })).toBe(`ethereum:${EVM}@31337?value=1.5e18`);
    expect(walletUri({ ...LIVE, token: 'BNB', address: EVM, amount: '2', chainIds })).toBe(`ethereum:${EVM}@97?value=2e18`);
    expect(walletUri({ ...LIVE, token: 'USDT_ERC20', address: EVM, amount: '1', contracts: { USDT_ERC20: local }, chainIds }))
      .toBe(`ethereum:${local}@31337/transfer?address=${EVM}&uint256=1e6`);
    expect(walletUri({ ...LIVE, token: 'USDC_BEP20', address: EVM, amount: '3', chainIds }))
      .toBe(`ethereum:0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d@97/transfer?address=${EVM}&uint256=3e18`);
    // only Ethereum's given: BNB Smart Chain keeps 56
    expect(walletUri({ ...LIVE, token: 'BNB', address: EVM, amount: '2', chainIds: { ethereum: 5 } })).toBe(`ethereum:${EVM}@56?value=2e18`);
    // an inherited property is no chain id
    expect(walletUri({ ...LIVE, token: 'ETH', address: EVM, amount: '1', chainIds: Object.create({ ethereum: 7 }) as Record<string, number> })).toBe(`ethereum:${EVM}@1?value=1e18`);
  });

  it('no EVM link while the gateway\'s node has not said its chain id (null): mainnet would be a guess', () => {
    const chainIds = { ethereum: null, bsc: 56 };
    expect(walletUri({ ...LIVE, token: 'ETH', address: EVM, amount: '1', chainIds })).toBeNull();
    expect(walletUri({ ...LIVE, token: 'USDT_ERC20', address: EVM, amount: '1', chainIds })).toBeNull();
    expect(walletUri({ ...LIVE, token: 'BNB', address: EVM, amount: '1', chainIds })).toBe(`ethereum:${EVM}@56?value=1e18`);
    // other chains are not EVM: their links do not depend on it
    expect(walletUri({ ...LIVE, token: 'BTC', address: BTC, amount: '1', chainIds })).toBe(`bitcoin:${BTC}?amount=1`);
  });

  it('XRP Ledger with the destination tag', () => {
    expect(walletUri({ ...LIVE, token: 'XRP', address: 'rfmadDM5qgnMbW2Pv3RZF8NCg6QwejJqmM', amount: '42.933334', destinationTag: 100000 }))
      .toBe('xrpl://rfmadDM5qgnMbW2Pv3RZF8NCg6QwejJqmM?amount=42.933334&dt=100000');
  });

  it('Tron: TRX has one; a TRC-20 token has none wallets agree on', () => {
    expect(walletUri({ ...LIVE, token: 'TRX', address: 'TUT9qMmtJtnjJhpazPaLraWSTaThhBpWyR', amount: '100.5' })).toBe('tron:TUT9qMmtJtnjJhpazPaLraWSTaThhBpWyR?amount=100.5');
    expect(walletUri({ ...LIVE, token: 'USDT_TRC20', address: 'TUT9qMmtJtnjJhpazPaLraWSTaThhBpWyR', amount: '26.27' })).toBeNull();
  });

  it('no link without a proper amount, address or known coin', () => {
    expect(walletUri({ ...LIVE, token: 'ETH', address: EVM, amount: '1e3' })).toBeNull();
    expect(walletUri({ ...LIVE, token: 'USDT_ERC20', address: EVM, amount: '0.0000001' })).toBeNull(); // 7 decimals, USDT has 6
    expect(walletUri({ ...LIVE, token: 'BTC', address: '', amount: '1' })).toBeNull();
    expect(walletUri({ ...LIVE, token: 'SOL', address: 'x', amount: '1' })).toBeNull();
  });
});

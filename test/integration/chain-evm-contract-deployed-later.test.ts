// An ERC-20 contract of TOKEN_CONTRACTS that the EVM node (anvil) does not hold when the gateway
// starts, deployed there later: the reader asks the node again every MISSING_CONTRACT_RECHECK_MS
// while it is missing, and once it has code its token is watched (its Transfer logs read) and
// available in live mode again without a restart; said once in the log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { getContractAddress, type Address } from 'viem';
import { anvilOrSkip, deployTestToken, startAnvil, testTokenAbi, type AnvilNode } from '../harness/anvil.ts';
import { loadConfig } from '../../src/config.ts';
import { Catalog } from '../../src/payments/catalog.ts';
import { noContract } from '../../src/payments/coin.ts';
import type { MarketSource } from '../../src/market/index.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { EvmReader } from '../../src/chains/evm/read/reader.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { MISSING_CONTRACT_RECHECK_MS } from '../../src/tokens/index.ts';

describe.runIf(anvilOrSkip())('an EVM token contract deployed after the gateway started', () => {
  let node: AnvilNode;
  beforeAll(async () => { node = await startAnvil({ chainId: 1 }); });
  afterAll(async () => { await node?.close(); });

  it('is asked of the node again every few minutes while missing: once it has code, its token is watched and available in live mode without a restart', async () => {
    // the address the funder's next deployment gets: no code there yet
    const token = getContractAddress({ from: node.funder.address, nonce: BigInt(await node.client.getTransactionCount({ address: node.funder.address })) });
    const catalog = new Catalog({} as MarketSource, loadConfig({
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-evm-contracts-')), ETHEREUM_RPC_URL: node.url, TOKEN_CONTRACTS: `USDT_ERC20=${token}`,
    }), async () => []);
    const lines: Array<{ level: number; msg: string; token?: string }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line)); } });
    const clock = new ManualClock();
    const reader = new EvmReader('ethereum', new NodeEndpoints([node.url]), { USDT_ERC20: token }, { log, clock });
    await reader.network();
    expect(catalog.unavailable('USDT_ERC20', true)).toBe(noContract('USDT_ERC20'));
    expect(lines.filter((l) => l.level === 40).map((l) => l.token)).toEqual(['USDT_ERC20']);

    // the operator deploys it: not asked again on every pass (the watcher's poll), so not seen yet
    expect((await deployTestToken(node, { decimals: 6 })).toLowerCase()).toBe(token.toLowerCase());
    await reader.network();
    clock.advance(MISSING_CONTRACT_RECHECK_MS - 1);
    await reader.network();
    expect(catalog.unavailable('USDT_ERC20', true)).toBe(noContract('USDT_ERC20'));

    // the next check finds it: available in live mode, said once, at info
    clock.advance(1);
    await reader.network();
    expect(catalog.available('USDT_ERC20', true)).toBe(true);
    expect(lines.filter((l) => l.msg.includes('now on the node'))).toMatchObject([{ level: 30, token: 'USDT_ERC20' }]);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);

    // and its transfers are read
    const to: Address = '0x00000000000000000000000000000000000000b7';
    await node.wallet.writeContract({ address: token, abi: testTokenAbi(), functionName: 'mint', args: [node.funder.address, 10n ** 9n], chain: null, account: node.funder });
    const hash = await node.wallet.writeContract({ address: token, abi: testTokenAbi(), functionName: 'transfer', args: [to, 2_500_000n], chain: null, account: node.funder });
    const receipt = await node.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    const block = await reader.block(receipt.blockNumber);
    expect(block!.transfers.filter((t) => t.token === 'USDT_ERC20')).toMatchObject([{ txId: hash, to: to.toLowerCase(), amount: 2_500_000n }]);

    // found, it is not asked again
    clock.advance(MISSING_CONTRACT_RECHECK_MS * 3);
    await reader.network();
    expect(lines.filter((l) => l.msg.includes('now on the node'))).toHaveLength(1);
  });
});

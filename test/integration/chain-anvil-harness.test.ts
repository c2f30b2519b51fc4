// The EVM test nodes themselves: the committed ERC-20 artifact is what the pinned solc makes of the
// source, anvil starts with the asked chain id, the token has the decimals it was deployed with and
// emits one Transfer log per transfer, a reverted transfer leaves no log, and a stopped node comes
// back on the same port with the same blocks (what the chain outage tests rely on).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, parseAbiItem, type Address } from 'viem';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { endpointsTransport } from '../../src/chains/evm/transport.ts';
import { compileTestContract, compileTestToken } from '../../scripts/compile-test-token.ts';
import { anvilOrSkip, deployTestToken, startAnvil, testTokenAbi, testTokenArtifact, forwarderArtifact, type AnvilNode } from '../harness/anvil.ts';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

describe.runIf(anvilOrSkip())('anvil harness', () => {
  let node: AnvilNode;
  let token: Address;

  beforeAll(async () => {
    node = await startAnvil({ chainId: 56 });
    token = await deployTestToken(node, { decimals: 18 });
  });
  afterAll(async () => { await node?.close(); });

  it('the committed TestToken.json is the compiled TestToken.sol', () => {
    const fresh = compileTestToken();
    const committed = testTokenArtifact();
    expect(committed.compiler).toBe(fresh.compiler);
    expect(committed.bytecode).toBe(fresh.bytecode);
    expect(committed.abi).toEqual(fresh.abi);
  });

  it('the committed Forwarder.json is the compiled Forwarder.sol', () => {
    const fresh = compileTestContract('Forwarder');
    const committed = forwarderArtifact();
    expect(committed.compiler).toBe(fresh.compiler);
    expect(committed.bytecode).toBe(fresh.bytecode);
    expect(committed.abi).toEqual(fresh.abi);
  });

  it('answers with its chain id and has the token with the deployed decimals', async () => {
    expect(await node.client.getChainId()).toBe(56);
    expect(await node.client.readContract({ address: token, abi: testTokenAbi(), functionName: 'decimals' })).toBe(18);
  });

  it('one Transfer log per transfer of a batch; none for a reverted transfer', async () => {
    const to: Address[] = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a1'];
    await node.wallet.writeContract({ address: token, abi: testTokenAbi(), functionName: 'mint', args: [node.funder.address, 10n ** 21n], chain: null, account: node.funder });
    const batch = await node.wallet.writeContract({ address: token, abi: testTokenAbi(), functionName: 'transferMany', args: [to, [5n, 7n]], chain: null, account: node.funder });
    const receipt = await node.client.waitForTransactionReceipt({ hash: batch, pollingInterval: 20 });
    const logs = await node.client.getLogs({ address: token, event: TRANSFER, args: { to: to[0] }, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect(logs.map((l) => l.args.value)).toEqual([5n, 7n]);

    const reverted = await node.wallet.writeContract({
      address: token, abi: testTokenAbi(), functionName: 'transferThenRevert', args: [to[0], 1n], chain: null, account: node.funder, gas: 200_000n,
    });
    const failed = await node.client.waitForTransactionReceipt({ hash: reverted, pollingInterval: 20 });
    expect(failed.status).toBe('reverted');
    expect(failed.logs).toEqual([]);
  });

  it('a viem client over NodeEndpoints moves past a dead node to anvil', async () => {
    const endpoints = new NodeEndpoints(['http://127.0.0.1:1', node.url]);
    const client = createPublicClient({ transport: endpointsTransport(endpoints, 2000), cacheTime: 0 });
    expect(await client.getChainId()).toBe(56);
    expect(endpoints.index).toBe(1);
    expect(endpoints.lastError).toMatch(/127\.0\.0\.1:1/);
  });

  it('a stopped node restarts on the same port with the same blocks', async () => {
    await node.mine(3);
    const before = await node.client.getBlock();
    await node.stop();
    await expect(node.client.getBlockNumber()).rejects.toThrow();
    await node.start();
    const after = await node.client.getBlock({ blockNumber: before.number });
    expect(after.hash).toBe(before.hash);
    await node.mine(1);
    expect(await node.client.getBlockNumber()).toBe(before.number + 1n);
  });
});

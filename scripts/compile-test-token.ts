// Compiles test/fixtures/evm/TestToken.sol with the pinned solc-js (offline: the compiler is the
// npm package itself) into test/fixtures/evm/TestToken.json. `node scripts/compile-test-token.ts`
// after editing the contract; a test checks the committed artifact matches the source.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/evm');
export const SOURCE_FILE = path.join(dir, 'TestToken.sol');
export const ARTIFACT_FILE = path.join(dir, 'TestToken.json');

export interface TestTokenArtifact {
  compiler: string;
  abi: unknown[];
  bytecode: `0x${string}`;
}

/** Compiles the contract; paris keeps the bytecode free of opcodes some BNB Smart Chain tooling lacks. */
export function compileTestToken(): TestTokenArtifact {
  const solc = createRequire(import.meta.url)('solc');
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: fs.readFileSync(SOURCE_FILE, 'utf8') } },
    settings: { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const c = out.contracts['TestToken.sol'].TestToken;
  return { compiler: solc.version(), abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  fs.writeFileSync(ARTIFACT_FILE, `${JSON.stringify(compileTestToken(), null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), ARTIFACT_FILE)}`);
}

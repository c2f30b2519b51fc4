// Compiles the test contracts of test/fixtures/evm (TestToken.sol, Forwarder.sol) with the pinned
// solc-js (offline: the compiler is the npm package itself) into their .json artifacts beside them.
// `node scripts/compile-test-token.ts` after editing a contract; a test checks the committed
// artifacts match the sources.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/evm');
export const SOURCE_FILE = path.join(dir, 'TestToken.sol');
export const ARTIFACT_FILE = path.join(dir, 'TestToken.json');
/** The test contracts, by name (file `<name>.sol`, contract `<name>`, artifact `<name>.json`). */
export const TEST_CONTRACTS = ['TestToken', 'Forwarder'] as const;
export type TestContract = (typeof TEST_CONTRACTS)[number];
export const artifactFile = (name: TestContract): string => path.join(dir, `${name}.json`);

export interface TestTokenArtifact {
  compiler: string;
  abi: unknown[];
  bytecode: `0x${string}`;
}

/** Compiles the contract; paris keeps the bytecode free of opcodes some BNB Smart Chain tooling lacks. */
export function compileTestToken(): TestTokenArtifact {
  return compileTestContract('TestToken');
}

export function compileTestContract(name: TestContract): TestTokenArtifact {
  const solc = createRequire(import.meta.url)('solc');
  const input = {
    language: 'Solidity',
    sources: { [`${name}.sol`]: { content: fs.readFileSync(path.join(dir, `${name}.sol`), 'utf8') } },
    settings: { evmVersion: 'paris', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const c = out.contracts[`${name}.sol`][name];
  return { compiler: solc.version(), abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  for (const name of TEST_CONTRACTS) {
    fs.writeFileSync(artifactFile(name), `${JSON.stringify(compileTestContract(name), null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), artifactFile(name))}`);
  }
}

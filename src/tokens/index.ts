export { TOKENS, TOKEN_DEFS, isToken, unsupportedToken, tokenDef, tokensOnChain, type TokenSymbol, type TokenDef } from './catalog.ts';
export { tokenContracts } from './contracts.ts';
export { checkContractDecimals, contractMissing, setContractMissing } from './live-contracts.ts';
export { ContractChecks, MISSING_CONTRACT_RECHECK_MS } from './contract-checks.ts';

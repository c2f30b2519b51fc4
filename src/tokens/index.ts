export { TOKENS, TOKEN_DEFS, isToken, tokenDef, tokensOnChain, type TokenSymbol, type TokenDef } from './catalog.ts';

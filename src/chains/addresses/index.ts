// Door of chains/addresses (pure, no network): deposit-address derivation from WALLET_MNEMONIC and
// payout-address validation for the seven chains.
export {
  seedFromMnemonic, deriveDepositAddress, deriveDepositKey, hotWalletAddress, hotWalletKey, xrpServiceAddress,
  addressOfPublicKey, branchPath, MAX_ADDRESS_INDEX, type WalletSeed, type DerivedAddress, type DerivedKey,
} from './derive.ts';
export {
  validatePayoutAddress, validateDestinationTag, isDepositDestinationTag, invalidAddressMessage,
  MAX_DESTINATION_TAG, INVALID_TAG_MESSAGE, X_ADDRESS_HINT, type AddressCheck, type TagCheck,
} from './validate.ts';
export { NETWORK_NAMES, UTXO_NETWORKS, isUtxoChain, UTXO_CHAINS, type UtxoChain, type UtxoNetwork, type UtxoNetworkKind } from './networks.ts';
export { setLiveNetwork, liveNetwork, modeNetwork, inModeNetwork } from './live-networks.ts';
export { DepositAddressDeriver } from './derive-off-thread.ts';

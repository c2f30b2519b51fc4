// Door of the Bitcoin-family chain layer: Bitcoin, Litecoin and Dogecoin read (UtxoReader, for the
// chain watcher) over their nodes' JSON-RPC; sending is in ./send.
export { UtxoReader, WrongNetworkError } from './reader.ts';
export { UtxoRpc } from './rpc.ts';
export { UTXO_COINS, coinsToBaseUnits, type UtxoCoin } from './coins.ts';
export { addressOfScript, scriptOfAddress } from './scripts.ts';

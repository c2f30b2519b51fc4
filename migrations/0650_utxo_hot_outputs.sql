-- The unspent outputs of the Bitcoin-family hot wallets, tracked by the service itself (the node
-- has no wallet): outputs its own transactions paid the hot wallet (the service's share of a
-- settlement, a sweep, a payout's change), recorded once mined, and outputs found paying it in the
-- node's UTXO set (`scantxoutset`: an operator's top-up). A transfer spending outputs reserves them
-- (spent_by) in the transaction that stores its signed bytes, so two sends never pick the same one;
-- the outputs of a transfer given up (failed, canceled) are free again. Before any is spent the node
-- is asked that it still is (a reorganisation, a replaced transaction).
create table utxo_hot_outputs (
  chain text not null,
  livemode boolean not null,
  txid text not null,
  vout integer not null,
  -- base units
  amount numeric(78, 0) not null,
  -- the block it was first seen in (older outputs are spent first)
  height integer,
  -- the transfer whose transaction spends it
  spent_by text,
  created_at timestamptz not null,
  primary key (chain, txid, vout)
);
create index utxo_hot_outputs_wallet on utxo_hot_outputs (chain, livemode) where spent_by is null;
create index utxo_hot_outputs_spent_by on utxo_hot_outputs (spent_by) where spent_by is not null;

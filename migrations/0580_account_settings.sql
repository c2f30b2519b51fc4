-- A hot wallet's account setting (XRP: AccountSet RequireDest on the service address) is a transfer
-- of purpose 'account_setting' that moves nothing; each (its reference names the setting and the
-- address) is recorded once, however many processes start.
create unique index outgoing_transfers_one_account_setting on outgoing_transfers (reference) where purpose = 'account_setting';

-- Retention: tells the append-only triggers that this transaction's deletes are the purge's (until it ends).
SELECT set_config('paysync.purge', 'retention', true)

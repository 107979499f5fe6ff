-- A gateway event the rules refuse for good is answered 2xx and recorded as an anomaly once per event id and kind;
-- the gateway may deliver it again many times (Alipay up to 8, Stripe for three days), and each delivery looks the
-- anomaly up by webhook_id first. Without this index every lookup scans the whole anomalies table. Not filtered on
-- webhook_id IS NOT NULL: the lookup's webhook_id is a parameter, and a filtered index is not always chosen for a
-- parameterized query (Microsoft's "Create filtered indexes", limitations). Key: 512 + 64 bytes, within the 1700 of
-- a nonclustered index.
CREATE NONCLUSTERED INDEX ix_anomalies_webhook ON anomalies (webhook_id, kind);

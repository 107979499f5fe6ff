-- A gateway event the rules refuse for good is answered 2xx and recorded as an anomaly once per event id and kind;
-- the gateway may deliver it again many times (Alipay up to 8, Stripe for three days), and each delivery looks the
-- anomaly up by webhook_id first. Without this index every lookup reads the whole anomalies table. Anomalies of no
-- event (reconciliation, the shop's table) have no webhook_id and are never looked up by it: left out.
CREATE INDEX ix_anomalies_webhook ON anomalies (webhook_id, kind) WHERE webhook_id IS NOT NULL;

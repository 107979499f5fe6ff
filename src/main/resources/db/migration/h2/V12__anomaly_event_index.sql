-- A gateway event the rules refuse for good is answered 2xx and recorded as an anomaly once per event id and kind;
-- the gateway may deliver it again many times (Alipay up to 8, Stripe for three days), and each delivery looks the
-- anomaly up by webhook_id first. Without this index every lookup reads the whole anomalies table.
CREATE INDEX ix_anomalies_webhook ON anomalies (webhook_id, kind);

SELECT COUNT(*) FROM anomalies

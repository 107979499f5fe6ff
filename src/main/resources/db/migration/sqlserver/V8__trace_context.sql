-- The trace context (a W3C traceparent) of the step that made the order Paid, when tracing was on: the sync's
-- attempts, later and often on another instance, link their spans to it (docs/operating.md, "Tracing"). NULL when
-- nothing was traced.
ALTER TABLE orders ADD paid_trace_parent VARCHAR(55) NULL;

"""Where a profile sample's CPU went: the first frame, from the leaf up, in a known bucket. Shared by
bench/jfr-buckets.py (JFR) and bench/cpu-compare.py (async-profiler's collapsed stacks)."""

BUCKETS = [  # first match from the leaf wins; order is from the most specific
    ("PostgreSQL JDBC driver", "org/postgresql/"),
    ("HikariCP", "com/zaxxer/hikari/"),
    ("Spring JDBC / transactions", "org/springframework/"),
    ("HMAC (Standard Webhooks, JCA)", "com/standardwebhooks/"),
    ("Jackson", "com/fasterxml/jackson/"),
    ("Micrometer route policy / meters", "io/micrometer/"),
    ("Micrometer route policy / meters", "camel/component/micrometer/"),
    ("Camel JMX statistics", "org/apache/camel/management/"),
    ("Camel platform-http-vertx", "camel/component/platform/http/"),
    ("Paysync", "io/paysync/"),
    ("Camel core (routing, exchange, headers)", "org/apache/camel/"),
    ("Log4j", "org/apache/logging/"),
    ("Vert.x / Netty (HTTP server)", "io/vertx/"),
    ("Vert.x / Netty (HTTP server)", "io/netty/"),
]


def bucket_of(frames_leaf_first):
    """The bucket of a stack given leaf first (method names with '/' separated packages), or None."""
    for name in frames_leaf_first:
        for bucket, prefix in BUCKETS:
            if prefix in name:
                return bucket
    return None

"""Attributes each JFR execution sample to the first frame, from the leaf up, in a known bucket; prints the buckets.
Usage: python3 bench/jfr-buckets.py target/bench/b1.jfr"""
import collections
import json
import subprocess
import sys

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

out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "512", "--events", "jdk.ExecutionSample",
                      sys.argv[1]],
                     capture_output=True, text=True, check=True).stdout
events = json.loads(out)["recording"]["events"]
counts = collections.Counter()
leaf = collections.Counter()
for e in events:
    frames = e["values"]["stackTrace"]["frames"]
    if not frames:
        continue
    names = [f["method"]["type"]["name"] + "." + f["method"]["name"] for f in frames]
    leaf[names[0]] += 1
    bucket = "JDK / other"
    for name in names:
        hit = next((b for b, prefix in BUCKETS if prefix in name), None)
        if hit:
            bucket = hit
            break
    counts[bucket] += 1
total = sum(counts.values())
print(f"{total} samples")
for bucket, n in counts.most_common():
    print(f"{100 * n / total:5.1f} %  {bucket}")
print("hottest leaf frames:")
for name, n in leaf.most_common(12):
    print(f"{100 * n / total:5.1f} %  {name}")

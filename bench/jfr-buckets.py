"""Attributes each JFR execution sample to the first frame, from the leaf up, in a known bucket; prints the buckets.
Usage: python3 bench/jfr-buckets.py target/bench/b1.jfr [callbacks in the recording]
With the number of callbacks, each bucket is also given in samples per 1,000 callbacks (compares two servers)."""
import collections
import json
import subprocess
import sys

from buckets import bucket_of

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
    bucket = bucket_of(names) or "JDK / other"
    counts[bucket] += 1
total = sum(counts.values())
calls = int(sys.argv[2]) if len(sys.argv) > 2 else 0
print(f"{total} samples" + (f", {1000 * total / calls:.2f} per 1,000 callbacks" if calls else ""))
for bucket, n in counts.most_common():
    print(f"{100 * n / total:5.1f} %  " + (f"{1000 * n / calls:6.2f}  " if calls else "") + bucket)
print("hottest leaf frames:")
for name, n in leaf.most_common(12):
    print(f"{100 * n / total:5.1f} %  {name}")

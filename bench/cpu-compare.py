"""Two servers' CPU per callback, bucket by bucket, from async-profiler's collapsed stacks (event cpu, threads on):
each sample is one interval of CPU on one thread, so samples x interval / callbacks is CPU time per callback.
Usage: python3 bench/cpu-compare.py INTERVAL_US NAME_A COLLAPSED_A CALLBACKS_A NAME_B COLLAPSED_B CALLBACKS_B
Prints a Markdown table (us of CPU per callback), then the innermost Camel frames of A (where Camel's own time goes)."""
import collections
import re
import sys

from buckets import bucket_of

EXTRA = [  # threads that are no request's: the JVM's own work, named by thread
    ("JIT compilers", re.compile(r"^C[12] CompilerThre")),
    ("GC", re.compile(r"^(GC Thread|G1 |VM Thread)")),
]


def load(path):
    buckets, camel = collections.Counter(), collections.Counter()
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        frames = stack.split(";")
        thread, frames = frames[0].strip("[]"), frames[1:]
        leaf_first = frames[::-1]
        bucket = bucket_of(leaf_first)
        if bucket is None:
            bucket = next((b for b, rx in EXTRA if rx.search(thread)), "JDK, JVM, kernel (no library frame)")
        buckets[bucket] += int(n)
        if bucket == "Camel core (routing, exchange, headers)":
            inner = next(f for f in leaf_first if "org/apache/camel/" in f)
            camel[inner.rsplit("/", 1)[-1]] += int(n)
    return buckets, camel


def main():
    interval = float(sys.argv[1])
    a_name, (a, a_camel), a_calls = sys.argv[2], load(sys.argv[3]), int(sys.argv[4])
    b_name, (b, _), b_calls = sys.argv[5], load(sys.argv[6]), int(sys.argv[7])
    per = lambda count, calls: count * interval / calls  # us of CPU per callback
    print(f"| bucket | {a_name} us/callback | {b_name} us/callback | {a_name} - {b_name} |")
    print("|---|---|---|---|")
    for k in sorted(set(a) | set(b), key=lambda k: -(per(a[k], a_calls) + per(b[k], b_calls))):
        pa, pb = per(a[k], a_calls), per(b[k], b_calls)
        print(f"| {k} | {pa:.1f} | {pb:.1f} | {pa - pb:+.1f} |")
    ta, tb = per(sum(a.values()), a_calls), per(sum(b.values()), b_calls)
    print(f"| **all** | **{ta:.1f}** | **{tb:.1f}** | **{ta - tb:+.1f}** ({ta / tb:.2f} x) |")
    print(f"\n{a_name}: {a_calls} callbacks, {sum(a.values())} samples; {b_name}: {b_calls} callbacks, "
          f"{sum(b.values())} samples; one sample per {interval:.0f} us of a thread's CPU")
    print(f"\n{a_name}'s Camel core time by innermost Camel frame (us per callback):\n")
    for name, n in a_camel.most_common(12):
        print(f"- {per(n, a_calls):.2f} {name}")


main()

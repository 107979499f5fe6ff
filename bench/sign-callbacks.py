"""Signed callbacks for wrk (bench/callbacks.lua), one per line: webhook-id, timestamp, signature, body, tab-separated,
for orders B-FIRST .. B-(FIRST+COUNT-1), all timestamped now (the signature window is 5 minutes: sign just before use).
Usage: python3 bench/sign-callbacks.py FIRST COUNT SECRET > file"""
import base64
import hashlib
import hmac
import sys
import time

first, n, secret = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
key = base64.b64decode(secret[len("whsec_"):])
ts = str(int(time.time()))
for i in range(first, first + n):
    body = '{"orderNumber":"B-%d","transactionId":"gw_%d","amount":"10.00","currency":"EUR","status":"succeeded"}' % (i, i)
    mid = "msg_%d" % i
    sig = base64.b64encode(hmac.new(key, ("%s.%s.%s" % (mid, ts, body)).encode(), hashlib.sha256).digest()).decode()
    print("%s\t%s\tv1,%s\t%s" % (mid, ts, sig, body))

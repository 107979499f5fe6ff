"""Signed gateway events for wrk (bench/adapter-callbacks.lua), one request per line, tab-separated: the path, then
header name and value pairs, then the body. One payment success per order, PREFIX-FIRST .. PREFIX-(FIRST+COUNT-1),
each signed as the gateway signs it, so every request is a real Pending -> Paid through the adapter:

  stripe     payment_intent.succeeded in Stripe's shape (its published fixtures, the ones src/test's StripeFixtures
             uses), Stripe-Signature t=<now>,v1=<hex HMAC-SHA256 of "<t>.<body>"> keyed with the whole whsec_ secret;
             orders S-n, 10.00 EUR (1000 in Stripe's units)
  wechatpay  WeChat Pay v3's TRANSACTION.SUCCESS: the transaction sealed with AES-256-GCM under the APIv3 key, the
             whole signed SHA256withRSA over "<timestamp>\\n<nonce>\\n<body>\\n" with the platform's private key, named by
             its certificate's serial; orders W-n, 10.00 CNY (1000 fen)

Usage:
  python3 bench/sign-adapters.py keys DIR              RSA 2048 key pair and self-signed certificate into DIR
                                                       (platform-key.pem, platform-cert.pem)
  python3 bench/sign-adapters.py stripe FIRST COUNT > file        (secret: B1A_STRIPE_SECRET)
  python3 bench/sign-adapters.py wechatpay FIRST COUNT DIR > file (APIv3 key: B1A_APIV3_KEY)
Secrets come from the environment, not the command line, where ps would show them. Timestamps are now: the adapters'
tolerance must cover the time until the file is sent (bench/b1-adapters.sh sets it to a day)."""
import base64
import datetime
import hashlib
import hmac
import json
import os
import sys
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.x509.oid import NameOID

FIXTURES = "src/test/resources/stripe/stripe-openapi-fixtures.json"


def keys(directory):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "paysync-bench-wechatpay-platform")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2)).sign(key, hashes.SHA256()))
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "platform-key.pem"), "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    with open(os.path.join(directory, "platform-cert.pem"), "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))


def line(path, headers, body):
    fields = [path]
    for name, value in headers:
        fields += [name, value]
    fields.append(body)
    return "\t".join(fields)


def stripe(first, n):
    secret = os.environ["B1A_STRIPE_SECRET"].encode()
    with open(FIXTURES) as f:
        resources = json.load(f)["resources"]
    ts = str(int(time.time()))
    for i in range(first, first + n):
        intent = dict(resources["payment_intent"], id="pi_bench_%d" % i, amount=1000, amount_received=1000,
                      currency="eur", status="succeeded", metadata={"order_number": "S-%d" % i})
        event = dict(resources["event"], id="evt_bench_%d" % i, type="payment_intent.succeeded", created=int(ts),
                     data={"object": intent})
        body = json.dumps(event, separators=(",", ":"))
        sig = hmac.new(secret, ("%s.%s" % (ts, body)).encode(), hashlib.sha256).hexdigest()
        print(line("/api/gateways/stripe/webhook",
                   [("Content-Type", "application/json"), ("Stripe-Signature", "t=%s,v1=%s" % (ts, sig))], body))


def wechatpay(first, n, directory):
    aes = AESGCM(os.environ["B1A_APIV3_KEY"].encode())
    with open(os.path.join(directory, "platform-key.pem"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    with open(os.path.join(directory, "platform-cert.pem"), "rb") as f:
        serial = format(x509.load_pem_x509_certificate(f.read()).serial_number, "X")
    ts = str(int(time.time()))
    for i in range(first, first + n):
        transaction = json.dumps({
            "mchid": "1900000001", "appid": "wxd678efh567hg6787", "out_trade_no": "W-%d" % i,
            "transaction_id": "4200000000%010d" % i, "trade_type": "NATIVE", "trade_state": "SUCCESS",
            "trade_state_desc": "支付成功", "bank_type": "OTHERS", "success_time": "2026-12-07T12:00:00+08:00",
            "payer": {"openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"},
            "amount": {"total": 1000, "payer_total": 1000, "currency": "CNY", "payer_currency": "CNY"}},
            separators=(",", ":"), ensure_ascii=False)
        nonce = "%012d" % i  # the resource's 12-byte IV: one per message under one key
        sealed = base64.b64encode(aes.encrypt(nonce.encode(), transaction.encode(), b"transaction")).decode()
        body = json.dumps({
            "id": "EV-bench-%d" % i, "create_time": "2026-12-07T12:00:00+08:00", "resource_type": "encrypt-resource",
            "event_type": "TRANSACTION.SUCCESS", "summary": "支付成功",
            "resource": {"original_type": "transaction", "algorithm": "AEAD_AES_256_GCM", "ciphertext": sealed,
                         "associated_data": "transaction", "nonce": nonce}},
            separators=(",", ":"), ensure_ascii=False)
        header_nonce = "BENCH%027d" % i
        signed = "%s\n%s\n%s\n" % (ts, header_nonce, body)
        sig = base64.b64encode(key.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())).decode()
        print(line("/api/gateways/wechatpay/notify",
                   [("Content-Type", "application/json"), ("Wechatpay-Timestamp", ts),
                    ("Wechatpay-Nonce", header_nonce), ("Wechatpay-Serial", serial), ("Wechatpay-Signature", sig)],
                   body))


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8")  # the bodies carry WeChat Pay's Chinese summary as UTF-8
    what = sys.argv[1]
    if what == "keys":
        keys(sys.argv[2])
    elif what == "stripe":
        stripe(int(sys.argv[2]), int(sys.argv[3]))
    elif what == "wechatpay":
        wechatpay(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit("unknown kind %s: keys, stripe or wechatpay" % what)

/*
 * Paysync: the state machines of docs/contract.md, with concurrent sync workers, crashes, stalled workers
 * (zombies), lost third-party responses, gateway callbacks that are duplicated or out of order, the shop's
 * cancellation, and (with -DNA=2) adjustments of an order: refunds, chargebacks and their reversals, reported
 * by the gateway in any order and any number of times, each with its own sync machine. The step-by-step mapping
 * to the SQL files and routes is in model/README.md. Check with: bash model/check.sh
 *
 * Abstractions:
 * - Every SQL statement (or transaction) is one atomic step: a d_step, or an atomic where its branches should
 *   count in check.sh's "every statement reached" (spin never reports the inside of a d_step). FOR UPDATE SKIP
 *   LOCKED only means a locked row is left for a later claim, another interleaving of the same atomic steps.
 * - There is no clock. A Pending sync is always due (backoff delays are finite). Lease expiry is an explicit
 *   step of the LeaseClock process, allowed only when the holder cannot be renewing it in time (see guard[]).
 * - The third party has idempotent create: a POST whose Idempotency-Key it has seen returns the record it
 *   made for that key (paysync.third-party.idempotent-create=true, the default).
 * - paysync.sync.include-final-failures=false (the default): only Paid orders are sent.
 * - Sync rows: an order and an adjustment each have one (sync_status, claim_token, attempts, lease). Rows
 *   0 .. N-1 are the orders, rows N .. R-1 the adjustments, all of order 0. A worker runs either claim loop
 *   (orders or adjustments) at each round, so two workers also cover one worker per loop.
 * - With -DORDER_SYNC_ABSTRACT (the runs with adjustments) the order's own sync is only what the adjustments see
 *   of it: its record made, then Completed or dead-lettered. The runs without adjustments prove that of the
 *   real worker (never Completed without the record, Completed is final, every Paid order eventually done).
 *
 * Assumption for liveness: faults are finite. Crashes, lease overruns (a live holder's lease running out
 * because it stalled or its order waited too long in the batch) and failed calls (lost answer, refused,
 * 4xx, breaker open) each have a budget that runs down; after that the system behaves. Weak fairness (pan -f):
 * a process that stays able to move eventually moves; so a dead worker's lease does run out (LeaseClock) and
 * a live worker does get on with its order. The gateway may also go quiet for good, so an order can stay
 * Pending forever.
 */

#ifndef N
#define N 2            /* orders: 1 or 2 (ANY_ORDER_DUE, Payments and LeaseClock are written out) */
#endif
#ifndef NA
#define NA 0           /* adjustments of order 0: 0, or 2 (the second may reverse the first) */
#endif
#define R (N + NA)     /* sync rows */
#ifndef W
#define W 2            /* sync workers (each restarts after a crash, as a new incarnation) */
#endif
#ifndef MAXATT
#define MAXATT   2     /* paysync.sync.max-attempts */
#endif
#ifndef INPROC
#define INPROC   1     /* paysync.sync.in-process-retries */
#endif

/* Fault budgets: finite faults are the liveness assumption. Override with spin -DNAME=value. */
#ifndef CRASHES
#define CRASHES  1     /* a worker dies at any step; its claims stay Processing until their lease expires */
#endif
#ifndef OVERRUNS
#define OVERRUNS 1     /* a live holder's lease runs out (it stalled, or the order waited too long in its batch) */
#endif
#ifndef CALLFAULTS
#define CALLFAULTS 2   /* failed calls: answer lost after the record was made (timeout, 5xx: in doubt), call
                          refused before anything was made (connection refused, 503 + Retry-After), a
                          non-retryable 4xx, or the circuit breaker open (CallNotPermittedException) */
#endif

/* PaymentStatus */
#define P_PENDING   0
#define P_PAID      1
#define P_FAILED    2
#define P_EXPIRED   3
#define P_CANCELLED 4
/* SyncStatus (S_DEAD is SyncStatus Failed: the dead letter; S_MANUAL only for adjustments) */
#define S_PENDING    0
#define S_PROCESSING 1
#define S_COMPLETED  2
#define S_DEAD       3
#define S_MANUAL     4
/* Why a Processing row's lease may or may not run out (abstract clock). */
#define G_LIVE    0    /* holder renewed it and is calling: a call is shorter than the lease (SyncSettings.check) */
#define G_LAGGING 1    /* holder is slow: order still waiting its turn in the batch, or the holder stalled */
#define G_ORPHAN  2    /* holder crashed: nobody renews it */
/* Third-party answers as the worker sees them. */
#define R_OK       0   /* 2xx with an id */
#define R_LOST     1   /* record made, answer lost: SocketTimeoutException / 5xx, in doubt */
#define R_REFUSED  2   /* nothing made, retryable: ConnectException, 503 with Retry-After */
#define R_REJECTED 3   /* nothing made, non-retryable 4xx */

/* ---- database: table orders ---- */
byte pay[N];           /* payment_status */
bool cx[N];            /* ghost: the order was Cancelled at some point (property C1) */
bool sac[N];           /* an anomaly success-after-cancel was recorded */
#ifdef CLOSE
/* ---- the gateway's side of each payment (-DCLOSE: expiry with paysync.payment.close-route) ---- */
#define GW_OPEN   0    /* the customer may still pay */
#define GW_CLOSED 1    /* closed by the expiry's close route: the gateway takes no payment for it any more */
#define GW_PAID   2    /* the gateway took the payment */
#define GW_FAILED 3    /* the payment failed at the gateway */
byte gw[N];
#endif
/* ---- database: the sync columns of every row (orders, then adjustments) ---- */
byte sync[R];          /* sync_status */
byte tok[R];           /* claim_token: each claim writes a fresh value */
byte att[R];           /* sync_attempts */
bool expired[R];       /* lease_until < now */
byte guard[R];         /* abstract clock: G_LIVE, G_LAGGING, G_ORPHAN (meaningful while Processing) */

/* ---- third party ---- */
byte recs[R];          /* records it holds for this order or adjustment */
byte keysSeen[R];      /* bit k set: Idempotency-Key variant k already created a record */
#ifdef MUTANT_NEW_KEY_ON_RETRY
byte sends[R];         /* POSTs received for this row (the mutant derives its key from it) */
#endif

/* ---- fault budgets ---- */
byte crashes = CRASHES;
byte overruns = OVERRUNS;
byte faults = CALLFAULTS;

/* claim-paid-orders.sql: payment_status = 'Paid' (include-final-failures off). */
#ifdef MUTANT_CLAIM_UNPAID
#define PAY_OK(o) true                                      /* mutant: the payment condition is gone */
#else
#define PAY_OK(o) (pay[o] == P_PAID)
#endif

/* Claimable: (sync Pending and next attempt has come) or (Processing and lease expired). */
#define CLAIMABLE(o) (sync[o] == S_PENDING || (sync[o] == S_PROCESSING && expired[o]))
#define ORDER_DUE(o) (CLAIMABLE(o) && PAY_OK(o))
#if N == 1
#define ANY_ORDER_DUE ORDER_DUE(0)
#elif N == 2
#define ANY_ORDER_DUE (ORDER_DUE(0) || ORDER_DUE(1))
#else
#error "N must be 1 or 2"
#endif

/* The Idempotency-Key of this send, as a bit in keysSeen. Real: always orderNumber for an order, the
 * adjustment's gateway id for an adjustment (one key per row). */
#ifdef MUTANT_NEW_KEY_ON_RETRY
#define KEYBIT(o) (1 << (sends[o] < 7 -> sends[o] : 7))      /* mutant: a fresh key on every resend */
#else
#define KEYBIT(o) 1
#endif

/* complete-sync.sql: WHERE id = :id AND claim_token = :claimToken AND sync_status = 'Processing'
 * (the adjustments' completion is the same on their table: adjustment-complete-sync.sql). */
#if defined(MUTANT_NO_FENCE)
#define COMPLETE_FENCE(o) (sync[o] == S_PROCESSING)          /* mutant: claim_token test dropped */
#elif defined(MUTANT_ADJ_NO_FENCE)
/* mutant: the claim_token test dropped for adjustments only */
#define COMPLETE_FENCE(o) (sync[o] == S_PROCESSING && (o >= N || tok[o] == mine[o]))
#else
#define COMPLETE_FENCE(o) (sync[o] == S_PROCESSING && tok[o] == mine[o])
#endif
/* reschedule-sync.sql, release-claim.sql, dead-letter-sync.sql, renew-lease.sql: same fence. */
#define FENCE(o) (sync[o] == S_PROCESSING && tok[o] == mine[o])

/* Property "fence": an outcome that moved the row was written by the current claim holder (README, sync
 * step 4: a worker whose lease was taken over updates zero rows). Checked right after each fenced write. */
#define HOLDER(o) (tok[o] == mine[o])

/* ---------------- gateway, shop and expiry job: the payment state machine ---------------- */
/* mark-order-paid.sql, mark-order-failed.sql, expire-order.sql, cancel-order.sql: UPDATE ... WHERE
 * payment_status = 'Pending'. Callbacks come in any number and order. A duplicate, or any callback or expiry for
 * an order already final, updates 0 rows (already-paid, ignored, order-not-pending, already-cancelled): it
 * changes no state, so it is a stutter step and is left out (the properties are stutter-invariant: safety
 * assertions and LTL without next). The one exception is a success for a Cancelled order: it changes nothing
 * but records the anomaly success-after-cancel (once; a repeat of it is again a stutter step). */
#ifdef MUTANT_SUCCESS_AFTER_CANCEL_PAYS
/* mutant: WHERE payment_status IN ('Pending', 'Cancelled') */
#define ON_SUCCESS_CANCELLED(o) pay[o] = P_PAID
#else
#define ON_SUCCESS_CANCELLED(o) sac[o] = true               /* stays Cancelled; anomaly success-after-cancel */
#endif
/* C1: a Cancelled order stays Cancelled (never Paid); checked after every step that writes payment_status */
#define C1_PAY(o) assert(!cx[o] || pay[o] == P_CANCELLED)
#define SUCCESS(o) atomic { pay[o] == P_PENDING || (pay[o] == P_CANCELLED && !sac[o]) -> \
                            if \
                            :: pay[o] == P_PENDING -> pay[o] = P_PAID \
                            :: else -> ON_SUCCESS_CANCELLED(o) \
                            fi; \
                            C1_PAY(o) }
#define FAILURE(o) d_step { pay[o] == P_PENDING -> pay[o] = P_FAILED; C1_PAY(o) }
#ifndef CLOSE
/* the window passed (find-expirable-orders) */
#define EXPIRY(o)  d_step { pay[o] == P_PENDING -> pay[o] = P_EXPIRED; C1_PAY(o) }
#else
/* E1: no order is Expired while the gateway holds a paid payment for it; checked after every step that writes
 * payment_status to Expired or the gateway's state to paid */
#define E1_PAY(o) assert(!(pay[o] == P_EXPIRED && gw[o] == GW_PAID))
/* The gateway: the customer pays, or the payment fails, only while the payment is open (a closed order takes no
 * payment). Its callback reports only what it took: a success only for a paid payment, a failure for a failed one. */
#define GW_PAY(o)  d_step { gw[o] == GW_OPEN -> gw[o] = GW_PAID; E1_PAY(o) }
#define GW_FAIL(o) d_step { gw[o] == GW_OPEN -> gw[o] = GW_FAILED }
#define CB_SUCCESS(o) atomic { gw[o] == GW_PAID && (pay[o] == P_PENDING || (pay[o] == P_CANCELLED && !sac[o])) -> \
                               if \
                               :: pay[o] == P_PENDING -> pay[o] = P_PAID \
                               :: else -> ON_SUCCESS_CANCELLED(o) \
                               fi; \
                               C1_PAY(o) }
#define CB_FAILURE(o) d_step { gw[o] == GW_FAILED && pay[o] == P_PENDING -> pay[o] = P_FAILED; C1_PAY(o) }
/* The expiry's close of one due Pending order (PaymentExpiry.close, src/main/resources/paysync/routes/gateway-close.camel.yaml): the close
 * request, then, as a separate step, the status question, then the guarded statement its answer leads to. The
 * close may not take (a payment in flight: the gateway answers, the payment stays open), and the question may get
 * no answer; both leave the order Pending. */
/* one guarded statement: 0 rows when the order became final meanwhile (a callback, the shop's cancel) */
#define EXPIRE_GUARDED(o, to) atomic { \
  if \
  :: pay[o] == P_PENDING -> pay[o] = to \
  :: else -> skip \
  fi; \
  E1_PAY(o); C1_PAY(o) }
#ifdef MUTANT_EXPIRE_WITHOUT_CLOSE
/* mutant: the window passed, expired on the clock alone, as without a close route */
#define CLOSE_EXPIRY(o) d_step { pay[o] == P_PENDING -> pay[o] = P_EXPIRED; E1_PAY(o); C1_PAY(o) }
#else
#define CLOSE_EXPIRY(o) \
  pay[o] == P_PENDING -> \
  if \
  :: d_step { gw[o] == GW_OPEN -> gw[o] = GW_CLOSED }  /* the close: closed at the gateway */ \
  :: skip                                               /* not taken: in flight, or already final */ \
  fi; \
  seen = gw[o];                                         /* the status question (GET ?orderNumber=) */ \
  if \
  :: seen == GW_CLOSED -> EXPIRE_GUARDED(o, P_EXPIRED)  /* expire-order.sql */ \
  :: seen == GW_PAID -> EXPIRE_GUARDED(o, P_PAID)       /* PaymentRules: mark-order-paid.sql */ \
  :: seen == GW_FAILED -> EXPIRE_GUARDED(o, P_FAILED)   /* PaymentRules: mark-order-failed.sql */ \
  :: seen == GW_OPEN -> skip                             /* pending: asked again next round */ \
  :: skip                                               /* no answer (refused, timed out, unusable) */ \
  fi; \
  seen = 0
#endif
#endif
/* the shop's backend, or an operator for it */
#define CANCEL(o)  d_step { pay[o] == P_PENDING -> pay[o] = P_CANCELLED; cx[o] = true; C1_PAY(o) }
#ifndef CLOSE
active proctype Payments() {
end:
  do
  :: SUCCESS(0)
  :: FAILURE(0)
  :: EXPIRY(0)
  :: CANCEL(0)
#if N > 1
  :: SUCCESS(1)
  :: FAILURE(1)
  :: EXPIRY(1)
  :: CANCEL(1)
#endif
  :: break                        /* no more callbacks, no more expiry or cancel: without it, weak fairness
                                     would force every order to become final */
  od
}
#else
/* The gateway and its callbacks, and the shop's cancel. */
active proctype Payments() {
end:
  do
  :: GW_PAY(0)
  :: GW_FAIL(0)
  :: CB_SUCCESS(0)
  :: CB_FAILURE(0)
  :: CANCEL(0)
#if N > 1
  :: GW_PAY(1)
  :: GW_FAIL(1)
  :: CB_SUCCESS(1)
  :: CB_FAILURE(1)
  :: CANCEL(1)
#endif
  :: break                        /* no more payments, callbacks or cancels */
  od
}

/* The expiry job with a close route: a round takes any due Pending order (the window is abstract). */
active proctype Expiry() {
  byte seen;
end:
  do
  :: CLOSE_EXPIRY(0)
#if N > 1
  :: CLOSE_EXPIRY(1)
#endif
  :: break                        /* the job stops: an order may stay Pending */
  od
}
#endif

/* ---------------- adjustments of order 0 (NA = 2) ---------------- */
#if NA == 2
/* AdjustmentStatus; A_NONE: no row with this gateway id */
#define A_NONE    0
#define A_PENDING 1
#define A_FINAL   2
#define A_VOID    3
/* kinds; a K_REVERSAL (chargeback-reversed) is adjustment 1 and reverses adjustment 0, a chargeback */
#define K_REFUND     0
#define K_CHARGEBACK 1
#define K_REVERSAL   2
#define AMT 2          /* the order's amount in minor units; an adjustment is 1 or 2 of them */
#define BIT(s) (1 << (s))

/* the gateway's truth: each adjustment's content is fixed by its gateway id */
byte kind[NA];
byte amt[NA];
byte gws[NA];          /* its status at the gateway */
byte emitted[NA];      /* bit s: an event reporting status s was sent; it may arrive any time later, again and again */
/* ---- database: table adjustments ---- */
byte ast[NA];          /* status */
byte arows[NA];        /* rows holding this gateway id (the unique constraint keeps it at most 1) */
byte accepted[NA];     /* ghost: bit s: an event reporting status s was accepted (property A3) */

/* The total rule (A4). A refund or chargeback counts unless Void; a reversal, of a Final chargeback, counts once
 * Final. So only an insert can raise the total: a move to Final or Void never does. */
#define DEBIT(a)  ((kind[a] != K_REVERSAL && (ast[a] == A_PENDING || ast[a] == A_FINAL)) -> amt[a] : 0)
#define CREDIT(a) ((kind[a] == K_REVERSAL && ast[a] == A_FINAL) -> amt[a] : 0)
#define TOTAL (DEBIT(0) + DEBIT(1) - CREDIT(1))
#ifdef MUTANT_ADJ_NO_TOTAL
#define EXCEEDS(a, s) false                                 /* mutant: the total is not checked */
#else
#define EXCEEDS(a, s) (s != A_VOID && kind[a] != K_REVERSAL && TOTAL + amt[a] > AMT)
#endif
/* insert-adjustment.sql: the unique constraint on the gateway id turns a second insert into a lookup */
#ifdef MUTANT_ADJ_NO_DUP_CHECK
#define INSERTS(a) true                                     /* mutant: no unique gateway id, no lookup */
#else
#define INSERTS(a) (ast[a] == A_NONE)
#endif

/* The adjustment sync's claim: the adjustment is Final and its order's record exists (order sync Completed). */
#ifdef MUTANT_ADJ_NOT_FINAL
#define ADJ_READY(a) (ast[a] != A_NONE)                      /* mutant: the status condition is gone */
#else
#define ADJ_READY(a) (ast[a] == A_FINAL)
#endif
#ifdef MUTANT_ADJ_NO_ORDER_RECORD
#define ORDER_SYNCED true                                   /* mutant: the order's sync is not looked at */
#else
#define ORDER_SYNCED (sync[0] == S_COMPLETED)
#endif
#define ADJ_DUE(o) (CLAIMABLE(o) && ADJ_READY(o - N) && ORDER_SYNCED)
#define ANY_ADJ_DUE (ADJ_DUE(N) || ADJ_DUE(N + 1))
#define ADJ_DONE(o) (sync[o] == S_COMPLETED || sync[o] == S_DEAD || sync[o] == S_MANUAL)

/* The gateway moves an adjustment Pending -> Final | Void, or reports it Final or Void at once; a reversal exists
 * only once its chargeback is Final. Each status it reaches is reported (emitted). */
#define GW_MAY_OPEN(a) (gws[a] == A_NONE && (kind[a] != K_REVERSAL || gws[0] == A_FINAL))
#define GW_STEP(a, from, to) d_step { from -> gws[a] = to; emitted[a] = emitted[a] | BIT(to) }

/* The rules for one adjustment event (a, s): adjustment a reported with status s, by any source (callback,
 * adapter, settlement file, reconciliation, operator). One transaction; a refusal stores nothing but its anomaly. */
inline adjustment_rules() {
  atomic {
    replay = (accepted[a] & BIT(s)) != 0; was = ast[a]; rows = arows[a];
    if
    :: INSERTS(a) ->
       /* insert-adjustment.sql, after the rules' checks */
       if
       :: pay[0] != P_PAID -> skip                           /* adjustment-for-unpaid-order */
       :: else ->
          if
          :: kind[a] == K_REVERSAL && ast[0] != A_FINAL -> skip  /* no Final chargeback to reverse */
          :: else ->
             if
             :: EXCEEDS(a, s) -> skip                        /* adjustment-exceeds-amount */
             :: else ->
#ifdef MUTANT_ADJ_NO_DUP_CHECK
                if
                :: ast[a] == A_NONE -> ast[a] = s
                :: else -> skip                              /* a second row; the model follows the first */
                fi;
#else
                ast[a] = s;                                  /* reported Final (or Void) at once: inserted so */
#endif
                arows[a]++;
                accepted[a] = accepted[a] | BIT(s)
             fi
          fi
       fi
    :: else ->
       /* the gateway id exists, with the same content */
       if
       :: ast[a] == A_PENDING && s != A_PENDING ->
          ast[a] = s;                                        /* move-adjustment.sql: WHERE status = 'Pending' */
          accepted[a] = accepted[a] | BIT(s)
       :: else -> skip                                       /* a duplicate or a late report: changes nothing */
       fi
    fi;
    total = TOTAL;
    assert(total <= AMT);                                    /* A4: the total rule */
    assert(!replay || (ast[a] == was && arows[a] == rows));  /* A3: a replayed event changes nothing */
    a = 0; s = 0; replay = false; was = 0; rows = 0; total = 0
  }
}

/* The gateway's side of adjustments, and their events as Paysync receives them. */
active proctype Adjustments() {
  byte a, s;           /* the event being handled */
  bool replay;         /* ghost: it reports a status already accepted for this gateway id */
  byte was, rows;      /* ghost: the row before it */
  short total;         /* the order's adjustments after it (TOTAL) */

#ifdef ADJ_SIMPLE
  /* For the sync's faults: two refunds of 1, each reported Final once, at any time (also before the order's
   * success or record: then it is refused and, as the gateway does not report it again here, never stored). */
  kind[0] = K_REFUND; amt[0] = 1; kind[1] = K_REFUND; amt[1] = 1;
end:
  do
  :: atomic { gws[0] == A_NONE -> gws[0] = A_FINAL; a = 0; s = A_FINAL; adjustment_rules() }
  :: atomic { gws[1] == A_NONE -> gws[1] = A_FINAL; a = 1; s = A_FINAL; adjustment_rules() }
  :: break
  od
#else
  /* Three cases: two partial refunds that fit (1 + 1), two that exceed the amount unless one is Void (1 + 2),
   * a chargeback and its reversal. A chargeback in place of a refund weighs the same in the total rule. */
  atomic {
    kind[0] = K_REFUND; amt[0] = 1; amt[1] = 1;
    if
    :: kind[1] = K_REFUND
    :: kind[1] = K_REFUND; amt[1] = 2
    :: kind[0] = K_CHARGEBACK; kind[1] = K_REVERSAL
    fi
  }
end:
  do
  :: GW_STEP(0, GW_MAY_OPEN(0), A_PENDING)
  :: GW_STEP(1, GW_MAY_OPEN(1), A_PENDING)
  :: GW_STEP(0, GW_MAY_OPEN(0), A_FINAL)
  :: GW_STEP(1, GW_MAY_OPEN(1), A_FINAL)
  :: GW_STEP(0, GW_MAY_OPEN(0), A_VOID)
  :: GW_STEP(1, GW_MAY_OPEN(1), A_VOID)
  :: GW_STEP(0, gws[0] == A_PENDING, A_FINAL)
  :: GW_STEP(1, gws[1] == A_PENDING, A_FINAL)
  :: GW_STEP(0, gws[0] == A_PENDING, A_VOID)
  :: GW_STEP(1, gws[1] == A_PENDING, A_VOID)
  :: atomic {
       /* an event reported earlier arrives: again, late, or before the order's success */
       if
       :: emitted[0] & BIT(A_PENDING) -> a = 0; s = A_PENDING
       :: emitted[0] & BIT(A_FINAL)   -> a = 0; s = A_FINAL
       :: emitted[0] & BIT(A_VOID)    -> a = 0; s = A_VOID
       :: emitted[1] & BIT(A_PENDING) -> a = 1; s = A_PENDING
       :: emitted[1] & BIT(A_FINAL)   -> a = 1; s = A_FINAL
       :: emitted[1] & BIT(A_VOID)    -> a = 1; s = A_VOID
       fi;
       adjustment_rules()
     }
  :: break                        /* the gateway goes quiet */
  od
#endif
}
#endif

/* ---------------- abstract clock: lease expiry ---------------- */
/* lease_until passes: only when no live holder is renewing it in time. An orphan's lease always runs out;
 * a slow (stalled, or still-waiting) holder's lease runs out only while the overrun budget lasts. */
#ifdef MUTANT_LEASE_NEVER_EXPIRES
#define CAN_EXPIRE(o) false                                 /* mutant: a dead worker's claim is never released */
#else
#define CAN_EXPIRE(o) (sync[o] == S_PROCESSING && !expired[o] && \
                       (guard[o] == G_ORPHAN || (guard[o] == G_LAGGING && overruns > 0)))
#endif
#define EXPIRE(o) d_step { CAN_EXPIRE(o) -> \
                           if :: guard[o] == G_LAGGING -> overruns-- :: else -> skip fi; \
                           expired[o] = true }

active proctype LeaseClock() {
end:
  do
  :: EXPIRE(0)
#if R > 1
  :: EXPIRE(1)
#endif
#if R > 2
  :: EXPIRE(2)
#endif
#if R > 3
  :: EXPIRE(3)
#endif
  od
}

/* ---------------- the third party: POST /records (or the adjustment request) with Idempotency-Key ------- */
/* One atomic step: the request arrives, the record is made or found, the answer is returned or lost. */
inline third_party_post(o, result) {
  atomic {
    if
#ifndef ORDER_SYNC_ABSTRACT
    :: o < N ->
       /* I1: never sent unless the order's payment is Paid at the time of the send */
       assert(pay[o] == P_PAID);
       /* C1: a Cancelled order is never sent as paid, not even after a success */
       assert(!cx[o])
#endif
#if NA > 0
    :: o >= N ->                  /* (not else: this if may be the guard of the caller's option) */
       /* A1: an adjustment is sent only once Final, and only after its order's record exists */
       assert(ast[o - N] == A_FINAL);
       assert(recs[0] == 1)
#endif
    fi;
#ifdef MUTANT_NEW_KEY_ON_RETRY
    sends[o]++;
#endif
    if
    :: faults > 0 -> faults--; result = R_REFUSED
    :: faults > 0 -> faults--; result = R_REJECTED
    :: true ->
       if
       :: (keysSeen[o] & KEYBIT(o)) == 0 -> keysSeen[o] = keysSeen[o] | KEYBIT(o); recs[o]++
       :: else -> skip            /* same key: the record made before, no new one */
       fi;
       /* I2, A2: at most one third-party record per order and per adjustment */
       assert(recs[o] <= 1);
       if
       :: result = R_OK
       :: faults > 0 -> faults--; result = R_LOST
       fi
    fi
  }
}

/* ---------------- sync worker: paid-order-sync + third-party-call (and the adjustments' loop) ------------ */
/* crash: the process dies; every row it held stays Processing with its token until the lease runs out */
#define CRASH    atomic { crashes > 0 -> crashes--; goto crash }
/* stall (GC pause, suspended VM): from now on this holder's lease may run out before it acts again */
#define STALL(o) d_step { HOLDER(o) && guard[o] == G_LIVE -> guard[o] = G_LAGGING }

/* the claim of one row, as the claim's UPDATE writes it */
#define TAKE(o) tok[o]++; mine[o] = tok[o]; att[o]++; myatt[o] = att[o]; \
                sync[o] = S_PROCESSING; expired[o] = false; \
                guard[o] = G_LAGGING      /* waiting for its turn in the batch: may wait nearly a lease */

/* the split: go to the next claimed row, or back to claiming when the batch is done */
#define PICK_NEXT do \
                  :: o < R && mine[o] == 0 -> o++ \
                  :: o < R && mine[o] != 0 -> break \
                  :: o == R -> o = 0; goto top \
                  od; \
                  goto renew
/* the first of a batch just claimed: there is one */
#define PICK_FIRST o = 0; \
                   do \
                   :: mine[o] == 0 -> o++ \
                   :: mine[o] != 0 -> break \
                   od; \
                   goto renew
/* this row is done (whatever its outcome): forget it, move on */
#define FINISH mine[o] = 0; myatt[o] = 0; fails = 0; result = 0; o++; PICK_NEXT

/* the call: breaker, then POST; goes on at record (or at release / retrylater if the breaker is open) */
inline SEND_STEP() {
  atomic {
    if
    :: faults > 0 ->
       /* circuit breaker open: CallNotPermittedException -> SyncOutcomes.breakerOpen */
       faults--;
       if
       :: fails > 0 -> goto retrylater  /* an earlier try of this attempt did call: the attempt counts */
       :: else -> goto release
       fi
    :: third_party_post(o, result)      /* POST {url}/records: not fenced, a zombie's request arrives too */
    fi;
    goto record
  }
}
/* store the outcome of the call */
inline RECORD_STEP() {
  atomic {
    if
    :: result == R_OK ->
       /* SyncOutcomes.record: complete-sync.sql, fenced; 0 rows = lostLease, logged */
       if
       :: COMPLETE_FENCE(o) ->
          assert(HOLDER(o));            /* fence */
          assert(recs[o] == 1);         /* never Completed without the record */
          sync[o] = S_COMPLETED
       :: else -> skip
       fi;
       FINISH
    :: result == R_REJECTED -> goto deadletter   /* non-retryable 4xx: dead letter at once */
    :: result == R_LOST || result == R_REFUSED ->
       /* mayRetryInProcess: redeliver at once (through the breaker again), else SyncOutcomes.retryLater */
       fails++;
       if
       :: fails <= INPROC -> goto call
       :: else -> goto retrylater
       fi
    fi
  }
}

proctype Worker() {
  byte mine[R];       /* claim token this worker holds per row, 0 = none */
  byte myatt[R];      /* sync_attempts as its claim returned it (ClaimedOrder.attempts) */
  byte o, fails, result;

top:
end:
  if
#ifndef ORDER_SYNC_ABSTRACT
  :: atomic {
       /* paid-order-sync: claim-paid-orders.sql, one atomic UPDATE over all due orders (batch-size >= N) */
       ANY_ORDER_DUE ->
       for (o : 0 .. N - 1) {
         if
         :: ORDER_DUE(o) -> TAKE(o)
         :: else -> skip
         fi
       }
       PICK_FIRST                      /* split: the claimed orders one after another */
     }
#endif
#if NA > 0
#ifdef NO_ADJ_ROUTE
  :: atomic {
       /* no adjustment request route: every ready adjustment goes to Manual (mark-adjustments-manual.sql) */
       ANY_ADJ_DUE ->
       for (o : N .. R - 1) {
         if
         :: ADJ_DUE(o) ->
            assert(ast[o - N] == A_FINAL && recs[0] == 1);  /* A1: handed over only when it could be sent */
            sync[o] = S_MANUAL
         :: else -> skip
         fi
       }
       o = 0;
       goto top
     }
#else
  :: atomic {
       /* the adjustments' claim (claim-adjustments.sql): Final adjustments of orders whose sync is Completed */
       ANY_ADJ_DUE ->
       for (o : N .. R - 1) {
         if
         :: ADJ_DUE(o) -> TAKE(o)
         :: else -> skip
         fi
       }
       PICK_FIRST
     }
#endif
#endif
  fi;
renew:
  if
  :: CRASH                            /* died while the row waited its turn */
  :: atomic {
       /* SyncClaims.stillOurs: renew-lease.sql, fenced */
       if
       :: FENCE(o) -> expired[o] = false; guard[o] = G_LIVE
       :: else -> FINISH                /* taken over before its turn: skipped */
       fi;
       /* ThirdPartyCall.decide: a reclaim past max-attempts (holders kept dying) is dead-lettered unsent */
       if
       :: myatt[o] > MAXATT -> goto deadletter
       :: else -> skip
       fi
     }
  fi;

call:
  /* after the renewal, before the request goes out: crash, stall, or send */
  if
  :: CRASH
  :: STALL(o)                         /* the zombie case: resumes later and sends anyway */
  :: SEND_STEP()
  fi;
  SEND_STEP();                        /* after a stall */
record:
  /* the in-doubt window: after the call, before its outcome is stored: crash, stall, or store */
  if
  :: CRASH
  :: STALL(o)
  :: RECORD_STEP()
  fi;
  RECORD_STEP();                      /* after a stall */

retrylater:
  /* SyncOutcomes.retry: dead letter once attempts are used up, else reschedule-sync.sql (fenced) */
  atomic {
    if
    :: myatt[o] >= MAXATT -> goto deadletter
    :: else -> skip
    fi;
    if
    :: FENCE(o) -> assert(HOLDER(o)); sync[o] = S_PENDING
    :: else -> skip
    fi;
    FINISH
  }

release:
  /* SyncOutcomes.release: release-claim.sql, fenced; the attempt is refunded */
  atomic {
    if
    :: FENCE(o) -> assert(HOLDER(o)); sync[o] = S_PENDING; att[o]--
    :: else -> skip
    fi;
    FINISH
  }

deadletter:
  /* dead-letter-sync.sql, fenced */
  atomic {
    if
    :: FENCE(o) -> assert(HOLDER(o)); sync[o] = S_DEAD
    :: else -> skip
    fi;
    FINISH
  }

crash:
  /* the process is gone: local memory lost; its held rows become orphans (nobody renews their lease) */
  atomic {
    for (o : 0 .. R - 1) {
      if
      :: mine[o] != 0 && FENCE(o) -> guard[o] = G_ORPHAN
      :: else -> skip
      fi;
      mine[o] = 0; myatt[o] = 0
    }
    o = 0; fails = 0; result = 0;
    goto top                          /* restarted as a new incarnation */
  }
}

#ifdef ORDER_SYNC_ABSTRACT
/* The order's own sync as the adjustments see it: its record is made, then its sync is Completed or
 * dead-lettered (the real worker's behaviour, checked in the runs without adjustments). */
active proctype OrderSync() {
end:
  pay[0] == P_PAID;
  if
  :: recs[0] = 1;
     if
     :: sync[0] = S_COMPLETED
     :: sync[0] = S_DEAD
     fi
  :: sync[0] = S_DEAD
  fi
}
#endif

init {
  byte w;
  atomic {
    for (w : 1 .. W) { run Worker() }
    w = 0
  }
}

/* Liveness (I2, first half): every Paid order is eventually Completed or dead-lettered.
 * Paid is final, so "[] (paid -> <> done)" is the whole requirement. Check with: ./pan -a -f -N liveN */
ltl live0 { [] ((pay[0] == P_PAID) -> <> (sync[0] == S_COMPLETED || sync[0] == S_DEAD)) }
#if N > 1
ltl live1 { [] ((pay[1] == P_PAID) -> <> (sync[1] == S_COMPLETED || sync[1] == S_DEAD)) }
#endif
#if NA == 2
/* Liveness (A2, first half): every Final adjustment of an order whose record exists is eventually Completed,
 * dead-lettered, or Manual. Final and the order's Completed are final, so the antecedent is stable. */
ltl liveadj { [] ((ast[0] == A_FINAL && sync[0] == S_COMPLETED) -> <> ADJ_DONE(N)) &&
              [] ((ast[1] == A_FINAL && sync[0] == S_COMPLETED) -> <> ADJ_DONE(N + 1)) }
#elif NA != 0
#error "NA must be 0 or 2"
#endif

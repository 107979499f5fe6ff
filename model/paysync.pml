/*
 * Paysync: the two state machines of docs/contract.md, with concurrent sync workers, crashes, stalled
 * workers (zombies), lost third-party responses, and gateway callbacks that are duplicated or out of order.
 * The step-by-step mapping to the SQL files and routes is in model/README.md. Check with: bash model/check.sh
 *
 * Abstractions:
 * - Every SQL statement is one atomic step (d_step). FOR UPDATE SKIP LOCKED only means a locked row is left
 *   for a later claim, which is another interleaving of the same atomic steps.
 * - There is no clock. A Pending sync is always due (backoff delays are finite). Lease expiry is an explicit
 *   step of the LeaseClock process, allowed only when the holder cannot be renewing it in time (see guard[]).
 * - The third party has idempotent create: a POST whose Idempotency-Key it has seen returns the record it
 *   made for that key (paysync.third-party.idempotent-create=true, the default).
 * - paysync.sync.include-final-failures=false (the default): only Paid orders are sent.
 *
 * Assumption for liveness: faults are finite. Crashes, lease overruns (a live holder's lease running out
 * because it stalled or its order waited too long in the batch) and failed calls (lost answer, refused,
 * 4xx, breaker open) each have a budget that runs down; after that the system behaves. Weak fairness (pan -f):
 * a process that stays able to move eventually moves; so a dead worker's lease does run out (LeaseClock) and
 * a live worker does get on with its order. The gateway may also go quiet for good, so an order can stay
 * Pending forever.
 */

#define N 2            /* orders; ANY_DUE, EXPIRE, SUCCESS/FAILURE/EXPIRY are written out for 2 */
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
#define P_PENDING 0
#define P_PAID    1
#define P_FAILED  2
#define P_EXPIRED 3
/* SyncStatus (S_DEAD is SyncStatus Failed: the dead letter) */
#define S_PENDING    0
#define S_PROCESSING 1
#define S_COMPLETED  2
#define S_DEAD       3
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
byte sync[N];          /* sync_status */
byte tok[N];           /* claim_token: each claim writes a fresh value */
byte att[N];           /* sync_attempts */
bool expired[N];       /* lease_until < now */
byte guard[N];         /* abstract clock: G_LIVE, G_LAGGING, G_ORPHAN (meaningful while Processing) */

/* ---- third party ---- */
byte recs[N];          /* records it holds for this order */
byte keysSeen[N];      /* bit k set: Idempotency-Key variant k already created a record */
#ifdef MUTANT_NEW_KEY_ON_RETRY
byte sends[N];         /* POSTs received for this order (the mutant derives its key from it) */
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

/* Due: (sync Pending and next attempt has come) or (Processing and lease expired). */
#define DUE(o) ((sync[o] == S_PENDING || (sync[o] == S_PROCESSING && expired[o])) && PAY_OK(o))
#define ANY_DUE (DUE(0) || DUE(1))   /* written out for N = 2 */

/* The Idempotency-Key of this send, as a bit in keysSeen. Real: always orderNumber (one key per order). */
#ifdef MUTANT_NEW_KEY_ON_RETRY
#define KEYBIT(o) (1 << (sends[o] < 7 -> sends[o] : 7))      /* mutant: a fresh key on every resend */
#else
#define KEYBIT(o) 1
#endif

/* complete-sync.sql: WHERE id = :id AND claim_token = :claimToken AND sync_status = 'Processing'. */
#ifdef MUTANT_NO_FENCE
#define COMPLETE_FENCE(o) (sync[o] == S_PROCESSING)          /* mutant: claim_token test dropped */
#else
#define COMPLETE_FENCE(o) (sync[o] == S_PROCESSING && tok[o] == mine[o])
#endif
/* reschedule-sync.sql, release-claim.sql, dead-letter-sync.sql, renew-lease.sql: same fence. */
#define FENCE(o) (sync[o] == S_PROCESSING && tok[o] == mine[o])

/* Property "fence": an outcome that moved the row was written by the current claim holder (README, sync
 * step 4: a worker whose lease was taken over updates zero rows). Checked right after each fenced write. */
#define HOLDER(o) (tok[o] == mine[o])

/* ---------------- gateway and expiry job: the payment state machine ---------------- */
/* mark-order-paid.sql, mark-order-failed.sql, expire-order.sql: UPDATE ... WHERE payment_status = 'Pending'.
 * Callbacks come in any number and order. A duplicate, or any callback or expiry for an order already final,
 * updates 0 rows (already-paid, ignored, order-not-pending): it changes no state, so it is a stutter step and
 * is left out (the properties are stutter-invariant: safety assertions and LTL without next). */
#define SUCCESS(o) d_step { pay[o] == P_PENDING -> pay[o] = P_PAID }
#define FAILURE(o) d_step { pay[o] == P_PENDING -> pay[o] = P_FAILED }
#define EXPIRY(o)  d_step { pay[o] == P_PENDING -> pay[o] = P_EXPIRED }  /* window passed; find-expirable-orders */
active proctype Payments() {
end:
  do
  :: SUCCESS(0)
  :: SUCCESS(1)
  :: FAILURE(0)
  :: FAILURE(1)
  :: EXPIRY(0)
  :: EXPIRY(1)
  :: break                        /* no more callbacks, no more expiry: without it, weak fairness would force
                                     every order to become final */
  od
}

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
  :: EXPIRE(1)                    /* written out for N = 2 */
  od
}

/* ---------------- the third party: POST /records with Idempotency-Key ---------------- */
/* One atomic step: the request arrives, the record is made or found, the answer is returned or lost. */
inline third_party_post(o, result) {
  atomic {
    /* I1: never sent unless the order's payment is Paid at the time of the send */
    assert(pay[o] == P_PAID);
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
       /* I2: at most one third-party record per order */
       assert(recs[o] <= 1);
       if
       :: result = R_OK
       :: faults > 0 -> faults--; result = R_LOST
       fi
    fi
  }
}

/* ---------------- sync worker: paid-order-sync + third-party-call ---------------- */
/* crash: the process dies; every row it held stays Processing with its token until the lease runs out */
#define CRASH    atomic { crashes > 0 -> crashes--; goto crash }
/* stall (GC pause, suspended VM): from now on this holder's lease may run out before it acts again */
#define STALL(o) d_step { HOLDER(o) && guard[o] == G_LIVE -> guard[o] = G_LAGGING }

/* the split: go to the next claimed order, or back to claiming when the batch is done */
#define PICK_NEXT do \
                  :: o < N && mine[o] == 0 -> o++ \
                  :: o < N && mine[o] != 0 -> break \
                  :: o == N -> o = 0; goto top \
                  od; \
                  goto renew
/* this order is done (whatever its outcome): forget it, move on */
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
  byte mine[N];       /* claim token this worker holds per order, 0 = none */
  byte myatt[N];      /* sync_attempts as its claim returned it (ClaimedOrder.attempts) */
  byte o, fails, result;

top:
  /* paid-order-sync: claim-paid-orders.sql, one atomic UPDATE over all due orders (batch-size >= N) */
end:
  atomic {
    ANY_DUE ->
    for (o : 0 .. N - 1) {
      if
      :: DUE(o) ->
         tok[o]++; mine[o] = tok[o]; att[o]++; myatt[o] = att[o];
         sync[o] = S_PROCESSING; expired[o] = false;
         guard[o] = G_LAGGING      /* waiting for its turn in the batch: may wait nearly a lease */
      :: else -> skip
      fi
    }
    o = 0;
    PICK_NEXT                         /* split: the claimed orders one after another */
  }
renew:
  if
  :: CRASH                            /* died while the order waited its turn */
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
    for (o : 0 .. N - 1) {
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
ltl live1 { [] ((pay[1] == P_PAID) -> <> (sync[1] == S_COMPLETED || sync[1] == S_DEAD)) }

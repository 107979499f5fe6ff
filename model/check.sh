#!/usr/bin/env bash
# Model-checks model/paysync.pml with spin (see model/README.md).
# The real model must show no error for every property; each mutant must make spin report the violation it
# was built to cause. One line per check; exit status 1 on any unexpected result.
# Usage, from the repository root: bash model/check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
model="$PWD/model/paysync.pml"

if ! command -v spin > /dev/null 2>&1; then
  echo "check.sh: spin is not installed. Install it with: apt-get install -y spin" >&2
  exit 2
fi
if ! command -v gcc > /dev/null 2>&1; then
  echo "check.sh: gcc is not installed (spin's verifier is C). Install it with: apt-get install -y gcc" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs_max=${MODEL_CHECK_JOBS:-$(nproc 2> /dev/null || echo 2)} # CI runs it beside the tests, one check at a time

# check <name> <expect> <spin defines> <gcc flags> <pan flags>
#   expect: "pass" (full search, errors: 0), "cover" (pass, and every statement of every process reached
#   but the end of the infinite loops: a guard that silently disables a step would make the check vacuous),
#   "cover:<Proc>,<Proc>" (the same for the processes named only), or "fail:<text pan must print>"
#   (errors > 0, and that text). A cover check runs spin -o3: without it, spin merges a chain of statements
#   into one step and reports none of them unreached. (The inside of a d_step is never reported: the model
#   keeps a step whose branches matter in an atomic.)
# Runs in the background; writes <name>.line (the summary) and <name>.ok when the result is the expected one.
check() {
  local name=$1 expect=$2 defs=$3 cflags=$4 pflags=$5 dir="$work/$1"
  mkdir -p "$dir"
  (
    cd "$dir"
    local opt=""
    [[ "$expect" == cover* ]] && opt="-o3"
    # shellcheck disable=SC2086
    if ! spin $opt $defs -a "$model" > spin.out 2>&1; then
      echo "FAIL  $name: spin -a failed: $(tail -n 3 spin.out | tr '\n' ' ')" > "$work/$name.line"; exit 0
    fi
    # shellcheck disable=SC2086
    if ! gcc -w -O2 -DMEMLIM=2048 $cflags -o pan pan.c > gcc.out 2>&1; then
      echo "FAIL  $name: gcc failed: $(tail -n 3 gcc.out | tr '\n' ' ')" > "$work/$name.line"; exit 0
    fi
    # shellcheck disable=SC2086
    ./pan $pflags > pan.out 2>&1 || true
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.out | tail -n 1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.out | tail -n 1)
    secs=$(sed -n 's/^pan: elapsed time \([0-9.e+-]*\) seconds.*/\1/p' pan.out | tail -n 1)
    violation=$(grep -m 1 -E '^pan:[0-9]+: ' pan.out | sed 's/^pan:[0-9]*: //; s/ (at depth [0-9]*)//' || true)
    stats="states stored ${states:-?}, ${secs:-?} s"
    verdict=FAIL
    case "$expect" in
      pass | cover | cover:*)
        # statements never reached, outside the never claims, other than the end of a process body
        procs=""
        [[ "$expect" == cover:* ]] && procs=${expect#cover:}
        unreached=$(awk -v procs=",$procs," '/^unreached in proctype/ {p = (procs == ",," || index(procs, "," $4 ",") > 0); next}
          /^unreached in/ {p = 0} p && /state [0-9]+, "/ && !/"-end-"/' pan.out)
        if [[ "$errors" == 0 ]] && ! grep -qE 'Search not completed|error: max search depth|out of memory' pan.out \
            && [[ "$expect" == pass || -z "$unreached" ]]; then
          verdict=PASS; detail="errors: 0"
          [[ "$expect" == cover ]] && detail="errors: 0, every statement reached"
          [[ "$expect" == cover:* ]] && detail="errors: 0, every statement of $procs reached"
        elif [[ "$errors" == 0 && -n "$unreached" ]]; then
          detail="errors: 0 but statements never reached: $(echo "$unreached" | head -n 3 | tr -s ' \t\n' ' ')"
        else
          detail="expected errors: 0, got errors: ${errors:-?} ${violation:+($violation)}"
          [[ "$errors" == 0 ]] && detail="$detail; search incomplete (memory or depth limit)"
        fi ;;
      fail:*)
        want=${expect#fail:}
        if [[ -n "$errors" && "$errors" -gt 0 ]] && grep -qF -- "$want" pan.out; then
          verdict=PASS; detail="errors: $errors, as expected: $violation"
        else
          detail="expected a violation '$want', got errors: ${errors:-?} ${violation:+($violation)}"
        fi ;;
    esac
    printf '%s  %-34s %s; %s\n' "$verdict" "$name" "$detail" "$stats" > "$work/$name.line"
    if [[ "$verdict" == PASS ]]; then touch "$work/$name.ok"; else cp pan.out "$work/$name.pan.out"; fi
  ) &
  while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do wait -n || true; done
}

safety="-DSAFETY -DNOCLAIM"     # assertions and invalid end states; the ltl claims are left out
live="-a -f -m200000"           # acceptance cycles under weak fairness
names=()
add() { names+=("$1"); check "$@"; }

start=$SECONDS
# Adjustments: 1 order, its 2 adjustments, the order's own sync reduced to what they see of it (its record
# made, then Completed or dead-lettered: what the runs without adjustments prove of it). Two configurations,
# as one with every event order and every fault is too large: every event order with crashes and overruns
# but no failed calls ("rules"), and every fault with each adjustment reported Final once ("faults").
adj="-DN=1 -DNA=2 -DORDER_SYNC_ABSTRACT"
rules="$adj -DCALLFAULTS=0"
faults="$adj -DADJ_SIMPLE"
adjlive="-DNFAIR=3"             # 7 processes: fairness needs room for them

# The longest first, so the two at a time finish together.
add "live0 (order 0 Paid -> done)"    pass "" "" "$live -N live0"
add "live1 (order 1 Paid -> done)"    pass "" "" "$live -N live1"
add "safety (3 workers)"              pass "-DW=3" "$safety" "-m100000"
add "adjustments: faults (safety)"    cover:Worker "$faults" "$safety" "-m200000"
add "liveadj: faults"                 pass "$faults -DCALLFAULTS=1" "$adjlive" "$live -N liveadj"
add "liveadj: rules, a crash"         pass "$rules -DOVERRUNS=0" "$adjlive" "$live -N liveadj"
add "adjustments: rules (safety)"     cover:Payments,Adjustments,OrderSync,LeaseClock "$rules" "$safety" "-m200000"
add "safety (2 workers)"              cover "" "$safety" "-m100000"
add "liveadj: no route, Manual"       pass "$adj -DNO_ADJ_ROUTE" "$adjlive" "$live -N liveadj"
# Expiry with a close route (-DCLOSE): the gateway's side of the payment, the close, then the status question.
close="-DCLOSE -DN=1"
add "close: E1 (safety)"              cover:Payments,Expiry,LeaseClock "$close" "$safety" "-m100000"
add "close: live0"                    pass "$close" "-DNFAIR=3" "$live -N live0"
# Mutants: each must fail, on the property it breaks.
add "mutant CLAIM_UNPAID"             "fail:assertion violated (pay[o]==1)" "-DMUTANT_CLAIM_UNPAID" "$safety" "-m100000"
add "mutant NO_FENCE"                 "fail:assertion violated (tok[o]==mine[o])" "-DMUTANT_NO_FENCE" "$safety" "-m100000"
add "mutant NEW_KEY_ON_RETRY"         "fail:assertion violated (recs[o]<=1)" "-DMUTANT_NEW_KEY_ON_RETRY" "$safety" "-m100000"
add "mutant LEASE_NEVER_EXPIRES"      "fail:acceptance cycle" "-DMUTANT_LEASE_NEVER_EXPIRES" "" "$live -N live0"
add "mutant LEASE_NEVER_EXPIRES (adj)" "fail:acceptance cycle" "$rules -DOVERRUNS=0 -DMUTANT_LEASE_NEVER_EXPIRES" "$adjlive" "$live -N liveadj"
add "mutant SUCCESS_AFTER_CANCEL_PAYS" "fail:assertion violated ( !(cx[" "-DMUTANT_SUCCESS_AFTER_CANCEL_PAYS" "$safety" "-m100000"
add "mutant ADJ_NO_ORDER_RECORD"      "fail:assertion violated (recs[0]==1)" "$rules -DMUTANT_ADJ_NO_ORDER_RECORD" "$safety" "-m200000"
add "mutant ADJ_NOT_FINAL"            "fail:assertion violated (ast[(o-1)]==2)" "$rules -DMUTANT_ADJ_NOT_FINAL" "$safety" "-m200000"
add "mutant ADJ_NO_DUP_CHECK"         "fail:assertion violated ( !(replay)" "$rules -DMUTANT_ADJ_NO_DUP_CHECK" "$safety" "-m200000"
add "mutant ADJ_NO_TOTAL"             "fail:assertion violated (total<=2)" "$rules -DMUTANT_ADJ_NO_TOTAL" "$safety" "-m200000"
add "mutant EXPIRE_WITHOUT_CLOSE"     "fail:assertion violated  !(((pay[0]==3)&&(gw[0]==2)))" "$close -DMUTANT_EXPIRE_WITHOUT_CLOSE" "$safety" "-m100000"
add "mutant ADJ_NO_FENCE"             "fail:assertion violated (tok[o]==mine[o])" "$faults -DMUTANT_ADJ_NO_FENCE" "$safety" "-m200000"
wait

bad=0
for n in "${names[@]}"; do
  cat "$work/$n.line"
  if [[ ! -e "$work/$n.ok" ]]; then
    bad=$((bad + 1))
    [[ -e "$work/$n.pan.out" ]] && sed 's/^/      | /' "$work/$n.pan.out" | tail -n 25
  fi
done
echo "model check: $((${#names[@]} - bad)) as expected, $bad unexpected ($((SECONDS - start)) s, spin $(spin -V | sed -n 's/^Spin Version \([^ ]*\).*/\1/p'))"
[[ $bad -eq 0 ]]

#!/usr/bin/env bash
# Model-checks model/protocol.pml with Spin (see model/README.md).
#
#   bash model/check.sh            everything (a few minutes on 2 cores)
#   MODEL_JOBS=4 bash model/check.sh
#   MODEL_KEEP=1 bash model/check.sh   keep the work directory (pan, trails)
#   MODEL_SHORTEST=1 bash model/check.sh   the shortest counterexample of each mutant (breadth-first; slower)
#
# 1. Exhaustive safety runs, one per configuration (faults, migration,
#    serving), with the assertions of all six properties enabled: each must
#    end "errors: 0" with the search complete.
# 2. Liveness runs (ltl "live", weak fairness: gcc -DNFAIR=3, ./pan -a -f),
#    one per configuration: "errors: 0".
# 3. Every mutant, with only the property it should break enabled: a
#    counterexample (errors >= 1, an assertion violation — or an acceptance
#    cycle for liveness — and a .trail file), printed as a one-line story.
# 4. Equivalent mutants (expected: no counterexample) and findings in the
#    current SQL (expected: a counterexample) are reported; they do not change
#    the exit status.
# Exits 0 only if every property is verified and every mutant is caught.
# Everything runs in a temporary directory; nothing is written to the repo.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODEL="$HERE/protocol.pml"
JOBS="${MODEL_JOBS:-2}"
MEMLIM="${MODEL_MEMLIM_MB:-6000}"

# ---- one run (called back through xargs): --one KIND NAME PROP CFG FLAGS… ----
run_one() {
  local kind="$1" name="$2" prop="$3" cfg="$4"; shift 4
  local flags=("$@")
  local dir="$WORK/$name"
  mkdir -p "$dir" && cp "$MODEL" "$dir/protocol.pml" && cd "$dir" || return 1
  local defs=("-DCFG_${cfg^^}")
  if [ "$prop" = ALL ]; then defs+=(-DALL_PROPS)
  elif [ "$prop" = LIVE ]; then defs+=(-DALL_PROPS -DLIVENESS)
  elif [[ "$prop" == P[0-9] ]]; then defs+=("-DPROP_${prop#P}")
  fi
  defs+=("${flags[@]}")
  local cc=(-O2 -w "-DMEMLIM=$MEMLIM") pan=(-m100000 -w24)
  if [ "$prop" = LIVE ]; then
    cc+=(-DNFAIR=3); pan+=(-a -f -N live)           # liveness: nested DFS, weak fairness
  elif [ "$kind" = mutant ] || [ "$kind" = finding ]; then
    # Compiled without optimisation: a mutant's search is short or bound by
    # memory, and gcc -O2 of pan.c costs about 2.5 s of CPU per run (22 runs)
    # where -O0 costs 0.7 s. Depth-first by default: a counterexample within
    # a second (the migration mutants took 20-30 s breadth-first, exploring
    # 12.8 M states); MODEL_SHORTEST=1 searches breadth-first for the
    # shortest counterexample, the trails model/README.md quotes. Either
    # search is exhaustive, so a mutant is caught by both or by neither.
    if [ "${MODEL_SHORTEST:-0}" = 1 ]; then
      cc=(-O0 "${cc[@]:1}" -DSAFETY -DBFS); pan=(-w24)
    else
      cc=(-O0 "${cc[@]:1}" -DSAFETY -DCOLLAPSE)
    fi
  else
    cc+=(-DSAFETY -DCOLLAPSE)                        # exhaustive DFS, compressed state vectors
  fi
  local t0 t1
  t0=$(date +%s.%N)
  {
    echo "defs: ${defs[*]}"
    spin -a "${defs[@]}" protocol.pml >spin.out 2>&1 || { echo "status: spin-failed"; cat spin.out; } 
    [ -f pan.c ] && { gcc "${cc[@]}" -o pan pan.c >gcc.out 2>&1 || { echo "status: gcc-failed"; cat gcc.out; }; }
    [ -x pan ] && ./pan "${pan[@]}" >pan.out 2>&1
    t1=$(date +%s.%N)
    echo "seconds: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
    if [ -f protocol.pml.trail ]; then
      echo "trail: yes"
      # The counterexample as a story: the EV events of its replay.
      # One replay gives both.
      spin -t "${defs[@]}" protocol.pml >replay.txt 2>/dev/null
      sed -n 's/^[[:space:]]*EV //p' replay.txt >story.txt
      echo "trail_steps: $(sed -n 's/^spin: trail ends after \([0-9]*\) steps.*/\1/p' replay.txt)"
    fi
  } >result.txt 2>&1
}

if [ "${1:-}" = --one ]; then
  shift
  WORK="$1"; shift
  run_one "$@"
  exit 0
fi

need() {
  command -v "$1" >/dev/null 2>&1 || {
    echo "model/check.sh: '$1' is not installed — $2" >&2
    exit 2
  }
}
need spin "install Spin 6.5: apt-get install -y spin (Debian package 'spin')"
need gcc "install a C compiler: apt-get install -y gcc"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/model-check.XXXXXX")"
if [ -n "${MODEL_KEEP:-}" ]; then
  trap 'echo "work directory kept: $WORK"' EXIT
else
  trap 'rm -rf "$WORK"' EXIT
fi
START=$(date +%s)

# ---- the runs: KIND NAME PROP CONFIG [FLAGS…] (longest first) ----------------
JOBLIST="$WORK/jobs.txt"
cat >"$JOBLIST" <<'EOF'
liveness live-faults LIVE faults
liveness live-migration LIVE migration
safety safety-migration ALL migration
safety safety-faults ALL faults
liveness live-serving LIVE serving
safety safety-serving ALL serving
equivalent MUTANT_BATCH_NO_FENCE_CHECK ALL faults -DMUTANT_BATCH_NO_FENCE_CHECK
mutant MUTANT_FENCE_NO_LOCK P1 serving -DMUTANT_FENCE_NO_LOCK
mutant MUTANT_QUIESCE_NO_LOCK P1 serving -DMUTANT_QUIESCE_NO_LOCK
mutant MUTANT_QUIESCING_NO_GRANT P1 serving -DMUTANT_QUIESCING_NO_GRANT
mutant MUTANT_FENCE_NO_DRAIN P1 serving -DMUTANT_FENCE_NO_DRAIN
mutant MUTANT_LIST_BUCKET P2 serving -DMUTANT_LIST_BUCKET
mutant MUTANT_DELETE_BY_PREFIX P2 serving -DMUTANT_DELETE_BY_PREFIX
mutant MUTANT_PURGE_NO_WHERE P2 serving -DMUTANT_PURGE_NO_WHERE
mutant MUTANT_BINDINGS_NO_STAMP_CHECK P3 serving -DMUTANT_BINDINGS_NO_STAMP_CHECK
mutant MUTANT_NO_CATALOG_CHECK P3 migration -DMUTANT_NO_CATALOG_CHECK
mutant MUTANT_NO_SCHEMA_LOCK P3 migration -DMUTANT_NO_SCHEMA_LOCK
mutant MUTANT_FINAL_NO_EMPTY_CHECK P3 migration -DMUTANT_FINAL_NO_EMPTY_CHECK
mutant MUTANT_ABORT_AT_DRAINED P4 serving -DMUTANT_ABORT_AT_DRAINED
mutant MUTANT_QUIESCE_NO_REVERIFY P4 serving -DMUTANT_QUIESCE_NO_REVERIFY
mutant MUTANT_STAMP_NO_TOKEN P5 faults -DMUTANT_STAMP_NO_TOKEN
mutant MUTANT_BATCH_NO_LEASE_CHECK P5 faults -DMUTANT_BATCH_NO_LEASE_CHECK
mutant MUTANT_QUIESCE_RECAPTURE P6 serving -DMUTANT_QUIESCE_RECAPTURE
mutant MUTANT_DRAINED_WITHOUT_FREEZE P6 serving -DMUTANT_DRAINED_WITHOUT_FREEZE
mutant MUTANT_CLAIM_NEEDS_RELEASE LIVE serving -DMUTANT_CLAIM_NEEDS_RELEASE
finding FINDING_RC_STAMP P5 faults -DFINDING_RC_STAMP
finding FINDING_RC_STAMP_BLOCK X faults -DFINDING_RC_STAMP -DCHECK_SPURIOUS_BLOCK
finding FINDING_LEASE_TIMING P1 serving -DFINDING_LEASE_TIMING
EOF

echo "== $(spin -V | head -1); model $MODEL"
echo "== $(wc -l <"$JOBLIST") runs, $JOBS at a time, in $WORK"
# shellcheck disable=SC2016
xargs -P "$JOBS" -L 1 bash -c 'exec bash "$0" --one "$1" "${@:2}"' "$HERE/check.sh" "$WORK" <"$JOBLIST"

# ---- the report ---------------------------------------------------------------
field() { sed -n "s/^$2: //p" "$WORK/$1/result.txt" 2>/dev/null | head -1; }
panline() { grep -m1 -E "$2" "$WORK/$1/pan.out" 2>/dev/null; }
stats() {
  local n="$1" vec depth errs states
  vec=$(panline "$n" 'State-vector' | sed -n 's/.*State-vector \([0-9]*\) byte.*/\1/p')
  depth=$(panline "$n" 'depth reached' | sed -n 's/.*depth reached \([0-9]*\).*/\1/p')
  errs=$(panline "$n" 'errors:' | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
  states=$(panline "$n" 'states, stored' | awk '{print $1}')
  printf 'state-vector %s byte, depth reached %s, states stored %s, errors: %s, %s s' \
    "${vec:-?}" "${depth:-?}" "${states:-?}" "${errs:-?}" "$(field "$n" seconds)"
}
errors_of() { panline "$1" 'errors:' | sed -n 's/.*errors: \([0-9]*\).*/\1/p'; }
complete() {  # errors: 0 and the whole state space was searched
  local n="$1"
  [ "$(errors_of "$n")" = 0 ] || return 1
  grep -q 'Search not completed' "$WORK/$n/pan.out" && return 1
  grep -qE 'max search depth too small|out of memory|MEMLIM' "$WORK/$n/pan.out" && return 1
  return 0
}
story() {  # the last events of the counterexample, on one line
  local f="$WORK/$1/story.txt"
  [ -s "$f" ] || { echo "(no events)"; return; }
  local n; n=$(wc -l <"$f")
  { [ "$n" -gt 24 ] && echo "…"; tail -n 24 "$f"; } | paste -sd ';' | sed 's/;/; /g'
}
caught() {  # a counterexample of the expected kind, with a trail
  local n="$1" kind="$2" e
  e=$(errors_of "$n")
  [ -n "$e" ] && [ "$e" -ge 1 ] && [ "$(field "$n" trail)" = yes ] || return 1
  if [ "$kind" = LIVE ]; then grep -q 'acceptance cycle' "$WORK/$n/pan.out"
  else grep -q 'assertion violated' "$WORK/$n/pan.out"; fi
}
violation() {
  grep -m1 -oE 'assertion violated.*\(at depth [0-9]+\)|acceptance cycle.*\(at depth [0-9]+\)' "$WORK/$1/pan.out" 2>/dev/null | sed 's/  */ /g'
}
broken() { grep -qE '^status: (spin|gcc)-failed' "$WORK/$1/result.txt" 2>/dev/null || [ ! -f "$WORK/$1/pan.out" ]; }

fail=0
echo
echo "-- exhaustive safety runs (assertions of P1-P6 and the invariant monitor), one per configuration"
for c in faults migration serving; do
  n=safety-$c
  if broken "$n"; then echo "config $c: BROKEN"; sed -n '1,20p' "$WORK/$n/result.txt"; fail=1; continue; fi
  printf 'config %-9s %s%s\n' "$c" "$(stats "$n")" "$(complete "$n" || echo '  <-- NOT VERIFIED')"
  complete "$n" || fail=1
done
echo "-- liveness (ltl live, weak fairness: -DNFAIR=3, ./pan -a -f), one per configuration"
for c in faults migration serving; do
  n=live-$c
  if broken "$n"; then echo "liveness $c: BROKEN"; sed -n '1,20p' "$WORK/$n/result.txt"; fail=1; continue; fi
  printf 'liveness %-9s %s%s\n' "$c" "$(stats "$n")" "$(complete "$n" || echo '  <-- NOT VERIFIED')"
  complete "$n" || fail=1
done

echo "-- properties"
all_safe=yes
for c in faults migration serving; do complete "safety-$c" || all_safe=no; done
all_live=yes
for c in faults migration serving; do complete "live-$c" || all_live=no; done
while IFS='|' read -r p text; do
  if [ "$all_safe" = yes ]; then echo "PROPERTY $p $text: VERIFIED (faults, migration, serving: errors: 0)"
  else echo "PROPERTY $p $text: NOT VERIFIED"; fi
done <<'EOF'
P1|fence (every committed write admitted; none after the fence; no new object version after the fence)
P2|scope (only frozen-manifest versions deleted; bystander untouched)
P3|tombstone (only after every chunk stamped and every table empty)
P4|abort (never after an irreversible effect; the community is given back)
P5|lease (a lost lease records no further progress; in-flight delete allowed)
P6|stages (one step forward, exit condition held, results never re-made)
EOF
if [ "$all_live" = yes ]; then echo "PROPERTY LIVE liveness (retention_pending, aborted or a durable block with a reason): VERIFIED (faults, migration, serving: errors: 0)"
else echo "PROPERTY LIVE liveness: NOT VERIFIED"; fi

echo "-- mutants (each must produce a counterexample of the property it breaks)"
mutants=0 caught_n=0
while read -r kind name prop cfg _; do
  [ "$kind" = mutant ] || continue
  mutants=$((mutants + 1))
  if caught "$name" "$prop"; then
    caught_n=$((caught_n + 1))
    echo "MUTANT $name breaks $prop ($cfg): CAUGHT - errors: $(errors_of "$name"), trail of $(field "$name" trail_steps) steps, $(field "$name" seconds) s; $(violation "$name")"
    echo "    trail: $(story "$name")"
  else
    fail=1
    echo "MUTANT $name breaks $prop ($cfg): NOT CAUGHT - $(stats "$name")"
  fi
done <"$JOBLIST"

echo "-- equivalent mutants (expected: no counterexample; README explains why)"
while read -r kind name prop cfg _; do
  [ "$kind" = equivalent ] || continue
  if complete "$name"; then echo "EQUIVALENT $name ($cfg): no counterexample, as expected - $(stats "$name")"
  else echo "EQUIVALENT $name ($cfg): UNEXPECTED - $(stats "$name"); $(violation "$name")"; echo "    trail: $(story "$name")"; fi
done <"$JOBLIST"

echo "-- findings in the current SQL (expected: a counterexample; README explains)"
while read -r kind name prop cfg _; do
  [ "$kind" = finding ] || continue
  if caught "$name" "$prop"; then
    echo "FINDING $name: REPRODUCED - errors: $(errors_of "$name"), trail of $(field "$name" trail_steps) steps; $(violation "$name")"
    echo "    trail: $(story "$name")"
  else echo "FINDING $name: not reproduced - $(stats "$name")"; fi
done <"$JOBLIST"

echo
echo "== summary: safety $([ "$all_safe" = yes ] && echo verified || echo FAILED), liveness $([ "$all_live" = yes ] && echo verified || echo FAILED), mutants caught $caught_n/$mutants, total $(( $(date +%s) - START )) s"
if [ "$fail" -ne 0 ]; then echo "== RESULT: FAIL"; exit 1; fi
echo "== RESULT: OK"

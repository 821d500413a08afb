#!/usr/bin/env bash
# Tests for concbench-c: every variant at the spec's test sizes (plus countdown q7), checked against the
# reference tables of spawn-scaling.md, countdown.md and fannkuch.md (plus fannkuch n = 10), and the exit-2 error cases of the protocol.
# The last line is "N passed, N failed"; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")"
BIN=./build/concbench-c
pass=0
fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run_check <label> <expected result> <expected metrics line or ""> <args...>
# Checks: exit 0, hello first, every iteration line carries the expected result, the metrics line.
run_check() {
    local label=$1 want=$2 metrics=$3
    shift 3
    local out rc
    out=$("$BIN" "$@" 2>/tmp/concbench-c-test.$$)
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$label: exit $rc: $(head -c 300 /tmp/concbench-c-test.$$)"
        return
    fi
    local first
    first=$(printf '%s\n' "$out" | head -n 1)
    case $first in
        '{"hello": {"protocol": 1, "language": "c", '*) ;;
        *) bad "$label: first line is not hello: $first"; return ;;
    esac
    local iters got
    iters=$(printf '%s\n' "$out" | grep -c '^{"iteration": ')
    if [ "$iters" -lt 1 ]; then
        bad "$label: no iteration lines"
        return
    fi
    got=$(printf '%s\n' "$out" | grep '^{"iteration": ' | grep -vc "\"ns\": [0-9]*, \"result\": \"$want\"}\$")
    if [ "$got" -ne 0 ]; then
        bad "$label: want '$want', got: $(printf '%s\n' "$out" | grep '^{"iteration": ' | head -n 3 | tr '\n' ' ')"
        return
    fi
    if [ -n "$metrics" ] && ! printf '%s\n' "$out" | grep -qxF "$metrics"; then
        bad "$label: want metrics '$metrics', got: $(printf '%s\n' "$out" | grep metrics)"
        return
    fi
    local others
    others=$(printf '%s\n' "$out" | grep -vc -e '^{"hello": ' -e '^{"iteration": ' -e '^{"metrics": ')
    if [ "$others" -ne 0 ]; then
        bad "$label: stray lines on stdout"
        return
    fi
    ok
}

# expect_usage_error <label> <args...>: exit 2, nothing on stdout, exactly one line on stderr.
expect_usage_error() {
    local label=$1
    shift
    local out rc lines
    out=$("$BIN" "$@" 2>/tmp/concbench-c-test.$$)
    rc=$?
    lines=$(wc -l < /tmp/concbench-c-test.$$)
    if [ $rc -ne 2 ] || [ -n "$out" ] || [ "$lines" -ne 1 ]; then
        bad "$label: want exit 2, empty stdout, one stderr line; got exit $rc, stdout '$out', $lines stderr lines"
        return
    fi
    ok
}

if [ ! -x "$BIN" ]; then
    echo "missing $BIN: run make first"
    echo "0 passed, 1 failed"
    exit 1
fi

# ---- spawn-scaling (test sizes)
declare -A SS=([64]="tasks=64 sum=30816" [2048]="tasks=2048 sum=1024384")
for n in 64 2048; do
    run_check "spawn-scaling libdispatch/group $n" "${SS[$n]}" "" \
        spawn-scaling --model libdispatch --param "$n" --iterations 3 --workers 2
    run_check "spawn-scaling libdispatch (shape named) $n" "${SS[$n]}" "" \
        spawn-scaling --model libdispatch --param "$n" --iterations 1 --option shape=group
    for w in 1 2; do
        run_check "spawn-scaling pthreads/futures $n workers=$w" "${SS[$n]}" "" \
            spawn-scaling --model pthreads --param "$n" --iterations 3 --workers "$w" --option shape=futures
    done
    run_check "spawn-scaling seq/loop $n" "${SS[$n]}" "" \
        spawn-scaling --model seq --param "$n" --iterations 2 --option shape=loop
done

# ---- countdown (test instances with window 1 and 2, then q7)
declare -A CD=(
    [t4a]="solutions=4 checksum=4409322729027695699"
    [t4b]="solutions=166 checksum=4409275845280706500"
    [t5]="solutions=5 checksum=1711197073787650478"
    [t6a]="solutions=2 checksum=3051973255031385959"
    [t6b]="solutions=130 checksum=3005263727367393819"
    [q7]="solutions=140 checksum=8199592220404143260"
)
declare -A BATCHES=([t4a]=0 [t4b]=0 [t5]=2 [t6a]=178 [t6b]=174 [q7]=5723)
declare -A CALLS=([t4a]=836 [t4b]=1041 [t5]=13193 [t6a]=217948 [t6b]=222166 [q7]=7096870)

for p in t4a t4b t5 t6a t6b; do
    for w in 1 2; do
        split_metrics="{\"metrics\": {\"batches\": ${BATCHES[$p]}, \"calls\": ${CALLS[$p]}}}"
        run_check "countdown libdispatch/dispatch $p window=$w" "${CD[$p]}" "$split_metrics" \
            countdown --model libdispatch --param "$p" --iterations 2 --option "window=$w"
        run_check "countdown pthreads/threads $p window=$w" "${CD[$p]}" "$split_metrics" \
            countdown --model pthreads --param "$p" --iterations 2 --option shape=threads --option "window=$w"
        run_check "countdown seq/plain $p window=$w" "${CD[$p]}" "{\"metrics\": {\"calls\": ${CALLS[$p]}}}" \
            countdown --model seq --param "$p" --iterations 1 --option "window=$w"
    done
done
# default window (= --workers)
run_check "countdown libdispatch t6a default window" "${CD[t6a]}" "" \
    countdown --model libdispatch --param t6a --iterations 1 --workers 2
# the same instance written out
run_check "countdown seq 952:25-50-75-100-3-6" "${CD[t6a]}" "" \
    countdown --model seq --param 952:25-50-75-100-3-6 --iterations 1
q7_split="{\"metrics\": {\"batches\": 5723, \"calls\": 7096870}}"
run_check "countdown libdispatch q7" "${CD[q7]}" "$q7_split" \
    countdown --model libdispatch --param q7 --iterations 1 --option window=2
run_check "countdown pthreads q7" "${CD[q7]}" "$q7_split" \
    countdown --model pthreads --param q7 --iterations 1 --option window=2
run_check "countdown seq q7" "${CD[q7]}" "{\"metrics\": {\"calls\": 7096870}}" \
    countdown --model seq --param q7 --iterations 1

# ---- fannkuch (test sizes, then n = 10 once; K = 150 unless given)
declare -A FK=(
    [7]="maxflips=16 checksum=228"
    [8]="maxflips=22 checksum=1616"
    [9]="maxflips=30 checksum=8629"
    [10]="maxflips=38 checksum=73196"
)
for n in 7 8 9; do
    for w in 1 2 3; do
        run_check "fannkuch pthreads/counter $n workers=$w" "${FK[$n]}" "" \
            fannkuch --model pthreads --param "$n" --iterations 2 --workers "$w" --option shape=counter
    done
    run_check "fannkuch libdispatch/apply $n" "${FK[$n]}" "" \
        fannkuch --model libdispatch --param "$n" --iterations 2 --option shape=apply
    run_check "fannkuch libdispatch/group $n" "${FK[$n]}" "" \
        fannkuch --model libdispatch --param "$n" --iterations 2 --option shape=group
    run_check "fannkuch seq/loop $n" "${FK[$n]}" "" \
        fannkuch --model seq --param "$n" --iterations 2 --option shape=loop
    # other chunk counts: the Erlang-style K = n, one index per task, more chunks than indexes
    run_check "fannkuch pthreads chunks=$n" "${FK[$n]}" "" \
        fannkuch --model pthreads --param "$n" --iterations 1 --workers 2 --option "chunks=$n"
    run_check "fannkuch libdispatch chunks=1" "${FK[$n]}" "" \
        fannkuch --model libdispatch --param "$n" --iterations 1 --option chunks=1
done
run_check "fannkuch seq chunks=n!" "${FK[7]}" "" fannkuch --model seq --param 7 --iterations 1 --option chunks=5040
run_check "fannkuch libdispatch chunks>n!" "${FK[7]}" "" \
    fannkuch --model libdispatch --param 7 --iterations 1 --option chunks=9999
run_check "fannkuch pthreads chunks=1000" "${FK[9]}" "" \
    fannkuch --model pthreads --param 9 --iterations 1 --workers 4 --option chunks=1000
run_check "fannkuch small n=3" "maxflips=2 checksum=2" "" fannkuch --model pthreads --param 3 --iterations 1 --workers 2
run_check "fannkuch small n=5" "maxflips=7 checksum=11" "" fannkuch --model seq --param 5 --iterations 1
run_check "fannkuch pthreads/counter 10" "${FK[10]}" "" \
    fannkuch --model pthreads --param 10 --iterations 1 --workers 2
run_check "fannkuch libdispatch/apply 10" "${FK[10]}" "" fannkuch --model libdispatch --param 10 --iterations 1
run_check "fannkuch libdispatch/group 10" "${FK[10]}" "" \
    fannkuch --model libdispatch --param 10 --iterations 1 --option shape=group
run_check "fannkuch seq/loop 10" "${FK[10]}" "" fannkuch --model seq --param 10 --iterations 1

# ---- usage errors: exit 2, one stderr line, nothing on stdout
expect_usage_error "no arguments"
expect_usage_error "unknown benchmark" fib --model seq --param 10 --iterations 1
expect_usage_error "unknown model" spawn-scaling --model gcd --param 64 --iterations 1
expect_usage_error "unknown model (countdown)" countdown --model sc --param t4a --iterations 1
expect_usage_error "unknown shape" spawn-scaling --model libdispatch --param 64 --iterations 1 --option shape=loose
expect_usage_error "shape of another model" countdown --model seq --param t4a --iterations 1 --option shape=dispatch
expect_usage_error "unknown option key" countdown --model libdispatch --param t4a --iterations 1 --option cutoff=3
expect_usage_error "countdown option on spawn-scaling" spawn-scaling --model seq --param 64 --iterations 1 --option window=2
expect_usage_error "malformed option" countdown --model seq --param t4a --iterations 1 --option window
expect_usage_error "malformed window" countdown --model libdispatch --param t4a --iterations 1 --option window=two
expect_usage_error "zero window" countdown --model pthreads --param t4a --iterations 1 --option window=0
expect_usage_error "malformed N" spawn-scaling --model seq --param 12a --iterations 1
expect_usage_error "negative N" spawn-scaling --model seq --param -5 --iterations 1
expect_usage_error "unknown instance" countdown --model seq --param q9 --iterations 1
expect_usage_error "instance without numbers" countdown --model seq --param 24: --iterations 1
expect_usage_error "instance with empty number" countdown --model seq --param 24:1--2 --iterations 1
expect_usage_error "instance with zero" countdown --model seq --param 24:0-2-3 --iterations 1
expect_usage_error "instance with bad goal" countdown --model seq --param x:1-2-3 --iterations 1
expect_usage_error "missing --model" spawn-scaling --param 64 --iterations 1
expect_usage_error "missing --param" spawn-scaling --model seq --iterations 1
expect_usage_error "missing --iterations" spawn-scaling --model seq --param 64
expect_usage_error "flag without value" spawn-scaling --model seq --param 64 --iterations
expect_usage_error "zero iterations" spawn-scaling --model seq --param 64 --iterations 0
expect_usage_error "malformed workers" spawn-scaling --model pthreads --param 64 --iterations 1 --workers 0
expect_usage_error "fannkuch unknown model" fannkuch --model sc --param 7 --iterations 1
expect_usage_error "fannkuch unknown shape" fannkuch --model libdispatch --param 7 --iterations 1 --option shape=loop
expect_usage_error "fannkuch shape of another model" fannkuch --model pthreads --param 7 --iterations 1 --option shape=apply
expect_usage_error "fannkuch unknown option" fannkuch --model seq --param 7 --iterations 1 --option window=2
expect_usage_error "fannkuch zero chunks" fannkuch --model seq --param 7 --iterations 1 --option chunks=0
expect_usage_error "fannkuch malformed chunks" fannkuch --model seq --param 7 --iterations 1 --option chunks=1e3
expect_usage_error "fannkuch n = 0" fannkuch --model seq --param 0 --iterations 1
expect_usage_error "fannkuch n too large" fannkuch --model seq --param 17 --iterations 1
expect_usage_error "unknown flag" spawn-scaling --model seq --param 64 --iterations 1 --verbose

rm -f /tmp/concbench-c-test.$$
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

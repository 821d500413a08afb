#!/usr/bin/env bash
# Tests for concbench-erlang: every shape at the test sizes of big.toml, chameneos.toml and
# fannkuch.toml (plus a few extra points), checked against the specs' reference strings; the
# chameneos metrics (self_meetings = 0, colour_sum_mod3 from chameneos.md's table); and the exit-2
# error cases of the protocol. The last line is "N passed, N failed"; non-zero exit on any failure.
set -u
cd "$(dirname "$0")"
DIR=$(pwd)
CORES=${CORES:-2}
run_erl() { erl +S "$CORES:$CORES" -noshell -noinput -pa "$DIR/ebin" -run concbench main -extra "$@"; }
TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
pass=0
fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run_check <label> <expected result> <metric fragments, space-separated, or ""> <args...>
# A fragment is '"name":_SP_value' (that exact value) or '"name":' (present, any value).
# Checks: exit 0, hello first, K iteration lines numbered 0.. carrying the result, each metric
# fragment (e.g. "self_meetings": 0) in the metrics line, nothing else on stdout.
run_check() {
    local label=$1 want=$2 metrics=$3
    shift 3
    local out rc
    out=$(run_erl "$@" 2>"$TMP")
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$label: exit $rc: $(head -c 300 "$TMP")"
        return
    fi
    local first
    first=$(printf '%s\n' "$out" | head -n 1)
    case $first in
        '{"hello": {"protocol": 1, "language": "erlang", "runtime": "Erlang/OTP '*'"model": "processes"}}') ;;
        *) bad "$label: first line is not hello: $first"; return ;;
    esac
    local k=0 i
    local args=("$@") iters=""
    for ((i = 0; i < ${#args[@]}; i++)); do
        [ "${args[$i]}" = "--iterations" ] && iters=${args[$((i + 1))]}
    done
    local lines
    lines=$(printf '%s\n' "$out" | grep -c '^{"iteration": ')
    if [ "$lines" != "$iters" ]; then
        bad "$label: $lines iteration lines, want $iters"
        return
    fi
    for ((k = 0; k < iters; k++)); do
        if ! printf '%s\n' "$out" | grep -qE "^\{\"iteration\": $k, \"ns\": [0-9]+, \"result\": \"$want\"\}\$"; then
            bad "$label: iteration $k: want '$want', got: $(printf '%s\n' "$out" | grep '^{"iteration": ' | head -n 3 | tr '\n' ' ')"
            return
        fi
    done
    local m mline
    mline=$(printf '%s\n' "$out" | grep '^{"metrics": ' | tail -n 1)
    for m in $metrics; do
        m=${m//_SP_/ }
        case $m in
            *:) case $mline in *"$m "*) continue ;; esac ;;      # a name only: must be present
            *) case $mline in *"$m,"* | *"$m}"*) continue ;; esac ;;
        esac
        bad "$label: metrics lack '$m': $mline"
        return
    done
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
    out=$(run_erl "$@" 2>"$TMP")
    rc=$?
    lines=$(wc -l < "$TMP")
    if [ $rc -ne 2 ] || [ -n "$out" ] || [ "$lines" -ne 1 ]; then
        bad "$label: want exit 2, empty stdout, one stderr line; got exit $rc, stdout '$out', $lines stderr lines: $(head -c 300 "$TMP")"
        return
    fi
    ok
}

if [ ! -f ebin/concbench.beam ]; then
    echo "missing ebin/concbench.beam: run make first"
    echo "0 passed, 1 failed"
    exit 1
fi

M='"metrics":'
# metric fragment helper: "name": value (spaces inside a fragment are written _SP_)
mf() { printf '"%s":_SP_%s' "$1" "$2"; }

# ---- big (test sizes: (20, 200, 1000) and (50, 100, 20)), both shapes
for shape in processes tuple; do
    run_check "big $shape 20/200/1000" "messages=8000 checksum=42660" \
        "$(mf min_recv 172) $(mf max_recv 225)" \
        big --model processes --param 20 --iterations 3 --workers 2 --option shape=$shape --option pings=200 --option hood=1000
    run_check "big $shape 50/100/20" "messages=10000 checksum=128266" \
        "$(mf min_recv 81) $(mf max_recv 128)" \
        big --model processes --param 50 --iterations 3 --workers 2 --option shape=$shape --option pings=100 --option hood=20
done
run_check "big default shape, hood default" "messages=8000 checksum=42660" "" \
    big --model processes --param 20 --iterations 1 --option pings=200

# ---- chameneos encore (test sizes C = 3, 10, 70 with M = 10000, plus C = 2, 7 and 800)
declare -A COL=([2]=1 [3]=0 [7]=1 [10]=1 [70]=1 [800]=2)
for c in 3 10 70 2 7 800; do
    run_check "chameneos encore C=$c" "meetings=10000 creature_meetings=20000" \
        "$(mf self_meetings 0) $(mf colour_sum_mod3 "${COL[$c]}") \"fairness_std\": \"cv\": \"min_meetings\": \"max_meetings\":" \
        chameneos --model processes --param "$c" --iterations 3 --workers 2 --option shape=message --option variant=encore --option meetings=10000
done
run_check "chameneos encore C=10 M=1" "meetings=1 creature_meetings=2" "$(mf self_meetings 0)" \
    chameneos --model processes --param 10 --iterations 2 --option shape=message --option meetings=1
# ---- chameneos redux (n = 10000): game A then game B
run_check "chameneos redux n=10000" \
    "meetings3=10000 creature_meetings3=20000 meetings10=10000 creature_meetings10=20000" \
    "$(mf self_meetings 0) $(mf colour_sum_mod3_3 0) $(mf colour_sum_mod3_10 1) \"min_meetings3\": \"max_meetings10\": \"fairness_std10\":" \
    chameneos --model processes --param 10000 --iterations 2 --option shape=message --option variant=redux

# ---- fannkuch (test sizes n = 7, 8, 9; plus 3..6), both shapes, K = 150 and the Erlang split K = n
declare -A FK=([3]="maxflips=2 checksum=2" [4]="maxflips=4 checksum=4" [5]="maxflips=7 checksum=11"
               [6]="maxflips=10 checksum=49" [7]="maxflips=16 checksum=228" [8]="maxflips=22 checksum=1616"
               [9]="maxflips=30 checksum=8629")
for n in 7 8 9; do
    run_check "fannkuch processes n=$n" "${FK[$n]}" "" \
        fannkuch --model processes --param $n --iterations 3 --workers 2 --option shape=processes
    run_check "fannkuch pool n=$n" "${FK[$n]}" "" \
        fannkuch --model processes --param $n --iterations 3 --workers 2 --option shape=pool
    run_check "fannkuch processes n=$n chunks=n" "${FK[$n]}" "" \
        fannkuch --model processes --param $n --iterations 1 --option shape=processes --option chunks=$n
done
for n in 3 4 5 6; do
    run_check "fannkuch processes n=$n" "${FK[$n]}" "" \
        fannkuch --model processes --param $n --iterations 1 --option shape=processes
    run_check "fannkuch pool n=$n workers=3 chunks=7" "${FK[$n]}" "" \
        fannkuch --model processes --param $n --iterations 1 --workers 3 --option shape=pool --option chunks=7
done
run_check "fannkuch pool n=8 workers=1" "${FK[8]}" "" \
    fannkuch --model processes --param 8 --iterations 1 --workers 1 --option shape=pool
run_check "fannkuch processes n=7 chunks=5040 (one index per task)" "${FK[7]}" "" \
    fannkuch --model processes --param 7 --iterations 1 --option chunks=5040

# ---- usage errors: exit 2, one stderr line, nothing on stdout
expect_usage_error "no arguments"
expect_usage_error "unknown benchmark" fib --model processes --param 10 --iterations 1
expect_usage_error "unknown model" big --model actors --param 20 --iterations 1
expect_usage_error "unknown shape" big --model processes --param 20 --iterations 1 --option shape=stream
expect_usage_error "shape of another benchmark" fannkuch --model processes --param 7 --iterations 1 --option shape=message
expect_usage_error "rendezvous shape" chameneos --model processes --param 3 --iterations 1 --option shape=rendezvous
expect_usage_error "unknown option key" big --model processes --param 20 --iterations 1 --option cutoff=3
expect_usage_error "option of another benchmark" fannkuch --model processes --param 7 --iterations 1 --option pings=3
expect_usage_error "malformed option" big --model processes --param 20 --iterations 1 --option pings
expect_usage_error "malformed pings" big --model processes --param 20 --iterations 1 --option pings=many
expect_usage_error "zero hood" big --model processes --param 20 --iterations 1 --option hood=0
expect_usage_error "unknown variant" chameneos --model processes --param 3 --iterations 1 --option variant=classic
expect_usage_error "one creature" chameneos --model processes --param 1 --iterations 1 --option meetings=10
expect_usage_error "malformed meetings" chameneos --model processes --param 3 --iterations 1 --option meetings=1e4
expect_usage_error "zero chunks" fannkuch --model processes --param 7 --iterations 1 --option chunks=0
expect_usage_error "malformed n" fannkuch --model processes --param 7x --iterations 1
expect_usage_error "negative N" big --model processes --param -5 --iterations 1
expect_usage_error "missing --model" big --param 20 --iterations 1
expect_usage_error "missing --param" big --model processes --iterations 1
expect_usage_error "missing --iterations" big --model processes --param 20
expect_usage_error "flag without value" big --model processes --param 20 --iterations
expect_usage_error "zero iterations" big --model processes --param 20 --iterations 0
expect_usage_error "malformed workers" fannkuch --model processes --param 7 --iterations 1 --workers 0
expect_usage_error "unknown flag" big --model processes --param 20 --iterations 1 --verbose

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# Tests for concbench-cpp: every variant and shape at the test sizes of benchmarks/big.toml,
# chameneos.toml and fannkuch.toml (plus a few extra points), checked against the references of
# big.md, chameneos.md and fannkuch.md; the chameneos metrics (self_meetings = 0, colour_sum_mod3);
# and the exit-2 cases of the protocol. The last line is "N passed, N failed"; the exit status is
# non-zero on any failure.
set -u
cd "$(dirname "$0")"
BIN=./build/concbench-cpp
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run_check <label> <expected result> <metric patterns, space-separated, or ""> <args...>
# Checks: exit 0, hello first, every iteration line carries the expected result, each metric
# pattern ("name=value") appears in the metrics line, and nothing else is on stdout.
run_check() {
    local label=$1 want=$2 metrics=$3
    shift 3
    local out rc
    out=$(timeout 120 "$BIN" "$@" 2>"$TMP/err")
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$label: exit $rc: $(head -c 300 "$TMP/err")"
        return
    fi
    local first
    first=$(printf '%s\n' "$out" | head -n 1)
    case $first in
        '{"hello": {"protocol": 1, "language": "cpp", '*) ;;
        *) bad "$label: first line is not hello: $first"; return ;;
    esac
    local iters wrong
    iters=$(printf '%s\n' "$out" | grep -c '^{"iteration": ')
    if [ "$iters" -lt 1 ]; then
        bad "$label: no iteration lines"
        return
    fi
    wrong=$(printf '%s\n' "$out" | grep '^{"iteration": ' | grep -vc "^{\"iteration\": [0-9]*, \"ns\": [0-9]*, \"result\": \"$want\"}\$")
    if [ "$wrong" -ne 0 ]; then
        bad "$label: want '$want', got: $(printf '%s\n' "$out" | grep '^{"iteration": ' | head -n 3 | tr '\n' ' ')"
        return
    fi
    local m line
    line=$(printf '%s\n' "$out" | grep '^{"metrics": ' | tail -n 1)
    for m in $metrics; do
        local name=${m%%=*} value=${m#*=}
        if ! printf '%s\n' "$line" | grep -Eq "\"$name\": $value[,}]"; then
            bad "$label: want metric $name = $value, got: $line"
            return
        fi
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
    out=$("$BIN" "$@" 2>"$TMP/err")
    rc=$?
    lines=$(wc -l < "$TMP/err")
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

# ---- big (test sizes: (20, 200, 1000) and (50, 100, 20))
B20="messages=8000 checksum=42660"
B50="messages=10000 checksum=128266"
for w in 1 2 4; do
    run_check "big threads/pool 20 workers=$w" "$B20" "min_recv=172 max_recv=225" \
        big --model threads --param 20 --iterations 3 --workers "$w" --option pings=200 --option hood=1000 --option shape=pool
    run_check "big threads/pool 50 workers=$w" "$B50" "min_recv=81 max_recv=128" \
        big --model threads --param 50 --iterations 3 --workers "$w" --option pings=100 --option hood=20 --option shape=pool
done
run_check "big threads/thread-per-worker 20" "$B20" "min_recv=172 max_recv=225" \
    big --model threads --param 20 --iterations 3 --workers 2 --option pings=200 --option hood=1000 --option shape=thread-per-worker
run_check "big threads/thread-per-worker 50" "$B50" "min_recv=81 max_recv=128" \
    big --model threads --param 50 --iterations 3 --workers 2 --option pings=100 --option hood=20 --option shape=thread-per-worker
run_check "big threads default shape, hood default" "$B20" "" \
    big --model threads --param 20 --iterations 1 --option pings=200

# ---- chameneos (test sizes: encore, M = 10 000, C in 3 10 70; and redux n = 10 000)
CE="meetings=10000 creature_meetings=20000"
CR="meetings3=10000 creature_meetings3=20000 meetings10=10000 creature_meetings10=20000"
declare -A MOD3=([3]=0 [10]=1 [70]=1 [7]=1 [800]=2)
for shape in rendezvous rendezvous-condvar; do
    for c in 3 10 70; do
        run_check "chameneos threads/$shape encore C=$c" "$CE" \
            "self_meetings=0 colour_sum_mod3=${MOD3[$c]} fairness_std=[0-9.]+ cv=[0-9.]+ min_meetings=[0-9]+ max_meetings=[0-9]+" \
            chameneos --model threads --param "$c" --iterations 3 --workers 2 \
            --option variant=encore --option meetings=10000 --option shape="$shape"
    done
    run_check "chameneos threads/$shape encore C=800 M=4000" "meetings=4000 creature_meetings=8000" \
        "self_meetings=0 colour_sum_mod3=2" \
        chameneos --model threads --param 800 --iterations 1 --option meetings=4000 --option shape="$shape"
    run_check "chameneos threads/$shape redux n=10000" "$CR" \
        "self_meetings=0 colour_sum_mod3_3=0 colour_sum_mod3_10=1 min_meetings3=[0-9]+ max_meetings10=[0-9]+" \
        chameneos --model threads --param 10000 --iterations 2 --option variant=redux --option shape="$shape"
    run_check "chameneos threads/$shape redux n=10000 concurrent games" "$CR" \
        "self_meetings=0 colour_sum_mod3_3=0 colour_sum_mod3_10=1" \
        chameneos --model threads --param 10000 --iterations 2 --option variant=redux \
        --option concurrent_games=1 --option shape="$shape"
done

# ---- fannkuch (test sizes n = 7 8 9; also 3..6 and the K = n split)
declare -A FK=(
    [3]="maxflips=2 checksum=2" [4]="maxflips=4 checksum=4" [5]="maxflips=7 checksum=11"
    [6]="maxflips=10 checksum=49" [7]="maxflips=16 checksum=228" [8]="maxflips=22 checksum=1616"
    [9]="maxflips=30 checksum=8629"
)
for n in 7 8 9; do
    for w in 1 2 3; do
        run_check "fannkuch threads/counter n=$n workers=$w" "${FK[$n]}" "" \
            fannkuch --model threads --param "$n" --iterations 3 --workers "$w" --option shape=counter
        for shape in parallel-for parallel-reduce task-group; do
            run_check "fannkuch tbb/$shape n=$n workers=$w" "${FK[$n]}" "" \
                fannkuch --model tbb --param "$n" --iterations 3 --workers "$w" --option shape="$shape"
        done
    done
done
for n in 3 4 5 6; do
    run_check "fannkuch threads n=$n" "${FK[$n]}" "" fannkuch --model threads --param "$n" --iterations 1
    run_check "fannkuch tbb n=$n" "${FK[$n]}" "" fannkuch --model tbb --param "$n" --iterations 1
done
run_check "fannkuch threads n=9 chunks=9" "${FK[9]}" "" \
    fannkuch --model threads --param 9 --iterations 1 --workers 2 --option chunks=9
run_check "fannkuch tbb n=9 chunks=1000" "${FK[9]}" "" \
    fannkuch --model tbb --param 9 --iterations 1 --workers 2 --option chunks=1000 --option shape=task-group
run_check "fannkuch tbb n=5 chunks=1000 (more chunks than permutations)" "${FK[5]}" "" \
    fannkuch --model tbb --param 5 --iterations 1 --option chunks=1000

# ---- usage errors: exit 2, one stderr line, nothing on stdout
expect_usage_error "no arguments"
expect_usage_error "unknown benchmark" fib --model threads --param 10 --iterations 1
expect_usage_error "unknown model (big)" big --model tbb --param 20 --iterations 1
expect_usage_error "unknown model (chameneos)" chameneos --model tbb --param 3 --iterations 1
expect_usage_error "unknown model (fannkuch)" fannkuch --model rayon --param 7 --iterations 1
expect_usage_error "unknown shape (big)" big --model threads --param 20 --iterations 1 --option shape=stream
expect_usage_error "unknown shape (chameneos)" chameneos --model threads --param 3 --iterations 1 --option shape=message
expect_usage_error "unknown shape (fannkuch threads)" fannkuch --model threads --param 7 --iterations 1 --option shape=parallel-for
expect_usage_error "unknown shape (fannkuch tbb)" fannkuch --model tbb --param 7 --iterations 1 --option shape=counter
expect_usage_error "unknown option key" big --model threads --param 20 --iterations 1 --option window=2
expect_usage_error "fannkuch option on big" big --model threads --param 20 --iterations 1 --option chunks=2
expect_usage_error "malformed option" fannkuch --model threads --param 7 --iterations 1 --option chunks
expect_usage_error "option given twice" fannkuch --model threads --param 7 --iterations 1 --option chunks=2 --option chunks=3
expect_usage_error "malformed pings" big --model threads --param 20 --iterations 1 --option pings=2x
expect_usage_error "zero hood" big --model threads --param 20 --iterations 1 --option hood=0
expect_usage_error "zero workers in big" big --model threads --param 0 --iterations 1
expect_usage_error "unknown variant" chameneos --model threads --param 3 --iterations 1 --option variant=classic
expect_usage_error "one creature" chameneos --model threads --param 1 --iterations 1
expect_usage_error "malformed meetings" chameneos --model threads --param 3 --iterations 1 --option meetings=-5
expect_usage_error "meetings with redux" chameneos --model threads --param 100 --iterations 1 --option variant=redux --option meetings=5
expect_usage_error "concurrent games with encore" chameneos --model threads --param 3 --iterations 1 --option concurrent_games=1
expect_usage_error "malformed concurrent_games" chameneos --model threads --param 100 --iterations 1 --option variant=redux --option concurrent_games=yes
expect_usage_error "zero chunks" fannkuch --model tbb --param 7 --iterations 1 --option chunks=0
expect_usage_error "n too large" fannkuch --model threads --param 17 --iterations 1
expect_usage_error "malformed n" fannkuch --model threads --param 7a --iterations 1
expect_usage_error "negative n" fannkuch --model threads --param -7 --iterations 1
expect_usage_error "missing --model" fannkuch --param 7 --iterations 1
expect_usage_error "missing --param" fannkuch --model threads --iterations 1
expect_usage_error "missing --iterations" fannkuch --model threads --param 7
expect_usage_error "flag without value" fannkuch --model threads --param 7 --iterations
expect_usage_error "zero iterations" fannkuch --model threads --param 7 --iterations 0
expect_usage_error "zero workers" fannkuch --model threads --param 7 --iterations 1 --workers 0
expect_usage_error "malformed workers" fannkuch --model tbb --param 7 --iterations 1 --workers two
expect_usage_error "unknown flag" fannkuch --model threads --param 7 --iterations 1 --verbose 1
expect_usage_error "flag given twice" fannkuch --model threads --model tbb --param 7 --iterations 1

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

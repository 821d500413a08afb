#!/usr/bin/env bash
# Tests for concbench-go: every shape at the test sizes of benchmarks/{big,chameneos,fannkuch}.toml,
# checked against the references of big.md, chameneos.md and fannkuch.md; the chameneos metrics
# (self_meetings = 0, colour_sum_mod3 as the spec's table); the exit-2 error cases of the protocol.
# The last line is "N passed, N failed"; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")"
BIN=./build/concbench-go
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT
pass=0
fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run_check <label> <expected result> <required metrics fragments, |-separated, or ""> <args...>
# Checks: exit 0, hello first, K iteration lines numbered 0..K-1 with the expected result,
# each metrics fragment (like "self_meetings": 0) in the metrics line, nothing else on stdout.
run_check() {
    local label=$1 want=$2 metrics=$3
    shift 3
    local out rc
    out=$("$BIN" "$@" 2>"$ERR")
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$label: exit $rc: $(head -c 300 "$ERR")"
        return
    fi
    case $(printf '%s\n' "$out" | head -n 1) in
        '{"hello": {"protocol": 1, "language": "go", '*) ;;
        *) bad "$label: first line is not hello"; return ;;
    esac
    local k=0 i line
    local args=("$@")
    for ((i = 0; i < ${#args[@]}; i++)); do
        [ "${args[$i]}" = "--iterations" ] && k=${args[$((i + 1))]}
    done
    for ((i = 0; i < k; i++)); do
        line=$(printf '%s\n' "$out" | grep "^{\"iteration\": $i, ")
        case $line in
            "{\"iteration\": $i, \"ns\": "[0-9]*", \"result\": \"$want\"}") ;;
            *) bad "$label: iteration $i: want '$want', got '$line'"; return ;;
        esac
    done
    if [ "$(printf '%s\n' "$out" | grep -c '^{"iteration": ')" -ne "$k" ]; then
        bad "$label: want $k iteration lines"
        return
    fi
    local m frag
    m=$(printf '%s\n' "$out" | grep '^{"metrics": ')
    IFS='|' read -ra frags <<< "$metrics"
    for frag in "${frags[@]}"; do
        case $frag in
            *' ') case $m in *"$frag"*) continue ;; esac ;;     # "name": present, any value
            *) case $m in *"$frag"[,}]*) continue ;; esac ;;    # "name": value exactly
        esac
        bad "$label: metrics lack '$frag': $m"
        return
    done
    if [ "$(printf '%s\n' "$out" | grep -vc -e '^{"hello": ' -e '^{"iteration": ' -e '^{"metrics": ')" -ne 0 ]; then
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
    out=$("$BIN" "$@" 2>"$ERR")
    rc=$?
    lines=$(wc -l < "$ERR")
    if [ $rc -ne 2 ] || [ -n "$out" ] || [ "$lines" -ne 1 ]; then
        bad "$label: want exit 2, empty stdout, one stderr line; got exit $rc, stdout '$out', $lines stderr lines"
        return
    fi
    ok
}

if [ ! -x "$BIN" ]; then
    echo "missing $BIN: run make (or go build -o $BIN .) first"
    echo "0 passed, 1 failed"
    exit 1
fi

G=(--model goroutines)

# ---- big (test sizes; the cores given by GOMAXPROCS)
for procs in 1 2; do
    export GOMAXPROCS=$procs
    run_check "big csp 20/200/1000 P=$procs" "messages=8000 checksum=42660" '"min_recv": 172|"max_recv": 225' \
        big "${G[@]}" --param 20 --iterations 3 --workers "$procs" --option pings=200 --option hood=1000 --option shape=csp
    run_check "big csp 50/100/20 P=$procs" "messages=10000 checksum=128266" '"min_recv": 81|"max_recv": 128' \
        big "${G[@]}" --param 50 --iterations 3 --workers "$procs" --option pings=100 --option hood=20 --option shape=csp
done
run_check "big default shape" "messages=8000 checksum=42660" "" big "${G[@]}" --param 20 --iterations 1 --option pings=200

# ---- chameneos (test sizes, encore; redux at its test size)
declare -A COLOURS=([3]=0 [10]=1 [70]=1)
for procs in 1 2; do
    export GOMAXPROCS=$procs
    for shape in rendezvous message; do
        for c in 3 10 70; do
            run_check "chameneos $shape C=$c P=$procs" "meetings=10000 creature_meetings=20000" \
                "\"self_meetings\": 0|\"colour_sum_mod3\": ${COLOURS[$c]}|\"fairness_std\": |\"cv\": |\"min_meetings\": |\"max_meetings\": " \
                chameneos "${G[@]}" --param "$c" --iterations 3 --workers "$procs" \
                --option variant=encore --option meetings=10000 --option shape=$shape
        done
        run_check "chameneos $shape redux n=10000 P=$procs" \
            "meetings3=10000 creature_meetings3=20000 meetings10=10000 creature_meetings10=20000" \
            '"self_meetings": 0|"colour_sum_mod3_3": 0|"colour_sum_mod3_10": 1|"min_meetings3": |"max_meetings10": ' \
            chameneos "${G[@]}" --param 10000 --iterations 2 --option variant=redux --option shape=$shape
    done
    run_check "chameneos C=800 M=16000 P=$procs" "meetings=16000 creature_meetings=32000" \
        '"self_meetings": 0|"colour_sum_mod3": 2' chameneos "${G[@]}" --param 800 --iterations 1 --option meetings=16000
done
run_check "chameneos default variant and shape" "meetings=1000 creature_meetings=2000" '"self_meetings": 0' \
    chameneos "${G[@]}" --param 7 --iterations 1 --option meetings=1000

# ---- fannkuch (test sizes, and small n; the default chunk count and others)
declare -A FK=([3]="maxflips=2 checksum=2" [4]="maxflips=4 checksum=4" [5]="maxflips=7 checksum=11"
               [6]="maxflips=10 checksum=49" [7]="maxflips=16 checksum=228" [8]="maxflips=22 checksum=1616"
               [9]="maxflips=30 checksum=8629")
declare -A TASKS=([7]='"tasks": 149|"chunk": 34' [8]='"tasks": 150|"chunk": 269' [9]='"tasks": 150|"chunk": 2420')
for procs in 1 2; do
    export GOMAXPROCS=$procs
    for shape in per-chunk pull; do
        for n in 7 8 9; do
            run_check "fannkuch $shape n=$n P=$procs" "${FK[$n]}" "${TASKS[$n]}" \
                fannkuch "${G[@]}" --param "$n" --iterations 3 --workers "$procs" --option shape=$shape
        done
    done
done
for shape in per-chunk pull; do
    for n in 3 4 5 6; do
        run_check "fannkuch $shape n=$n" "${FK[$n]}" "" fannkuch "${G[@]}" --param "$n" --iterations 1 --option shape=$shape
    done
    run_check "fannkuch $shape n=9 chunks=9" "${FK[9]}" '"tasks": 9' \
        fannkuch "${G[@]}" --param 9 --iterations 1 --option shape=$shape --option chunks=9
    run_check "fannkuch $shape n=8 chunks=1000" "${FK[8]}" '"tasks": 984|"chunk": 41' \
        fannkuch "${G[@]}" --param 8 --iterations 1 --option shape=$shape --option chunks=1000
done
unset GOMAXPROCS

# ---- usage errors: exit 2, one stderr line, nothing on stdout
expect_usage_error "no arguments"
expect_usage_error "unknown benchmark" fib "${G[@]}" --param 10 --iterations 1
expect_usage_error "unknown model" big --model actors --param 20 --iterations 1
expect_usage_error "unknown shape (big)" big "${G[@]}" --param 20 --iterations 1 --option shape=pool
expect_usage_error "unknown shape (chameneos)" chameneos "${G[@]}" --param 3 --iterations 1 --option shape=csp
expect_usage_error "unknown shape (fannkuch)" fannkuch "${G[@]}" --param 7 --iterations 1 --option shape=rendezvous
expect_usage_error "unknown option key" big "${G[@]}" --param 20 --iterations 1 --option meetings=5
expect_usage_error "option of another benchmark" fannkuch "${G[@]}" --param 7 --iterations 1 --option hood=5
expect_usage_error "malformed option" big "${G[@]}" --param 20 --iterations 1 --option pings
expect_usage_error "malformed pings" big "${G[@]}" --param 20 --iterations 1 --option pings=lots
expect_usage_error "zero hood" big "${G[@]}" --param 20 --iterations 1 --option hood=0
expect_usage_error "zero workers (big)" big "${G[@]}" --param 0 --iterations 1
expect_usage_error "one creature" chameneos "${G[@]}" --param 1 --iterations 1
expect_usage_error "zero meetings" chameneos "${G[@]}" --param 3 --iterations 1 --option meetings=0
expect_usage_error "unknown variant" chameneos "${G[@]}" --param 3 --iterations 1 --option variant=scoop
expect_usage_error "meetings with redux" chameneos "${G[@]}" --param 10000 --iterations 1 --option variant=redux --option meetings=10
expect_usage_error "n too large" fannkuch "${G[@]}" --param 21 --iterations 1
expect_usage_error "negative n" fannkuch "${G[@]}" --param -3 --iterations 1
expect_usage_error "zero chunks" fannkuch "${G[@]}" --param 7 --iterations 1 --option chunks=0
expect_usage_error "missing --model" big --param 20 --iterations 1
expect_usage_error "missing --param" big "${G[@]}" --iterations 1
expect_usage_error "missing --iterations" big "${G[@]}" --param 20
expect_usage_error "flag without value" big "${G[@]}" --param 20 --iterations
expect_usage_error "zero iterations" big "${G[@]}" --param 20 --iterations 0
expect_usage_error "malformed workers" big "${G[@]}" --param 20 --iterations 1 --workers 0
expect_usage_error "unknown flag" big "${G[@]}" --param 20 --iterations 1 --verbose

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

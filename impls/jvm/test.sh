#!/usr/bin/env bash
# Tests for concbench-jvm: every variant and shape at the test sizes of benchmarks/{big,chameneos,fannkuch}.toml
# (plus a few extra sizes), checked against the specs' reference tables, the chameneos metrics
# (self_meetings = 0, colour_sum_mod3 as in chameneos.md), and the exit-2 cases of the protocol.
# The last line is "N passed, N failed"; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")"
RUN=(java -XX:ActiveProcessorCount=2 -cp build/classes concbench.Main)
LANGUAGE=jvm
# shellcheck source=../jvm/testlib.sh
source ./testlib.sh

if [ ! -f build/classes/concbench/Main.class ]; then
    echo "missing build/classes/concbench/Main.class: run make first"
    echo "0 passed, 1 failed"
    exit 1
fi

# ---- big (test sizes), threads/pool at 1 and 2 pool threads
for w in 1 2; do
    run_check "big threads/pool 20 w=$w" "messages=8000 checksum=42660" "min_recv=172 max_recv=225" \
        big --model threads --param 20 --iterations 3 --workers $w --option shape=pool --option pings=200 --option hood=1000
    run_check "big threads/pool 50 w=$w" "messages=10000 checksum=128266" "min_recv=81 max_recv=128" \
        big --model threads --param 50 --iterations 3 --workers $w --option shape=pool --option pings=100 --option hood=20
done
run_check "big threads default shape, w=3" "messages=10000 checksum=128266" "" \
    big --model threads --param 50 --iterations 1 --workers 3 --option pings=100 --option hood=20

run_check "big threads pings=0" "messages=0 checksum=0" "min_recv=0 max_recv=0" \
    big --model threads --param 5 --iterations 2 --option pings=0 --option hood=2

# ---- chameneos (test sizes, encore variant; the redux test size; C = 800 for colour_sum_mod3 = 2)
declare -A COLOUR=([3]=0 [10]=1 [70]=1 [7]=1 [800]=2)
for c in 3 10 70; do
    run_check "chameneos threads/rendezvous C=$c" "meetings=10000 creature_meetings=20000" \
        "self_meetings=0 colour_sum_mod3=${COLOUR[$c]}" \
        chameneos --model threads --param $c --iterations 3 --workers 2 --option shape=rendezvous \
        --option variant=encore --option meetings=10000
done
run_check "chameneos threads C=7 default options" "meetings=5000 creature_meetings=10000" \
    "self_meetings=0 colour_sum_mod3=1" chameneos --model threads --param 7 --iterations 1 --option meetings=5000
run_check "chameneos threads C=2 M=0" "meetings=0 creature_meetings=0" "self_meetings=0 colour_sum_mod3=1" \
    chameneos --model threads --param 2 --iterations 1 --option meetings=0
run_check "chameneos threads C=800" "meetings=10000 creature_meetings=20000" "self_meetings=0 colour_sum_mod3=2" \
    chameneos --model threads --param 800 --iterations 1 --option variant=encore --option meetings=10000
run_check "chameneos threads redux 10000" \
    "meetings3=10000 creature_meetings3=20000 meetings10=10000 creature_meetings10=20000" \
    "self_meetings=0 colour_sum_mod3_game3=0 colour_sum_mod3_game10=1" \
    chameneos --model threads --param 10000 --iterations 2 --option shape=rendezvous --option variant=redux

# ---- fannkuch (test sizes and the small reference values), every model and shape
declare -A FK=([3]="maxflips=2 checksum=2" [4]="maxflips=4 checksum=4" [5]="maxflips=7 checksum=11"
    [6]="maxflips=10 checksum=49" [7]="maxflips=16 checksum=228" [8]="maxflips=22 checksum=1616"
    [9]="maxflips=30 checksum=8629")
declare -A TASKS=([7]=149 [8]=150 [9]=150)
for ms in threads:pool threads:counter forkjoin:pool; do
    model=${ms%%:*}
    shape=${ms#*:}
    for n in 7 8 9; do
        for w in 1 2; do
            run_check "fannkuch $model/$shape n=$n w=$w" "${FK[$n]}" "tasks=${TASKS[$n]}" \
                fannkuch --model $model --param $n --iterations 3 --workers $w --option shape=$shape
        done
    done
    run_check "fannkuch $model/$shape n=9 chunks=9" "${FK[9]}" "tasks=9" \
        fannkuch --model $model --param 9 --iterations 1 --workers 2 --option shape=$shape --option chunks=9
    run_check "fannkuch $model/$shape n=5 chunks=1000 (chunk=1)" "${FK[5]}" "tasks=120" \
        fannkuch --model $model --param 5 --iterations 1 --workers 3 --option shape=$shape --option chunks=1000
done
for n in 3 4 6; do
    run_check "fannkuch threads n=$n" "${FK[$n]}" "" fannkuch --model threads --param $n --iterations 1
done

# ---- usage errors: exit 2, one stderr line, nothing on stdout
expect_usage_error "no arguments"
expect_usage_error "unknown benchmark" fib --model threads --param 10 --iterations 1
expect_usage_error "unknown model" big --model actors --param 20 --iterations 1
expect_usage_error "model without this benchmark" big --model forkjoin --param 20 --iterations 1
expect_usage_error "unknown shape" big --model threads --param 20 --iterations 1 --option shape=stream
expect_usage_error "shape of another benchmark" chameneos --model threads --param 3 --iterations 1 --option shape=pool
expect_usage_error "fannkuch shape of another model" fannkuch --model forkjoin --param 7 --iterations 1 --option shape=counter
expect_usage_error "unknown option key" fannkuch --model threads --param 7 --iterations 1 --option cutoff=3
expect_usage_error "big option on chameneos" chameneos --model threads --param 3 --iterations 1 --option pings=3
expect_usage_error "malformed option" big --model threads --param 20 --iterations 1 --option pings
expect_usage_error "malformed pings" big --model threads --param 20 --iterations 1 --option pings=many
expect_usage_error "zero hood" big --model threads --param 20 --iterations 1 --option hood=0
expect_usage_error "unknown variant" chameneos --model threads --param 3 --iterations 1 --option variant=classic
expect_usage_error "one creature" chameneos --model threads --param 1 --iterations 1
expect_usage_error "malformed meetings" chameneos --model threads --param 3 --iterations 1 --option meetings=-5
expect_usage_error "zero chunks" fannkuch --model threads --param 7 --iterations 1 --option chunks=0
expect_usage_error "n too large" fannkuch --model threads --param 21 --iterations 1
expect_usage_error "malformed N" big --model threads --param 12a --iterations 1
expect_usage_error "missing --model" big --param 20 --iterations 1
expect_usage_error "missing --param" big --model threads --iterations 1
expect_usage_error "missing --iterations" big --model threads --param 20
expect_usage_error "flag without value" big --model threads --param 20 --iterations
expect_usage_error "zero iterations" big --model threads --param 20 --iterations 0
expect_usage_error "zero workers" big --model threads --param 20 --iterations 1 --workers 0
expect_usage_error "unknown flag" big --model threads --param 20 --iterations 1 --verbose

report_and_exit

#!/usr/bin/env bash
# Tests for concbench-scala: every variant and shape at the test sizes of benchmarks/{big,chameneos,fannkuch}.toml
# (plus a few extra sizes), checked against the specs' reference tables, the chameneos metrics
# (self_meetings = 0, colour_sum_mod3 as in chameneos.md), and the exit-2 cases of the protocol.
# The last line is "N passed, N failed"; the exit status is non-zero on any failure.
set -u
cd "$(dirname "$0")"
RUN=(java -XX:ActiveProcessorCount=2 -cp build/lib/scala-library.jar:build/lib/scala-actors.jar:build/classes concbench.Main)
LANGUAGE=scala
# shellcheck source=../jvm/testlib.sh
source ../jvm/testlib.sh

if [ ! -f build/classes/concbench/Main.class ] || [ ! -e build/lib/scala-actors.jar ]; then
    echo "missing build/classes/concbench/Main.class or build/lib: run make first"
    echo "0 passed, 1 failed"
    exit 1
fi

# ---- big (test sizes), actors/actor, at 1 and 2 processors (scheduler width 4 either way) and at 4 (width 8)
for w in 1 2; do
    run_check "big actors/actor 20 w=$w" "messages=8000 checksum=42660" "min_recv=172 max_recv=225" \
        big --model actors --param 20 --iterations 3 --workers $w --option shape=actor --option pings=200 --option hood=1000
    run_check "big actors/actor 50 w=$w" "messages=10000 checksum=128266" "min_recv=81 max_recv=128" \
        big --model actors --param 50 --iterations 3 --workers $w --option shape=actor --option pings=100 --option hood=20
done
RUN[1]=-XX:ActiveProcessorCount=4
run_check "big actors 50, 4 processors: scheduler width 8" "messages=10000 checksum=128266" "scheduler_parallelism=8" \
    big --model actors --param 50 --iterations 1 --option pings=100 --option hood=20
RUN[1]=-XX:ActiveProcessorCount=2

run_check "big actors pings=0" "messages=0 checksum=0" "min_recv=0 max_recv=0" \
    big --model actors --param 5 --iterations 2 --option pings=0 --option hood=2

# ---- chameneos (test sizes, encore variant; the redux test size; C = 800 for colour_sum_mod3 = 2)
declare -A COLOUR=([3]=0 [10]=1 [70]=1 [7]=1 [800]=2)
for ms in actors:message threads:rendezvous; do
    model=${ms%%:*}
    shape=${ms#*:}
    for c in 3 10 70; do
        run_check "chameneos $model/$shape C=$c" "meetings=10000 creature_meetings=20000" \
            "self_meetings=0 colour_sum_mod3=${COLOUR[$c]}" \
            chameneos --model $model --param $c --iterations 3 --workers 2 --option shape=$shape \
            --option variant=encore --option meetings=10000
    done
    run_check "chameneos $model/$shape C=800" "meetings=10000 creature_meetings=20000" "self_meetings=0 colour_sum_mod3=2" \
        chameneos --model $model --param 800 --iterations 1 --option shape=$shape --option variant=encore --option meetings=10000
    run_check "chameneos $model/$shape redux 10000" \
        "meetings3=10000 creature_meetings3=20000 meetings10=10000 creature_meetings10=20000" \
        "self_meetings=0 colour_sum_mod3_game3=0 colour_sum_mod3_game10=1" \
        chameneos --model $model --param 10000 --iterations 2 --option shape=$shape --option variant=redux
done
run_check "chameneos actors C=7 default options" "meetings=5000 creature_meetings=10000" \
    "self_meetings=0 colour_sum_mod3=1" chameneos --model actors --param 7 --iterations 1 --option meetings=5000
run_check "chameneos actors C=2 M=0" "meetings=0 creature_meetings=0" "self_meetings=0 colour_sum_mod3=1" \
    chameneos --model actors --param 2 --iterations 1 --option meetings=0
run_check "chameneos threads C=2 M=0" "meetings=0 creature_meetings=0" "self_meetings=0 colour_sum_mod3=1" \
    chameneos --model threads --param 2 --iterations 1 --option meetings=0

# ---- fannkuch (test sizes and the small reference values), every model and shape
declare -A FK=([3]="maxflips=2 checksum=2" [4]="maxflips=4 checksum=4" [5]="maxflips=7 checksum=11"
    [6]="maxflips=10 checksum=49" [7]="maxflips=16 checksum=228" [8]="maxflips=22 checksum=1616"
    [9]="maxflips=30 checksum=8629")
declare -A TASKS=([7]=149 [8]=150 [9]=150)
for ms in threads:counter actors:pull actors:actor-per-task; do
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
expect_usage_error "unknown benchmark" fib --model actors --param 10 --iterations 1
expect_usage_error "unknown model" big --model akka --param 20 --iterations 1
expect_usage_error "model without this benchmark" big --model threads --param 20 --iterations 1
expect_usage_error "unknown shape" big --model actors --param 20 --iterations 1 --option shape=pool
expect_usage_error "shape of another model" chameneos --model actors --param 3 --iterations 1 --option shape=rendezvous
expect_usage_error "fannkuch shape of another model" fannkuch --model threads --param 7 --iterations 1 --option shape=pull
expect_usage_error "unknown option key" fannkuch --model actors --param 7 --iterations 1 --option cutoff=3
expect_usage_error "big option on chameneos" chameneos --model actors --param 3 --iterations 1 --option hood=3
expect_usage_error "malformed option" big --model actors --param 20 --iterations 1 --option pings
expect_usage_error "malformed pings" big --model actors --param 20 --iterations 1 --option pings=many
expect_usage_error "zero hood" big --model actors --param 20 --iterations 1 --option hood=0
expect_usage_error "unknown variant" chameneos --model threads --param 3 --iterations 1 --option variant=classic
expect_usage_error "one creature" chameneos --model actors --param 1 --iterations 1
expect_usage_error "malformed meetings" chameneos --model actors --param 3 --iterations 1 --option meetings=1e6
expect_usage_error "zero chunks" fannkuch --model threads --param 7 --iterations 1 --option chunks=0
expect_usage_error "n too large" fannkuch --model actors --param 21 --iterations 1
expect_usage_error "malformed N" big --model actors --param 12a --iterations 1
expect_usage_error "missing --model" big --param 20 --iterations 1
expect_usage_error "missing --param" big --model actors --iterations 1
expect_usage_error "missing --iterations" big --model actors --param 20
expect_usage_error "flag without value" big --model actors --param 20 --iterations
expect_usage_error "zero iterations" big --model actors --param 20 --iterations 0
expect_usage_error "zero workers" fannkuch --model threads --param 7 --iterations 1 --workers 0
expect_usage_error "unknown flag" big --model actors --param 20 --iterations 1 --verbose

report_and_exit

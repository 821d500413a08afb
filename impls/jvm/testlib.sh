# Shared by the JVM-hosted implementations' test scripts (impls/jvm, impls/scala).
# The sourcing script sets RUN (the command as an array) and LANGUAGE (the hello's language),
# then calls run_check and expect_usage_error, and ends with report_and_exit.
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT
pass=0
fail=0

ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run_check <label> <expected result> <"name=value ..." metrics that must match, or ""> <args...>
# Checks: exit 0, hello first, only protocol lines, K iteration lines counting 0.., each with the expected result.
run_check() {
    local label=$1 want=$2 metrics=$3
    shift 3
    local out rc
    out=$("${RUN[@]}" "$@" 2>"$ERR")
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "$label: exit $rc: $(head -c 300 "$ERR")"
        return
    fi
    case $(printf '%s\n' "$out" | head -n 1) in
        "{\"hello\": {\"protocol\": 1, \"language\": \"$LANGUAGE\", "*) ;;
        *) bad "$label: first line is not hello: $(printf '%s\n' "$out" | head -n 1)"; return ;;
    esac
    if printf '%s\n' "$out" | grep -qv -e '^{"hello": ' -e '^{"iteration": ' -e '^{"metrics": '; then
        bad "$label: stray lines on stdout"
        return
    fi
    local k=-1 i=0 j line
    for ((i = 1; i < $#; i++)); do
        if [ "${!i}" = --iterations ]; then j=$((i + 1)); k=${!j}; fi
    done
    i=0
    while IFS= read -r line; do
        case $line in
            "{\"iteration\": $i, \"ns\": "*", \"result\": \"$want\"}") ;;
            *) bad "$label: iteration $i: want '$want', got $line"; return ;;
        esac
        i=$((i + 1))
    done < <(printf '%s\n' "$out" | grep '^{"iteration": ')
    if [ "$i" -ne "$k" ]; then
        bad "$label: $i iteration lines, want $k"
        return
    fi
    local m name value got
    local mline
    mline=$(printf '%s\n' "$out" | grep '^{"metrics": ' | tail -n 1)
    for m in $metrics; do
        name=${m%%=*}
        value=${m#*=}
        got=$(printf '%s\n' "$mline" | grep -o "\"$name\": [-0-9.eE]*" | head -n 1 | sed 's/.*: //')
        if [ "$got" != "$value" ]; then
            bad "$label: metric $name: want $value, got '${got}' in $mline"
            return
        fi
    done
    ok
}

# expect_usage_error <label> <args...>: exit 2, nothing on stdout, exactly one line on stderr.
expect_usage_error() {
    local label=$1
    shift
    local out rc lines
    out=$("${RUN[@]}" "$@" 2>"$ERR")
    rc=$?
    lines=$(wc -l < "$ERR")
    if [ $rc -ne 2 ] || [ -n "$out" ] || [ "$lines" -ne 1 ]; then
        bad "$label: want exit 2, empty stdout, one stderr line; got exit $rc, stdout '$out', $lines stderr lines: $(head -c 200 "$ERR")"
        return
    fi
    ok
}

report_and_exit() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

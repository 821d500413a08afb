// concbench-cpp: the command line, the protocol lines and what every benchmark shares.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cb {

// A bad command line: main prints its message as one stderr line and exits with status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The parsed command line. Options are taken (and so marked used) by the benchmark that reads
// them; an option nobody took is an unknown key.
class Args {
public:
    std::string benchmark, model, param;
    int iterations = 0;
    int workers = 0;  // --workers, or the CPUs this process may run on

    void add_option(const std::string& key, const std::string& value);
    // The value of `key`, or `fallback` when it was not given.
    std::string take(const std::string& key, const std::string& fallback);
    bool has(const std::string& key) const { return options_.count(key) != 0; }
    // Throws UsageError naming the first option no benchmark took.
    void check_all_taken() const;

private:
    std::map<std::string, std::pair<std::string, bool>> options_;  // key -> (value, taken)
};

Args parse_args(int argc, char** argv);

// Strict decimal: digits only, no sign or spaces, within [lo, hi]; `what` names the culprit.
uint64_t parse_uint(const std::string& text, uint64_t lo, uint64_t hi, const std::string& what);

// One metric already formatted as a JSON number.
using Metric = std::pair<std::string, std::string>;
std::string json_int(int64_t v);
std::string json_float(double v);

// What one timed iteration hands back: the kernel's time, the result string, and metrics
// (only the last iteration's are printed).
struct Outcome {
    int64_t ns = 0;
    std::string result;
    std::vector<Metric> metrics;
};

// A benchmark, validated and ready: `setup` runs once after hello (untimed, e.g. starting a pool),
// `iterate` runs one iteration.
struct Plan {
    std::string runtime;  // for hello
    std::function<void()> setup;
    std::function<Outcome()> iterate;
};

Plan plan_big(Args& args);
Plan plan_chameneos(Args& args);
Plan plan_fannkuch(Args& args);

int64_t now_ns();  // steady_clock (CLOCK_MONOTONIC) in nanoseconds

// A runtime failure that is not a usage error (e.g. threads that cannot be created): one stderr
// line, exit status 1, without waiting for threads already started.
[[noreturn]] void fail(const std::string& message);

std::string compiler_runtime();  // "g++ 12.2.0 (C++17, libstdc++ std::thread)"

}  // namespace cb

// concbench-cpp: one binary for the C++ models (std::thread and oneTBB) of big, chameneos and fannkuch.
//
//   concbench-cpp <benchmark> --model <model> --param <value> --iterations <k>
//                 [--workers <w>] [--option key=value]...
//
// stdout carries protocol lines only (hello, iteration, metrics), each flushed; a bad command line
// is one stderr line and exit status 2 with nothing on stdout.
#include "common.hpp"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace cb {

void Args::add_option(const std::string& key, const std::string& value) {
    if (options_.count(key)) throw UsageError("--option " + key + " given twice");
    options_[key] = {value, false};
}

std::string Args::take(const std::string& key, const std::string& fallback) {
    auto it = options_.find(key);
    if (it == options_.end()) return fallback;
    it->second.second = true;
    return it->second.first;
}

void Args::check_all_taken() const {
    for (const auto& [key, entry] : options_)
        if (!entry.second)
            throw UsageError("unknown option '" + key + "' for " + benchmark + " --model " + model);
}

uint64_t parse_uint(const std::string& text, uint64_t lo, uint64_t hi, const std::string& what) {
    if (text.empty() || text.size() > 19)
        throw UsageError(what + ": expected a whole number, got '" + text + "'");
    uint64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') throw UsageError(what + ": expected a whole number, got '" + text + "'");
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v < lo || v > hi)
        throw UsageError(what + ": " + text + " is out of range [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]");
    return v;
}

static int allowed_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 1;
}

Args parse_args(int argc, char** argv) {
    Args a;
    if (argc < 2) throw UsageError("usage: concbench-cpp <benchmark> --model M --param P --iterations K "
                                   "[--workers W] [--option key=value]...");
    a.benchmark = argv[1];
    if (a.benchmark.rfind("--", 0) == 0) throw UsageError("the first argument must be the benchmark, got " + a.benchmark);
    bool have_model = false, have_param = false, have_iterations = false, have_workers = false;
    for (int i = 2; i < argc; i += 2) {
        std::string flag = argv[i];
        if (i + 1 >= argc) throw UsageError(flag + " needs a value");
        std::string value = argv[i + 1];
        auto once = [&](bool& seen) {
            if (seen) throw UsageError(flag + " given twice");
            seen = true;
        };
        if (flag == "--model") {
            once(have_model);
            a.model = value;
        } else if (flag == "--param") {
            once(have_param);
            a.param = value;
        } else if (flag == "--iterations") {
            once(have_iterations);
            a.iterations = static_cast<int>(parse_uint(value, 1, 1000000, "--iterations"));
        } else if (flag == "--workers") {
            once(have_workers);
            a.workers = static_cast<int>(parse_uint(value, 1, 4096, "--workers"));
        } else if (flag == "--option") {
            auto eq = value.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
                throw UsageError("--option " + value + ": expected key=value");
            a.add_option(value.substr(0, eq), value.substr(eq + 1));
        } else {
            throw UsageError("unknown flag " + flag);
        }
    }
    if (!have_model) throw UsageError("missing --model");
    if (!have_param) throw UsageError("missing --param");
    if (!have_iterations) throw UsageError("missing --iterations");
    if (!have_workers) a.workers = allowed_cpus();
    return a;
}

std::string json_int(int64_t v) { return std::to_string(v); }

std::string json_float(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    return buf;
}

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void fail(const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "concbench-cpp: %s\n", message.c_str());
    std::fflush(stderr);
    std::_Exit(1);
}

std::string compiler_runtime() {
    return std::string("g++ ") + __VERSION__ + " (C++17, libstdc++ std::thread)";
}

}  // namespace cb

int main(int argc, char** argv) {
    using namespace cb;
    Plan plan;
    Args args;
    try {
        args = parse_args(argc, argv);
        if (args.benchmark == "big") plan = plan_big(args);
        else if (args.benchmark == "chameneos") plan = plan_chameneos(args);
        else if (args.benchmark == "fannkuch") plan = plan_fannkuch(args);
        else throw UsageError("unknown benchmark '" + args.benchmark + "' (known: big, chameneos, fannkuch)");
        args.check_all_taken();
    } catch (const UsageError& e) {
        std::fprintf(stderr, "concbench-cpp: %s\n", e.what());
        return 2;
    }

    std::printf("{\"hello\": {\"protocol\": 1, \"language\": \"cpp\", \"runtime\": \"%s\", \"model\": \"%s\"}}\n",
                plan.runtime.c_str(), args.model.c_str());
    std::fflush(stdout);

    if (plan.setup) plan.setup();
    std::vector<Metric> metrics;
    for (int i = 0; i < args.iterations; ++i) {
        Outcome out = plan.iterate();
        std::printf("{\"iteration\": %d, \"ns\": %lld, \"result\": \"%s\"}\n", i,
                    static_cast<long long>(out.ns), out.result.c_str());
        std::fflush(stdout);
        metrics = std::move(out.metrics);
    }
    if (!metrics.empty()) {
        std::string line = "{\"metrics\": {";
        for (size_t k = 0; k < metrics.size(); ++k) {
            if (k) line += ", ";
            line += "\"" + metrics[k].first + "\": " + metrics[k].second;
        }
        line += "}}";
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    }
    return 0;
}

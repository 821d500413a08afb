// concbench-cpp: one binary for the C++ models (std::thread and oneTBB) of big, chameneos, fannkuch, the
// six Cowichan benchmarks (randmat, thresh, winnow, outer, product, chain) and the coordination
// benchmarks (mutex, prodcons, condition, threadring, philosophers).
//
//   concbench-cpp describe
//   concbench-cpp <benchmark> --model <model> --param <value> --iterations <k>
//                 [--workers <w>] [--option key=value]...
//
// The table below (kModels, benchmark_table()) is the one declaration of what this binary serves:
// `describe` prints it (docs/describe.md), and every argument check reads it: the benchmark, the
// model, --param against the benchmark's domain, the shape against the model's list, every other
// option key and value against the model's options and their domains. Only the combinations a
// domain cannot express are checked by hand, in the benchmark's prepare function.
//
// stdout carries protocol lines only (describe, or hello, iteration, metrics), each flushed; a bad
// command line is one stderr line and exit status 2 with nothing on stdout.
#include "kernels.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/version.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <functional>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

namespace cb {
namespace {

constexpr int kProtocol = 1;

// ======================= JSON writer =======================

// A JSON value built in order and written on one line. Numbers are kept as their JSON text.
class Json {
public:
    static Json string(const std::string& s) { return Json(Kind::String, s); }
    static Json integer(int64_t v) { return Json(Kind::Number, std::to_string(v)); }
    // A finite double with six decimals (callers leave non-finite figures out).
    static Json number(double v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6f", v);
        return Json(Kind::Number, buf);
    }
    static Json object() { return Json(Kind::Object, ""); }
    static Json array() { return Json(Kind::Array, ""); }

    Json& set(const std::string& key, Json value) {
        members_.emplace_back(key, std::move(value));
        return *this;
    }
    Json& push(Json value) {
        items_.push_back(std::move(value));
        return *this;
    }

    std::string dump() const {
        std::string out;
        write(out);
        return out;
    }

    static void escape(const std::string& s, std::string& out) {
        out += '"';
        for (unsigned char c : s) {
            switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
            }
        }
        out += '"';
    }

private:
    enum class Kind { String, Number, Object, Array };
    Json(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}

    void write(std::string& out) const {
        switch (kind_) {
        case Kind::String: escape(text_, out); break;
        case Kind::Number: out += text_; break;
        case Kind::Object:
            out += '{';
            for (size_t i = 0; i < members_.size(); ++i) {
                if (i) out += ", ";
                escape(members_[i].first, out);
                out += ": ";
                members_[i].second.write(out);
            }
            out += '}';
            break;
        case Kind::Array:
            out += '[';
            for (size_t i = 0; i < items_.size(); ++i) {
                if (i) out += ", ";
                items_[i].write(out);
            }
            out += ']';
            break;
        }
    }

    Kind kind_;
    std::string text_;
    std::vector<std::pair<std::string, Json>> members_;
    std::vector<Json> items_;
};

void print_line(const Json& line) {
    std::string text = line.dump();
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

// A culprit from the command line, quoted and escaped so the error stays one line.
std::string quoted(const std::string& s) {
    std::string out;
    Json::escape(s, out);
    return out;
}

// ======================= domains (docs/describe.md) =======================

// A bad command line: main prints its message as one stderr line and exits with status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A decimal integer as describe.md defines it (an optional leading '-', then digits only), read with
// strtoll; nullopt when the text is not one or does not fit in int64.
std::optional<int64_t> parse_int(const std::string& text) {
    size_t digits = (!text.empty() && text[0] == '-') ? 1 : 0;
    if (digits == text.size()) return std::nullopt;
    for (size_t i = digits; i < text.size(); ++i)
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || end != text.c_str() + text.size()) return std::nullopt;
    return static_cast<int64_t>(v);
}

// "default" of an option that is the --param value when absent.
const std::string kParamDefault = "{param}";

// The values an option or --param accepts: an int range (either bound optional) or a list of strings.
struct Domain {
    enum class Kind { Int, Values };
    Kind kind = Kind::Int;
    std::optional<int64_t> min, max;
    std::vector<std::string> values;
    std::optional<std::string> fallback;  // "default": what the binary uses when the option is absent
    // "reason": why this table narrows the bound its benchmark's file declares (benchmarks/<id>.toml [options])
    std::optional<std::string> reason;

    static Domain ints(std::optional<int64_t> lo, std::optional<int64_t> hi) {
        Domain d;
        d.kind = Kind::Int;
        d.min = lo;
        d.max = hi;
        return d;
    }
    static Domain one_of(std::vector<std::string> vs) {
        Domain d;
        d.kind = Kind::Values;
        d.values = std::move(vs);
        return d;
    }
    Domain with_default(const std::string& v) const {
        Domain d = *this;
        d.fallback = v;
        return d;
    }
    Domain narrowed(const std::string& why) const {
        Domain d = *this;
        d.reason = why;
        return d;
    }

    // Why `text` is outside the domain, or nullopt when it is inside.
    std::optional<std::string> reject(const std::string& text) const {
        if (kind == Kind::Values) {
            if (std::find(values.begin(), values.end(), text) != values.end()) return std::nullopt;
            std::string known;
            for (const auto& v : values) known += (known.empty() ? "" : ", ") + v;
            return "expected one of " + known;
        }
        std::optional<int64_t> v = parse_int(text);
        if (!v) return "expected a decimal integer" + bounds();
        if ((min && *v < *min) || (max && *v > *max)) return "out of range" + bounds();
        return std::nullopt;
    }

    std::string bounds() const {
        if (min && max) return " in " + std::to_string(*min) + ".." + std::to_string(*max);
        if (min) return " >= " + std::to_string(*min);
        if (max) return " <= " + std::to_string(*max);
        return "";
    }

    Json describe() const {
        Json d = Json::object();
        if (kind == Kind::Int) {
            Json range = Json::object();
            if (min) range.set("min", Json::integer(*min));
            if (max) range.set("max", Json::integer(*max));
            d.set("int", std::move(range));
        } else {
            Json list = Json::array();
            for (const auto& v : values) list.push(Json::string(v));
            d.set("values", std::move(list));
        }
        if (fallback) d.set("default", Json::string(*fallback));
        if (reason) d.set("reason", Json::string(*reason));
        return d;
    }
};

// ======================= the table =======================

struct Request;

// What one timed iteration hands back: the kernel's time, the result string, and metrics (only the
// last iteration's are printed).
struct Outcome {
    int64_t ns = 0;
    std::string result;
    std::vector<std::pair<std::string, Json>> metrics;

    void metric(const std::string& name, int64_t v) { metrics.emplace_back(name, Json::integer(v)); }
    // A figure that could not be computed (NaN or infinite) is left out.
    void metric(const std::string& name, double v) {
        if (std::isfinite(v)) metrics.emplace_back(name, Json::number(v));
    }
};

// A benchmark, validated and ready: `setup` runs once after hello (untimed, e.g. starting a pool),
// `iterate` runs one iteration.
struct Plan {
    std::string runtime;  // for hello
    std::function<void()> setup;
    std::function<Outcome()> iterate;
};

struct OptionDef {
    std::string key;
    Domain domain;
};

struct ModelDef {
    std::string name;
    std::vector<std::string> shapes;  // the faithful port first; passed as --option shape=<name>
    std::vector<OptionDef> options;   // every other option key accepted
};

struct BenchmarkDef {
    std::string name;
    Domain param;  // --param, the union over the models
    std::vector<ModelDef> models;
    Plan (*prepare)(const Request&);
};

struct ModelInfo {
    std::string name, description;
};

Plan prepare_big(const Request& r);
Plan prepare_chameneos(const Request& r);
Plan prepare_fannkuch(const Request& r);
Plan prepare_cowichan(const Request& r);
Plan prepare_mutex(const Request& r);
Plan prepare_prodcons(const Request& r);
Plan prepare_condition(const Request& r);
Plan prepare_threadring(const Request& r);
Plan prepare_philosophers(const Request& r);

const std::vector<ModelInfo> kModels = {
    {"threads",
     "std::thread with mutexes and condition variables: an actor runtime over a pool of --workers threads or a "
     "thread per worker (big), one thread per creature with a CAS or mutex/condvar meeting place, or a CAS "
     "place whose waiting creature spins, then yields, then parks on a futex (chameneos), "
     "--workers threads taking chunks from an atomic counter (fannkuch), --workers threads on static row blocks "
     "joined after each phase (Cowichan), a thread per worker around one std::mutex and condition variables "
     "(mutex, prodcons, condition), a ring of threads sharing one handler queue or blocked on their own "
     "condition variables (threadring), a thread per philosopher taking both its forks' mutexes with "
     "std::scoped_lock (philosophers)"},
    {"tbb",
     "oneTBB inside a task_arena of --workers threads: parallel_for, parallel_reduce or a task_group over the "
     "chunks (fannkuch); parallel_for over rows, parallel_reduce with a combinable, parallel_scan and "
     "parallel_sort (Cowichan); a task_group of n tasks around a tbb::spin_mutex or tbb::queuing_mutex (mutex)"},
};

// big: N bounds the local ids (int32) and the thread-per-worker threads; P keeps 2*N*P in 64 bits. H needs
// no bound: prepare_big takes an H beyond N as N (one neighbourhood either way).
constexpr int64_t kBigMaxWorkers = 10000000;
constexpr int64_t kBigMaxPings = 1000000000;
// chameneos variant=encore: C creatures, one thread each (the union with redux's n is the --param domain).
const Domain kEncoreCreatures = Domain::ints(2, kChameneosMaxCreatures);

// The Cowichan family: the same options and domains for every model of the six benchmarks (chain.md).
std::vector<OptionDef> cowichan_options() {
    return {{"p", Domain::ints(0, 100).with_default("1")},
            {"nelts", Domain::ints(1, std::nullopt).with_default(kParamDefault)},  // K < nelts fails the run
            {"seed", Domain::ints(0, 4294967295LL).with_default("0")}};
}

BenchmarkDef cowichan_benchmark(const std::string& name) {
    return {name,
            Domain::ints(1, kCowichanMaxN),
            {{"tbb", {"parallel-for"}, cowichan_options()}, {"threads", {"blocks"}, cowichan_options()}},
            prepare_cowichan};
}

// mutex, prodcons, condition: n, the workers per role (not --workers, the pool width), one std::thread each
// (why: the reason). mutex's tbb tasks are bounded by the count alone: n*m in 64 bits for every m <= kCoordMaxM.
std::vector<OptionDef> coordination_options(const std::string& why) {
    return {{"n", Domain::ints(1, kCoordMaxN).with_default("32").narrowed(why)}};
}
constexpr int64_t kMutexTasksMaxN = static_cast<int64_t>(UINT64_MAX / static_cast<uint64_t>(kCoordMaxM));

const std::vector<BenchmarkDef>& benchmark_table() {
    static const std::vector<BenchmarkDef> table = {
        {"big",
         Domain::ints(1, kBigMaxWorkers),
         {{"threads",
           {"pool", "thread-per-worker"},
           {{"pings",
             Domain::ints(0, kBigMaxPings)
                 .with_default("16000")
                 .narrowed("2*N*P, the messages counted in 64 bits, must not wrap for N up to 10000000")},
            {"hood", Domain::ints(1, std::nullopt).with_default("1000")}}}},
         prepare_big},
        {"chameneos",
         // variant=encore: C in 2..kChameneosMaxCreatures; variant=redux: n, the meetings per game.
         Domain::ints(1, kChameneosMaxMeetings),
         {{"threads",
           {"rendezvous", "rendezvous-condvar", "best-exchange"},
           {{"variant", Domain::one_of({"encore", "redux"}).with_default("encore")},
            {"meetings",
             Domain::ints(1, kChameneosMaxMeetings)
                 .with_default("8000000")
                 .narrowed("the CAS word of rendezvous and best-exchange keeps the meetings left in 32 bits")},
            {"concurrent_games", Domain::one_of({"0", "1"}).with_default("0")}}}},
         prepare_chameneos},
        {"fannkuch",
         Domain::ints(1, kFannkuchMaxN),
         {{"threads", {"counter"}, {{"chunks", Domain::ints(1, std::nullopt).with_default("150")}}},
          {"tbb",
           {"parallel-for", "parallel-reduce", "task-group"},
           {{"chunks", Domain::ints(1, kFannkuchMaxChunks)
                           .with_default("150")
                           .narrowed("parallel-for and task-group hold a result slot per task, and task-group a "
                                     "task, min(chunks, n!) of them")}}}},
         prepare_fannkuch},
        cowichan_benchmark("randmat"),
        cowichan_benchmark("thresh"),
        cowichan_benchmark("winnow"),
        cowichan_benchmark("outer"),
        cowichan_benchmark("product"),
        cowichan_benchmark("chain"),
        {"mutex",
         Domain::ints(0, kCoordMaxM),
         {{"threads", {"lock"}, coordination_options("one OS thread per worker")},
          {"tbb",
           {"spin-mutex", "queuing-mutex"},
           {{"n", Domain::ints(1, kMutexTasksMaxN)
                      .with_default("32")
                      .narrowed("the count, n*m, must fit in 64 bits for m up to 10^12")}}}},
         prepare_mutex},
        {"prodcons",
         Domain::ints(0, kCoordMaxM),
         {{"threads",
           {"paper", "notify-each"},
           coordination_options("two OS threads per n, a producer and a consumer")}},
         prepare_prodcons},
        {"condition",
         Domain::ints(0, kCoordMaxM),
         {{"threads",
           {"paper", "broadcast", "two-cv"},
           coordination_options("two OS threads per n, one of each parity")}},
         prepare_condition},
        {"threadring",
         Domain::ints(0, INT64_MAX),
         {{"threads",
           {"asio-wake", "asio-pool", "blocking"},
           {{"ring", Domain::ints(2, kRingMax).with_default("503").narrowed("one OS thread per ring entity")}}}},
         prepare_threadring},
        // philosophers: n philosophers and forks (at least 2), one thread each; --param m, the meals.
        {"philosophers",
         Domain::ints(0, kCoordMaxM),
         {{"threads",
           {"scoped-lock"},
           {{"n",
             Domain::ints(kPhilosophersMinN, kCoordMaxN).with_default("5").narrowed("one OS thread per philosopher")}}}},
         prepare_philosophers},
    };
    return table;
}

Json describe_table() {
    Json models = Json::object();
    for (const auto& m : kModels) models.set(m.name, Json::string(m.description));
    Json benchmarks = Json::object();
    for (const auto& b : benchmark_table()) {
        Json per_model = Json::object();
        for (const auto& m : b.models) {
            Json shapes = Json::array();
            for (const auto& s : m.shapes) shapes.push(Json::string(s));
            Json options = Json::object();
            for (const auto& o : m.options) options.set(o.key, o.domain.describe());
            per_model.set(m.name, Json::object().set("shapes", std::move(shapes)).set("options", std::move(options)));
        }
        benchmarks.set(b.name, Json::object().set("param", b.param.describe()).set("models", std::move(per_model)));
    }
    Json body = Json::object();
    body.set("protocol", Json::integer(kProtocol))
        .set("language", Json::string("cpp"))
        .set("models", std::move(models))
        .set("benchmarks", std::move(benchmarks));
    return Json::object().set("describe", std::move(body));
}

// ======================= the command line =======================

const Domain kIterations = Domain::ints(1, 1000000);
const Domain kWorkers = Domain::ints(1, 4096);

struct CommandLine {
    std::string benchmark, model, param;
    std::optional<std::string> iterations, workers;
    std::vector<std::pair<std::string, std::string>> options;  // as given
};

CommandLine parse_command_line(int argc, char** argv) {
    CommandLine c;
    if (argc < 2)
        throw UsageError("usage: concbench-cpp describe | <benchmark> --model M --param P --iterations K "
                         "[--workers W] [--option key=value]...");
    c.benchmark = argv[1];
    if (c.benchmark == "describe") throw UsageError("describe takes no other argument");
    if (c.benchmark.rfind("--", 0) == 0)
        throw UsageError("the first argument must be the benchmark, got " + quoted(c.benchmark));
    std::optional<std::string> model, param;
    std::set<std::string> option_keys;
    for (int i = 2; i < argc; i += 2) {
        std::string flag = argv[i];
        if (i + 1 >= argc) throw UsageError(quoted(flag) + " needs a value");
        std::string value = argv[i + 1];
        auto once = [&](std::optional<std::string>& slot) {
            if (slot) throw UsageError(flag + " given twice");
            slot = value;
        };
        if (flag == "--model") once(model);
        else if (flag == "--param") once(param);
        else if (flag == "--iterations") once(c.iterations);
        else if (flag == "--workers") once(c.workers);
        else if (flag == "--option") {
            size_t eq = value.find('=');
            if (eq == std::string::npos || eq == 0)
                throw UsageError("--option " + quoted(value) + ": expected key=value");
            std::string key = value.substr(0, eq);
            if (!option_keys.insert(key).second) throw UsageError("--option " + quoted(key) + " given twice");
            c.options.emplace_back(key, value.substr(eq + 1));
        } else {
            throw UsageError("unknown flag " + quoted(flag) +
                             " (known: --model, --param, --iterations, --workers, --option)");
        }
    }
    if (!model) throw UsageError("missing --model");
    if (!param) throw UsageError("missing --param");
    if (!c.iterations) throw UsageError("missing --iterations");
    c.model = *model;
    c.param = *param;
    return c;
}

int allowed_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 1;
}

// A command line checked against the table: every value below lies inside its domain.
struct Request {
    const BenchmarkDef* benchmark = nullptr;
    const ModelDef* model = nullptr;
    std::string shape;  // the model's first shape when not given
    std::string param;
    int iterations = 0;
    int workers = 0;  // --workers, or the CPUs this process may run on
    std::map<std::string, std::string> options;  // every option of the model: given, or its default
    std::set<std::string> given;

    int64_t param_int() const { return *parse_int(param); }
    const std::string& option(const std::string& key) const { return options.at(key); }
    int64_t int_option(const std::string& key) const { return *parse_int(option(key)); }
};

Request resolve(const CommandLine& c) {
    Request r;
    const auto& table = benchmark_table();
    std::string known;
    for (const auto& b : table) {
        known += (known.empty() ? "" : ", ") + b.name;
        if (b.name == c.benchmark) r.benchmark = &b;
    }
    if (!r.benchmark) throw UsageError("unknown benchmark " + quoted(c.benchmark) + " (known: " + known + ")");
    const BenchmarkDef& b = *r.benchmark;
    known.clear();
    for (const auto& m : b.models) {
        known += (known.empty() ? "" : ", ") + m.name;
        if (m.name == c.model) r.model = &m;
    }
    if (!r.model)
        throw UsageError("unknown model " + quoted(c.model) + " for " + b.name + " (known: " + known + ")");
    const ModelDef& m = *r.model;
    if (auto why = b.param.reject(c.param))
        throw UsageError("--param " + quoted(c.param) + " for " + b.name + ": " + *why);
    r.param = c.param;
    if (auto why = kIterations.reject(*c.iterations))
        throw UsageError("--iterations " + quoted(*c.iterations) + ": " + *why);
    r.iterations = static_cast<int>(*parse_int(*c.iterations));
    if (c.workers) {
        if (auto why = kWorkers.reject(*c.workers)) throw UsageError("--workers " + quoted(*c.workers) + ": " + *why);
        r.workers = static_cast<int>(*parse_int(*c.workers));
    } else {
        r.workers = allowed_cpus();
    }
    for (const auto& o : m.options)
        if (o.domain.fallback) r.options[o.key] = *o.domain.fallback == kParamDefault ? c.param : *o.domain.fallback;
    if (!m.shapes.empty()) r.shape = m.shapes.front();
    const Domain shapes = Domain::one_of(m.shapes);
    for (const auto& [key, value] : c.options) {
        const std::string where = " for " + b.name + " --model " + m.name;
        if (key == "shape" && !m.shapes.empty()) {
            if (auto why = shapes.reject(value))
                throw UsageError("unknown shape " + quoted(value) + where + ": " + *why);
            r.shape = value;
            continue;
        }
        auto it = std::find_if(m.options.begin(), m.options.end(), [&](const OptionDef& o) { return o.key == key; });
        if (it == m.options.end()) {
            std::string keys = m.shapes.empty() ? "" : "shape";
            for (const auto& o : m.options) keys += (keys.empty() ? "" : ", ") + o.key;
            throw UsageError("unknown option " + quoted(key) + where + " (known: " + keys + ")");
        }
        if (auto why = it->domain.reject(value))
            throw UsageError("--option " + key + "=" + quoted(value) + where + ": " + *why);
        r.options[key] = value;
        r.given.insert(key);
    }
    return r;
}

std::string compiler_runtime() { return std::string("g++ ") + __VERSION__ + " (C++17, libstdc++ std::thread)"; }

[[noreturn]] void internal_shape(const Request& r) {
    fail("internal error: shape " + r.shape + " of " + r.benchmark->name + " --model " + r.model->name +
         " has no implementation");
}

// ======================= big =======================

Plan prepare_big(const Request& r) {
    BigConfig cfg;
    cfg.n = r.param_int();
    cfg.pings = static_cast<uint64_t>(r.int_option("pings"));
    cfg.hood = std::min(r.int_option("hood"), cfg.n);  // a neighbourhood beyond N is all N workers
    BigShape shape;
    if (r.shape == "pool") shape = BigShape::Pool;
    else if (r.shape == "thread-per-worker") shape = BigShape::ThreadPerWorker;
    else internal_shape(r);
    Plan plan;
    plan.runtime = compiler_runtime();
    auto runner = std::make_shared<std::unique_ptr<BigRunner>>();
    int workers = r.workers;
    plan.setup = [runner, shape, workers] { *runner = std::make_unique<BigRunner>(shape, workers); };
    plan.iterate = [runner, cfg] {
        BigRun run = (*runner)->run(cfg);
        uint64_t messages = 0, checksum = 0, lo = UINT64_MAX, hi = 0;
        for (size_t w = 0; w < run.pings_recv.size(); ++w) {
            messages += run.pings_recv[w] + run.pongs_recv[w];
            checksum += run.pings_recv[w] * static_cast<uint64_t>(w + 1);  // mod 2^64
            lo = std::min(lo, run.pings_recv[w]);
            hi = std::max(hi, run.pings_recv[w]);
        }
        Outcome out;
        out.ns = run.ns;
        out.result = "messages=" + std::to_string(messages) + " checksum=" + std::to_string(checksum);
        out.metric("min_recv", static_cast<int64_t>(lo));
        out.metric("max_recv", static_cast<int64_t>(hi));
        double secs = static_cast<double>(run.ns) / 1e9;
        out.metric("throughput", 2.0 * static_cast<double>(cfg.n) * static_cast<double>(cfg.pings) / secs);
        return out;
    };
    return plan;
}

// ======================= chameneos =======================

// Fairness metrics of one game, names suffixed (the game's creature count for redux).
void game_metrics(const GameReport& g, const std::string& suffix, Outcome& out) {
    double mean = 2.0 * static_cast<double>(g.meetings) / g.creatures;
    double var = 0;
    int64_t lo = g.counts.front(), hi = g.counts.front();
    for (int64_t c : g.counts) {
        double d = static_cast<double>(c) - mean;
        var += d * d;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
    }
    double sd = std::sqrt(var / g.creatures);
    out.metric("fairness_std" + suffix, sd);
    out.metric("cv" + suffix, sd / mean);
    out.metric("min_meetings" + suffix, lo);
    out.metric("max_meetings" + suffix, hi);
}

Plan prepare_chameneos(const Request& r) {
    ChameneosShape shape;
    if (r.shape == "rendezvous") shape = ChameneosShape::Rendezvous;
    else if (r.shape == "rendezvous-condvar") shape = ChameneosShape::RendezvousCondvar;
    else if (r.shape == "best-exchange") shape = ChameneosShape::BestExchange;
    else internal_shape(r);
    bool concurrent = r.option("concurrent_games") == "1";
    Plan plan;
    plan.runtime = compiler_runtime();
    if (r.option("variant") == "encore") {
        if (auto why = kEncoreCreatures.reject(r.param))
            throw UsageError("--param " + quoted(r.param) + " for chameneos variant=encore (C, creatures): " + *why);
        if (concurrent) throw UsageError("--option concurrent_games=1 needs variant=redux (encore has one game)");
        int creatures = static_cast<int>(r.param_int());
        uint64_t meetings = static_cast<uint64_t>(r.int_option("meetings"));
        plan.iterate = [shape, creatures, meetings] {
            EncoreRun run = chameneos_encore(shape, creatures, meetings);
            Outcome out;
            out.ns = run.ns;
            out.result = "meetings=" + std::to_string(run.game.place_meetings) +
                         " creature_meetings=" + std::to_string(run.game.creature_meetings);
            game_metrics(run.game, "", out);
            out.metric("self_meetings", run.game.self_meetings);
            out.metric("colour_sum_mod3", static_cast<int64_t>(run.game.colour_sum_mod3));
            out.metric("throughput", static_cast<double>(meetings) / (static_cast<double>(run.ns) / 1e9));
            return out;
        };
    } else {  // redux
        if (r.given.count("meetings"))
            throw UsageError("--option meetings applies to variant=encore; redux takes n as --param");
        uint64_t n = static_cast<uint64_t>(r.param_int());
        plan.iterate = [shape, n, concurrent] {
            ReduxRun run = chameneos_redux(shape, n, concurrent);
            Outcome out;
            out.ns = run.ns;
            out.result = "meetings3=" + std::to_string(run.a.place_meetings) +
                         " creature_meetings3=" + std::to_string(run.a.creature_meetings) +
                         " meetings10=" + std::to_string(run.b.place_meetings) +
                         " creature_meetings10=" + std::to_string(run.b.creature_meetings);
            game_metrics(run.a, "_3", out);
            game_metrics(run.b, "_10", out);
            out.metric("self_meetings", run.a.self_meetings + run.b.self_meetings);
            out.metric("colour_sum_mod3_3", static_cast<int64_t>(run.a.colour_sum_mod3));
            out.metric("colour_sum_mod3_10", static_cast<int64_t>(run.b.colour_sum_mod3));
            out.metric("throughput", 2.0 * static_cast<double>(n) / (static_cast<double>(run.ns) / 1e9));
            return out;
        };
    }
    return plan;
}

// ======================= fannkuch =======================

Plan prepare_fannkuch(const Request& r) {
    int n = static_cast<int>(r.param_int());
    uint64_t chunks = static_cast<uint64_t>(r.int_option("chunks"));
    int workers = r.workers;
    FannkuchShape shape;
    if (r.shape == "counter") shape = FannkuchShape::Counter;
    else if (r.shape == "parallel-for") shape = FannkuchShape::ParallelFor;
    else if (r.shape == "parallel-reduce") shape = FannkuchShape::ParallelReduce;
    else if (r.shape == "task-group") shape = FannkuchShape::TaskGroup;
    else internal_shape(r);
    Plan plan;
    if (shape == FannkuchShape::Counter) {
        plan.runtime = compiler_runtime();
    } else {
        plan.runtime = std::string("g++ ") + __VERSION__ + ", oneTBB " + TBB_runtime_version();
        // Let TBB use as many threads as the arena asks for, even beyond the CPUs it can see.
        auto control = std::make_shared<std::unique_ptr<tbb::global_control>>();
        plan.setup = [control, workers] {
            *control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                             static_cast<size_t>(workers));
        };
    }
    plan.iterate = [shape, n, chunks, workers] {
        FannkuchRun run = fannkuch_run(shape, n, chunks, workers);
        Outcome out;
        out.ns = run.ns;
        out.result = "maxflips=" + std::to_string(run.totals.maxflips) +
                     " checksum=" + std::to_string(run.totals.checksum);
        return out;
    };
    return plan;
}

// ======================= Cowichan =======================

// What a standalone stage reads, built once before the first iteration by the sequential kernels
// (chain.md rule 3), and the executor of the model that runs the timed stage.
struct CowichanState {
    std::unique_ptr<Cowichan> exec;
    std::unique_ptr<tbb::global_control> control;
    ByteMatrix m, mask;
    std::vector<CowPoint> points;
    Doubles d, v;
};

[[noreturn]] void too_few_candidates(int64_t candidates, int64_t nelts) {
    fail("winnow: " + std::to_string(candidates) + " candidates, fewer than nelts = " + std::to_string(nelts));
}

Plan prepare_cowichan(const Request& r) {
    const std::string stage = r.benchmark->name;
    const int64_t n = r.param_int();
    const int p = static_cast<int>(r.int_option("p"));
    const int64_t nelts = r.int_option("nelts");  // absent: n (kParamDefault)
    const uint32_t seed = static_cast<uint32_t>(r.int_option("seed"));
    const int workers = r.workers;
    CowichanModel model;
    if (r.shape == "parallel-for") model = CowichanModel::Tbb;
    else if (r.shape == "blocks") model = CowichanModel::Threads;
    else internal_shape(r);

    Plan plan;
    plan.runtime = model == CowichanModel::Tbb
                       ? std::string("g++ ") + __VERSION__ + ", oneTBB " + TBB_runtime_version()
                       : compiler_runtime();
    auto st = std::make_shared<CowichanState>();
    plan.setup = [st, stage, model, workers, n, p, nelts, seed] {
        if (model == CowichanModel::Tbb)  // let the arena have its W threads even beyond the CPUs TBB sees
            st->control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                                static_cast<size_t>(workers));
        st->exec = std::make_unique<Cowichan>(model, workers);
        if (stage == "randmat" || stage == "chain") return;
        Cowichan seq(CowichanModel::Seq, 1);
        st->m = seq.randmat(n, seed);
        if (stage == "thresh") return;
        st->mask = seq.thresh(st->m, n, p).mask;
        if (stage == "winnow") return;
        WinnowOut w = seq.winnow(st->m, st->mask, n, nelts);
        if (w.points.empty()) too_few_candidates(w.candidates, nelts);
        st->points = std::move(w.points);
        ByteMatrix().swap(st->m);
        ByteMatrix().swap(st->mask);
        if (stage == "outer") return;
        OuterOut o = seq.outer(st->points);
        st->d = std::move(o.matrix);
        st->v = std::move(o.vector);
    };
    plan.iterate = [st, stage, n, p, nelts, seed] {
        Cowichan& exec = *st->exec;
        Outcome out;
        int64_t t0 = now_ns();
        if (stage == "randmat") {
            ByteMatrix m = exec.randmat(n, seed);
            out.ns = now_ns() - t0;
            out.result = "checksum=" + std::to_string(cowichan_checksum(m));
        } else if (stage == "thresh") {
            ThreshOut th = exec.thresh(st->m, n, p);
            out.ns = now_ns() - t0;
            int64_t kept = 0;
            for (uint8_t b : th.mask) kept += b;
            out.result = "threshold=" + std::to_string(th.threshold) + " kept=" + std::to_string(kept) +
                         " checksum=" + std::to_string(cowichan_checksum(th.mask));
        } else if (stage == "winnow") {
            WinnowOut w = exec.winnow(st->m, st->mask, n, nelts);
            out.ns = now_ns() - t0;
            if (w.points.empty()) too_few_candidates(w.candidates, nelts);
            out.result = "candidates=" + std::to_string(w.candidates) +
                         " checksum=" + std::to_string(cowichan_checksum(w.points));
        } else if (stage == "outer") {
            OuterOut o = exec.outer(st->points);
            out.ns = now_ns() - t0;
            out.result = "matrix=" + std::to_string(cowichan_checksum_q(o.matrix)) +
                         " vector=" + std::to_string(cowichan_checksum_q(o.vector));
        } else if (stage == "product") {
            Doubles res = exec.product(st->d, st->v);
            out.ns = now_ns() - t0;
            out.result = "checksum=" + std::to_string(cowichan_checksum_q(res));
        } else {  // chain
            ChainOut c = exec.chain(n, p, nelts, seed);
            out.ns = now_ns() - t0;
            if (c.r.empty()) too_few_candidates(c.candidates, nelts);
            out.result = "checksum=" + std::to_string(cowichan_checksum_q(c.r));
            const char* names[5] = {"randmat", "thresh", "winnow", "outer", "product"};
            for (int s = 0; s < 5; ++s) out.metric(std::string("stage_") + names[s] + "_ns", c.stage_ns[s]);
        }
        return out;
    };
    return plan;
}

// ======================= mutex, prodcons, condition, threadring =======================

Plan prepare_mutex(const Request& r) {
    const int n = static_cast<int>(r.int_option("n"));
    const uint64_t m = static_cast<uint64_t>(r.param_int());
    const int workers = r.workers;
    MutexShape shape;
    if (r.shape == "lock") shape = MutexShape::Lock;
    else if (r.shape == "spin-mutex") shape = MutexShape::SpinMutex;
    else if (r.shape == "queuing-mutex") shape = MutexShape::QueuingMutex;
    else internal_shape(r);
    Plan plan;
    auto state = std::make_shared<std::pair<std::unique_ptr<tbb::global_control>, std::unique_ptr<MutexRunner>>>();
    if (shape == MutexShape::Lock) {
        plan.runtime = compiler_runtime();
    } else {
        plan.runtime = std::string("g++ ") + __VERSION__ + ", oneTBB " + TBB_runtime_version();
    }
    plan.setup = [state, shape, workers] {
        if (shape != MutexShape::Lock)  // let the arena have its W threads even beyond the CPUs TBB sees
            state->first = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                                 static_cast<size_t>(workers));
        state->second = std::make_unique<MutexRunner>(shape, workers);
    };
    plan.iterate = [state, n, m] {
        CountRun run = state->second->run(n, m);
        Outcome out;
        out.ns = run.ns;
        out.result = "count=" + std::to_string(run.value);
        return out;
    };
    return plan;
}

Plan prepare_prodcons(const Request& r) {
    const int n = static_cast<int>(r.int_option("n"));
    const uint64_t m = static_cast<uint64_t>(r.param_int());
    ProdconsShape shape;
    if (r.shape == "paper") shape = ProdconsShape::Paper;
    else if (r.shape == "notify-each") shape = ProdconsShape::NotifyEach;
    else internal_shape(r);
    Plan plan;
    plan.runtime = compiler_runtime();
    plan.iterate = [shape, n, m] {
        ProdconsRun run = prodcons_run(shape, n, m);
        Outcome out;
        out.ns = run.ns;
        out.result = "consumed=" + std::to_string(run.consumed) + " sum=" + std::to_string(run.sum);
        return out;
    };
    return plan;
}

Plan prepare_condition(const Request& r) {
    const int n = static_cast<int>(r.int_option("n"));
    const uint64_t m = static_cast<uint64_t>(r.param_int());
    ConditionShape shape;
    if (r.shape == "paper") shape = ConditionShape::Paper;
    else if (r.shape == "broadcast") shape = ConditionShape::Broadcast;
    else if (r.shape == "two-cv") shape = ConditionShape::TwoCv;
    else internal_shape(r);
    Plan plan;
    plan.runtime = compiler_runtime();
    plan.iterate = [shape, n, m] {
        CountRun run = condition_run(shape, n, m);
        Outcome out;
        out.ns = run.ns;
        out.result = "value=" + std::to_string(run.value);
        return out;
    };
    return plan;
}

Plan prepare_threadring(const Request& r) {
    const int ring = static_cast<int>(r.int_option("ring"));
    const uint64_t n = static_cast<uint64_t>(r.param_int());
    ThreadringShape shape;
    if (r.shape == "asio-wake") shape = ThreadringShape::AsioWake;
    else if (r.shape == "asio-pool") shape = ThreadringShape::AsioPool;
    else if (r.shape == "blocking") shape = ThreadringShape::Blocking;
    else internal_shape(r);
    Plan plan;
    plan.runtime = compiler_runtime();
    plan.iterate = [shape, ring, n] {
        ThreadringRun run = threadring_run(shape, ring, n);
        Outcome out;
        out.ns = run.ns;
        out.result = "id=" + std::to_string(run.id);
        return out;
    };
    return plan;
}

// ======================= philosophers =======================

Plan prepare_philosophers(const Request& r) {
    const int n = static_cast<int>(r.int_option("n"));
    const uint64_t m = static_cast<uint64_t>(r.param_int());
    PhilosophersShape shape;
    if (r.shape == "scoped-lock") shape = PhilosophersShape::ScopedLock;
    else internal_shape(r);
    Plan plan;
    plan.runtime = compiler_runtime();
    plan.iterate = [shape, n, m] {
        PhilosophersRun run = philosophers_run(shape, n, m);
        uint64_t meals = 0, lo = UINT64_MAX, hi = 0;
        for (uint64_t k : run.meals) {
            meals += k;
            lo = std::min(lo, k);
            hi = std::max(hi, k);
        }
        Outcome out;
        out.ns = run.ns;
        out.result = "meals=" + std::to_string(meals) + " fork_uses=" + std::to_string(run.fork_uses) +
                     " overlaps=" + std::to_string(run.overlaps);
        out.metric("min_meals", static_cast<int64_t>(lo));
        out.metric("max_meals", static_cast<int64_t>(hi));
        return out;
    };
    return plan;
}

}  // namespace
}  // namespace cb

int main(int argc, char** argv) {
    using namespace cb;
    if (argc == 2 && std::string(argv[1]) == "describe") {
        print_line(describe_table());
        return 0;
    }
    Request request;
    Plan plan;
    try {
        request = resolve(parse_command_line(argc, argv));
        plan = request.benchmark->prepare(request);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "concbench-cpp: %s\n", e.what());
        return 2;
    }

    print_line(Json::object().set("hello", Json::object()
                                               .set("protocol", Json::integer(kProtocol))
                                               .set("language", Json::string("cpp"))
                                               .set("runtime", Json::string(plan.runtime))
                                               .set("model", Json::string(request.model->name))));
    Outcome last;
    try {
        if (plan.setup) plan.setup();
        for (int i = 0; i < request.iterations; ++i) {
            last = plan.iterate();
            print_line(Json::object()
                           .set("iteration", Json::integer(i))
                           .set("ns", Json::integer(last.ns))
                           .set("result", Json::string(last.result)));
        }
    } catch (const std::bad_alloc&) {  // e.g. a Cowichan n whose matrices do not fit
        fail(request.benchmark->name + ": out of memory");
    } catch (const std::length_error& e) {
        fail(request.benchmark->name + ": " + e.what());
    }
    if (!last.metrics.empty()) {
        Json metrics = Json::object();
        for (auto& [name, value] : last.metrics) metrics.set(name, std::move(value));
        print_line(Json::object().set("metrics", std::move(metrics)));
    }
    return 0;
}

/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "autotune.h"
#include <gnuradio/gpudsp/runtime/data_dir.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpudsp {
namespace runtime {

namespace {

constexpr int schema = 1;
constexpr double keep_heuristic_within = 1.03; // 3%
constexpr double max_spread = 0.10;            // interquartile range / median
constexpr int min_rounds = 3, max_rounds = 25;
constexpr double min_batch_s = 1e-3; // events resolve ~0.5 us: batches of >= 1 ms
constexpr int max_batch = 1000;
constexpr int max_sets = 8;

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t0)
{
    return std::chrono::duration<double>(steady::now() - t0).count();
}

std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

// -------------------------------------------------------------- files

bool make_dirs(const std::string& path)
{
    if (path.empty())
        return false;
    std::string partial;
    std::stringstream ss(path);
    std::string part;
    if (path[0] == '/')
        partial = "/";
    while (std::getline(ss, part, '/')) {
        if (part.empty())
            continue;
        partial += part + "/";
        if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
            return false;
    }
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool read_file(const std::string& path, std::string& text)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return false;
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
    return bool(f) || f.eof();
}

// An exclusive advisory lock on a file, held for the object's life (none
// when the file cannot be opened: tuning and reading still work).
class file_lock
{
public:
    explicit file_lock(const std::string& path)
    {
        if (path.empty())
            return;
        d_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (d_fd >= 0 && ::flock(d_fd, LOCK_EX) != 0) {
            ::close(d_fd);
            d_fd = -1;
        }
    }
    ~file_lock()
    {
        if (d_fd >= 0) {
            ::flock(d_fd, LOCK_UN);
            ::close(d_fd);
        }
    }
    file_lock(const file_lock&) = delete;
    file_lock& operator=(const file_lock&) = delete;

private:
    int d_fd = -1;
};

std::string slug(const std::string& s)
{
    std::string out;
    for (const char c : s)
        out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
}

uint64_t fnv1a(const std::string& s)
{
    uint64_t h = 1469598103934665603ull;
    for (const char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

// ---------------------------------------------------------- statistics

double quantile(const std::vector<double>& sorted, double q)
{
    const double pos = q * double(sorted.size() - 1);
    const std::size_t i = std::size_t(pos);
    const double f = pos - double(i);
    return i + 1 < sorted.size() ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}

candidate_timing summarise(const std::string& id, std::vector<double> samples)
{
    candidate_timing t;
    t.id = id;
    t.status = "timed";
    std::sort(samples.begin(), samples.end());
    t.samples = int(samples.size());
    if (samples.empty())
        return t;
    t.min_s = samples.front();
    t.median_s = quantile(samples, 0.5);
    t.q1_s = quantile(samples, 0.25);
    t.q3_s = quantile(samples, 0.75);
    return t;
}

const candidate_timing* find_timing(const std::vector<candidate_timing>& ts,
                                    const std::string& id)
{
    for (const auto& t : ts)
        if (t.id == id)
            return &t;
    return nullptr;
}

std::string utc_now()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

json::value recorded_versions(const device_info& d)
{
    json::value r = json::value::object();
    r.set("driver", d.driver_version);
    r.set("runtime", d.runtime_version);
    r.set("module", GPUDSP_MODULE_VERSION);
    r.set("date", utc_now());
    return r;
}

// A stale entry still serves (the key matched), with a note when what
// measured it differs from what runs now.
void note_versions(const json::value& recorded,
                   const device_info& d,
                   const char* where,
                   std::vector<std::string>& notes)
{
    std::string differs;
    auto check = [&](const char* name, const json::value& now) {
        const json::value& then = recorded[name];
        if (!then.is_null() && then != now)
            differs += std::string(differs.empty() ? "" : ", ") + name + " " +
                       json::dump(then) + " then, " + json::dump(now) + " now";
    };
    check("driver", json::value(d.driver_version));
    check("runtime", json::value(d.runtime_version));
    check("module", json::value(GPUDSP_MODULE_VERSION));
    if (!differs.empty())
        notes.push_back(std::string(where) + " entry measured with other versions (" +
                        differs + "); used (retune with GPUDSP_AUTOTUNE=force)");
}

// One in-process lock per device: timings on a device are not shared.
std::mutex& device_mutex(backend_kind kind, int device)
{
    static std::mutex guard;
    static std::map<std::pair<int, int>, std::unique_ptr<std::mutex>> locks;
    std::lock_guard<std::mutex> lock(guard);
    auto& m = locks[{ int(kind), device }];
    if (!m)
        m = std::make_unique<std::mutex>();
    return *m;
}

void random_bytes(void* host, std::size_t bytes, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    auto* p = static_cast<unsigned char*>(host);
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        const uint64_t v = rng();
        std::memcpy(p + i, &v, 8);
    }
    const uint64_t v = rng();
    std::memcpy(p + i, &v, bytes - i);
}

// Tuning could not start (no memory for its buffers): the heuristic runs.
struct not_tuned : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Device memory for the timing runs: input/output sets rotated so that
// successive runs do not find their input in the L2.
struct tuning_buffers {
    std::vector<std::unique_ptr<device_memory>> in, out;
};

class tuning_session
{
public:
    tuning_session(const tune_problem& p,
                   const device_context::sptr& ctx,
                   const device_info& dev,
                   const std::string& who,
                   const tune_options& o,
                   std::vector<std::string>& notes)
        : d_p(p), d_sp(ctx), d_ctx(*ctx), d_dev(dev), d_who(who), d_o(o), d_notes(notes)
    {
    }

    // The candidates' timings (rejected and failed ones with their status).
    std::vector<candidate_timing> run()
    {
        device_stream stream(d_sp, d_who + " (tuner)");
        try {
            if (d_p.prepare)
                d_p.prepare();
            allocate(stream);
        } catch (const device_error& e) {
            throw not_tuned(e.what());
        }

        // The heuristic's output is the reference; each candidate's first run
        // (lazy loading, JIT, first touch) is the check of its output.
        const tune_candidate* heuristic = nullptr;
        for (const auto& c : d_p.candidates)
            if (c.id == d_p.heuristic)
                heuristic = &c;
        if (!heuristic || !heuristic->unavailable.empty())
            throw std::logic_error(d_who + ": tuner: the heuristic candidate \"" +
                                   d_p.heuristic + "\" is not available");
        output_of(*heuristic, stream, d_expected); // throws

        std::vector<candidate_timing> timings;
        std::vector<const tune_candidate*> timed;
        for (const auto& c : d_p.candidates) {
            candidate_timing t;
            t.id = c.id;
            if (!c.unavailable.empty()) {
                t.status = "unavailable: " + c.unavailable;
            } else if (&c == heuristic) {
                t.status = "timed";
                timed.push_back(&c);
            } else {
                try {
                    output_of(c, stream, d_got);
                    const std::string why = compare(d_expected, d_got);
                    if (why.empty()) {
                        t.status = "timed";
                        timed.push_back(&c);
                    } else {
                        t.status = "rejected: " + why;
                        d_notes.push_back(d_p.kernel + " candidate " + c.id +
                                          " rejected: its output differs from " +
                                          d_p.heuristic + "'s (" + why + ")");
                    }
                } catch (const candidate_unavailable& e) {
                    t.status = std::string("unavailable: ") + e.what();
                    stream.synchronize();
                } catch (const std::exception& e) {
                    // A launch the device refuses (resources) is skipped; a
                    // device left unusable (a sticky error) ends tuning.
                    t.status = std::string("failed: ") + e.what();
                    d_notes.push_back(d_p.kernel + " candidate " + c.id +
                                      " failed: " + e.what());
                    stream.synchronize();
                }
            }
            timings.push_back(t);
        }

        // Batches of at least min_batch_s, from one timed run each.
        std::map<const tune_candidate*, int> batch;
        for (const auto* c : timed) {
            const double once = time_batch(*c, 1, 0, stream);
            batch[c] = std::clamp(
                int(std::ceil(min_batch_s / std::max(once, 1e-9))), 1, max_batch);
        }

        // Interleaved rounds, each starting one candidate later, until the
        // budget is spent (at least min_rounds unless that takes 5 budgets).
        // The budget is the rounds': the set-up and the output checks before
        // them (seconds for an X-engine problem's visibilities) are not
        // timing, and counting them left such problems one round, unsaved.
        std::map<const tune_candidate*, std::vector<double>> samples;
        int rounds = 0;
        const auto rounds_start = steady::now();
        while (rounds < max_rounds) {
            const double spent = seconds_since(rounds_start);
            if (rounds >= min_rounds && spent >= d_o.budget_s)
                break;
            if (rounds > 0 && spent >= 5 * d_o.budget_s)
                break;
            for (std::size_t k = 0; k < timed.size(); ++k) {
                const tune_candidate* c = timed[(k + std::size_t(rounds)) % timed.size()];
                const double s = time_batch(*c, batch[c], rounds, stream);
                samples[c].push_back(s / (batch[c] * c->work));
            }
            ++rounds;
        }
        if (rounds < min_rounds)
            d_notes.push_back(d_p.kernel + ": only " + std::to_string(rounds) +
                              " timing round(s) fit the budget of " +
                              fmt("%.2f", d_o.budget_s) +
                              " s (GPUDSP_AUTOTUNE_BUDGET): the result is not saved");
        for (auto& t : timings)
            for (const auto* c : timed)
                if (c->id == t.id)
                    t = summarise(c->id, samples[c]);
        return timings;
    }

private:
    void allocate(device_stream& stream)
    {
        const std::size_t in = std::max<std::size_t>(d_p.input_bytes, 1);
        const std::size_t out = std::max<std::size_t>(d_p.output_bytes, 1);
        const std::size_t l2 = std::max<std::size_t>(d_dev.l2_bytes, 1);
        int sets = int(std::min<std::size_t>(max_sets, (2 * l2 + in - 1) / in));
        sets = std::max(sets, 1);
        // Within a quarter of the free memory (at least one set).
        const std::size_t free = d_ctx.free_memory();
        while (sets > 1 && std::size_t(sets) * (in + out) > free / 4)
            --sets;
        std::vector<char> host(in);
        for (int s = 0; s < sets; ++s) {
            d_bufs.in.push_back(
                std::make_unique<device_memory>(d_sp, in, d_who + " (tuner)"));
            d_bufs.out.push_back(
                std::make_unique<device_memory>(d_sp, out, d_who + " (tuner)"));
            const uint64_t seed = 0x9e3779b97f4a7c15ull * uint64_t(s + 1);
            if (d_p.fill)
                d_p.fill(host.data(), d_p.input_bytes, seed);
            else
                random_bytes(host.data(), in, seed);
            d_ctx.copy_async(d_bufs.in.back()->get(),
                             host.data(),
                             in,
                             copy_kind::host_to_device,
                             stream.get(),
                             d_who);
        }
        stream.synchronize();
    }

    // A candidate's output, copied into \p host, kept across candidates. An
    // X-engine problem's visibilities are 0.3-0.5 GB: a fresh 512 MiB
    // vector filled by a copy took 0.95 s on the 2-core dev VM and a byte
    // loop over it 0.18 s, against 0.05 s to refill a reused one and 0.04 s
    // for memcmp; the H200 machine tuned such problems in 5-10 s against a
    // 0.5 s budget.
    void
    output_of(const tune_candidate& c, device_stream& stream, std::vector<char>& host)
    {
        auto& out = *d_bufs.out[0];
        if (c.select)
            c.select();
        d_ctx.memset_async(out.get(), 0xA5, out.size(), stream.get(), d_who); // poison
        if (d_p.result)
            d_p.result(c, d_bufs.in[0]->get(), out.get(), stream.get());
        else
            c.run(d_bufs.in[0]->get(), out.get(), stream.get());
        host.resize(out.size());
        d_ctx.copy_async(host.data(),
                         out.get(),
                         out.size(),
                         copy_kind::device_to_host,
                         stream.get(),
                         d_who);
        stream.synchronize();
        if (d_p.host_timed && d_p.device_seconds && !(d_p.device_seconds() > 0)) {
            // (the heuristic's own: nothing can be compared, the plan runs untuned)
            if (c.id == d_p.heuristic)
                throw not_tuned(c.id + "'s run reported no device time");
            throw candidate_unavailable("its run reported no device time");
        }
    }

    std::string compare(const std::vector<char>& expected, const std::vector<char>& got)
    {
        if (d_p.compare)
            return d_p.compare(expected.data(), got.data());
        if (std::memcmp(expected.data(), got.data(), expected.size()) == 0)
            return "";
        const auto at =
            std::mismatch(expected.begin(), expected.end(), got.begin()).first -
            expected.begin();
        return "byte " + std::to_string(at) + " of " + std::to_string(expected.size()) +
               " differs";
    }

    // Seconds for \p n runs of \p c, rotating the buffer sets.
    double time_batch(const tune_candidate& c, int n, int round, device_stream& stream)
    {
        if (c.select) // (before the clock starts: switching is not the candidate's time)
            c.select();
        if (d_o.timer) {
            double s = 0;
            for (int i = 0; i < n; ++i)
                s += d_o.timer(c, round);
            return s;
        }
        const std::size_t sets = d_bufs.in.size();
        if (d_p.host_timed && d_p.device_seconds) {
            double device = 0;
            for (int i = 0; i < n; ++i) {
                const std::size_t s = d_next++ % sets;
                c.run(d_bufs.in[s]->get(), d_bufs.out[s]->get(), stream.get());
                stream.synchronize();
                const double one = d_p.device_seconds();
                if (!(one > 0)) // (a later run: output_of checked the first)
                    throw not_tuned(c.id + "'s run reported no device time");
                device += one;
            }
            return device;
        }
        if (d_p.host_timed) {
            const auto t0 = steady::now();
            for (int i = 0; i < n; ++i) {
                const std::size_t s = d_next++ % sets;
                c.run(d_bufs.in[s]->get(), d_bufs.out[s]->get(), stream.get());
            }
            stream.synchronize();
            return seconds_since(t0);
        }
        d_ctx.event_record(d_start, stream.get(), d_who);
        for (int i = 0; i < n; ++i) {
            const std::size_t s = d_next++ % sets;
            c.run(d_bufs.in[s]->get(), d_bufs.out[s]->get(), stream.get());
        }
        d_ctx.event_record(d_end, stream.get(), d_who);
        d_ctx.event_synchronize(d_end, d_who);
        return d_ctx.elapsed_seconds(d_start, d_end, d_who);
    }

    struct timer_event {
        timer_event(device_context& ctx, const std::string& who)
            : ctx(ctx), e(ctx.timer_create(who))
        {
        }
        ~timer_event() { ctx.event_destroy(e); }
        operator event_handle() const { return e; }
        device_context& ctx;
        event_handle e;
    };

    const tune_problem& d_p;
    device_context::sptr d_sp;
    device_context& d_ctx;
    const device_info& d_dev;
    const std::string& d_who;
    const tune_options& d_o;
    std::vector<std::string>& d_notes;
    tuning_buffers d_bufs;
    std::vector<char> d_expected, d_got; // the heuristic's output, a candidate's
    timer_event d_start{ d_ctx, d_who }, d_end{ d_ctx, d_who };
    std::size_t d_next = 0;
};

} // namespace

// ------------------------------------------------------------ the mode

tune_mode autotune_mode()
{
    const char* e = std::getenv("GPUDSP_AUTOTUNE");
    const std::string v = e ? e : "";
    if (v.empty() || v == "auto")
        return tune_mode::automatic;
    if (v == "off")
        return tune_mode::off;
    if (v == "cache")
        return tune_mode::cache;
    if (v == "force")
        return tune_mode::force;
    throw std::invalid_argument("GPUDSP_AUTOTUNE must be \"off\", \"cache\", \"auto\" or "
                                "\"force\", got \"" +
                                v + "\"");
}

const char* to_string(tune_mode mode)
{
    switch (mode) {
    case tune_mode::off:
        return "off";
    case tune_mode::cache:
        return "cache";
    case tune_mode::automatic:
        return "auto";
    default:
        return "force";
    }
}

const char* to_string(tune_source source)
{
    switch (source) {
    case tune_source::heuristic:
        return "heuristic";
    case tune_source::tuned:
        return "tuned now";
    case tune_source::cache:
        return "cache";
    case tune_source::shipped:
        return "shipped table";
    default:
        return "forced";
    }
}

std::string tune_result::describe() const
{
    std::string s = kernel + " [" + shape + "]: " + chosen + " (" + to_string(source);
    if (source == tune_source::tuned)
        s += " in " + fmt("%.2f", seconds_spent) + " s";
    const candidate_timing* c = find_timing(candidates, chosen);
    const candidate_timing* h = find_timing(candidates, heuristic);
    if (chosen != heuristic && c && h && c->median_s > 0 && h->median_s > 0 &&
        h->status == "timed")
        s += "; heuristic " + heuristic + " " + fmt("%.2f", h->median_s / c->median_s) +
             "x slower";
    return s + ")";
}

tune_options tune_options::from_environment()
{
    tune_options o;
    o.mode = autotune_mode();
    if (const char* b = std::getenv("GPUDSP_AUTOTUNE_BUDGET")) {
        char* end = nullptr;
        const double v = std::strtod(b, &end);
        if (!*b || *end || !(v > 0) || v > 3600)
            throw std::invalid_argument(
                std::string(
                    "GPUDSP_AUTOTUNE_BUDGET must be seconds in (0, 3600], got \"") +
                b + "\"");
        o.budget_s = v;
    }
    if (const char* d = std::getenv("GPUDSP_AUTOTUNE_DIR"); d && *d) {
        o.cache_dir = d;
    } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
        o.cache_dir = std::string(x) + "/gr-gpudsp";
    } else if (const char* h = std::getenv("HOME"); h && *h) {
        o.cache_dir = std::string(h) + "/.cache/gr-gpudsp";
    }
    o.table_dirs.push_back(data_dir() + "/tuning");
    return o;
}

// ------------------------------------------------------------ the key

tune_key tune_key::of(const tune_problem& p, const device_info& d)
{
    tune_key k;
    k.gpu = d.name;
    k.cc_major = d.compute_major;
    k.cc_minor = d.compute_minor;
    k.multiprocessors = d.multiprocessors;
    k.l2_bytes = d.l2_bytes;
    k.kernel = p.kernel;
    k.version = p.version;
    k.shape = p.shape;
    for (const auto& c : p.candidates)
        k.candidates += (k.candidates.empty() ? "" : ";") + c.id;
    return k;
}

json::value tune_key::to_json() const
{
    json::value v = json::value::object();
    v.set("gpu", gpu);
    v.set("compute_capability",
          std::to_string(cc_major) + "." + std::to_string(cc_minor));
    v.set("multiprocessors", multiprocessors);
    v.set("l2_bytes", l2_bytes);
    v.set("kernel", kernel);
    v.set("version", version);
    v.set("shape", shape);
    v.set("candidates", candidates);
    return v;
}

tune_key tune_key::from_json(const json::value& v)
{
    tune_key k;
    k.gpu = v["gpu"].as_string("key.gpu");
    const std::string cc = v["compute_capability"].as_string("key.compute_capability");
    if (std::sscanf(cc.c_str(), "%d.%d", &k.cc_major, &k.cc_minor) != 2)
        throw std::runtime_error("key.compute_capability must be \"major.minor\"");
    k.multiprocessors = int(v["multiprocessors"].as_number("key.multiprocessors"));
    k.l2_bytes = std::size_t(v["l2_bytes"].as_number("key.l2_bytes"));
    k.kernel = v["kernel"].as_string("key.kernel");
    k.version = int(v["version"].as_number("key.version"));
    k.shape = v["shape"].as_string("key.shape");
    k.candidates = v["candidates"].as_string("key.candidates");
    return k;
}

bool tune_key::same_model_and_problem(const tune_key& o) const
{
    return gpu == o.gpu && cc_major == o.cc_major && cc_minor == o.cc_minor &&
           kernel == o.kernel && version == o.version && shape == o.shape &&
           candidates == o.candidates;
}

bool tune_key::operator==(const tune_key& o) const
{
    return same_model_and_problem(o) && multiprocessors == o.multiprocessors &&
           l2_bytes == o.l2_bytes;
}

std::string tune_key::file_name() const
{
    char hash[17];
    std::snprintf(
        hash, sizeof hash, "%016llx", (unsigned long long)fnv1a(json::dump(to_json())));
    return slug(kernel) + "-" + hash + ".json";
}

// ---------------------------------------------------------- the entries

json::value tune_entry::to_json() const
{
    json::value v = json::value::object();
    v.set("schema", schema);
    v.set("key", key.to_json());
    v.set("winner", winner);
    v.set("heuristic", heuristic);
    v.set("unit", unit);
    json::value cs = json::value::array();
    for (const auto& c : candidates) {
        json::value e = json::value::object();
        e.set("id", c.id);
        e.set("status", c.status);
        if (c.samples > 0) {
            e.set("median_s", c.median_s);
            e.set("min_s", c.min_s);
            e.set("q1_s", c.q1_s);
            e.set("q3_s", c.q3_s);
            e.set("samples", c.samples);
        }
        cs.push(std::move(e));
    }
    v.set("candidates", std::move(cs));
    v.set("recorded", recorded.is_null() ? json::value::object() : recorded);
    return v;
}

tune_entry tune_entry::from_json(const json::value& v)
{
    if (!v.is_object())
        throw std::runtime_error("an entry must be an object");
    if (v["schema"].as_number("schema") != schema)
        throw std::runtime_error("schema " + json::dump(v["schema"]) + ", not " +
                                 std::to_string(schema));
    tune_entry e;
    e.key = tune_key::from_json(v["key"]);
    e.winner = v["winner"].as_string("winner");
    e.heuristic = v["heuristic"].as_string("heuristic");
    e.unit = v["unit"].is_null() ? "" : v["unit"].as_string("unit");
    for (const auto& c : v["candidates"].as_array("candidates")) {
        candidate_timing t;
        t.id = c["id"].as_string("candidates[].id");
        t.status = c["status"].as_string("candidates[].status");
        if (!c["samples"].is_null()) {
            t.samples = int(c["samples"].as_number("candidates[].samples"));
            t.median_s = c["median_s"].as_number("candidates[].median_s");
            t.min_s = c["min_s"].as_number("candidates[].min_s");
            t.q1_s = c["q1_s"].as_number("candidates[].q1_s");
            t.q3_s = c["q3_s"].as_number("candidates[].q3_s");
        }
        e.candidates.push_back(t);
    }
    e.recorded = v["recorded"];
    return e;
}

bool cache_load(const std::string& dir,
                const tune_key& key,
                tune_entry& entry,
                std::vector<std::string>& notes)
{
    if (dir.empty())
        return false;
    const std::string path = dir + "/" + key.file_name();
    std::string text;
    if (!read_file(path, text))
        return false; // a miss
    try {
        tune_entry e = tune_entry::from_json(json::parse(text));
        if (!(e.key == key)) {
            notes.push_back("tuning cache " + path +
                            " holds another key (a hash collision or an edited file): "
                            "ignored");
            return false;
        }
        entry = std::move(e);
        return true;
    } catch (const std::exception& ex) {
        notes.push_back("tuning cache " + path + " is unreadable (" + ex.what() +
                        "): ignored, and replaced when this problem is tuned");
        return false;
    }
}

bool cache_store(const std::string& dir,
                 const tune_entry& entry,
                 std::vector<std::string>& notes)
{
    if (dir.empty())
        return false;
    if (!make_dirs(dir)) {
        notes.push_back("tuning cache folder " + dir + " cannot be created (" +
                        std::strerror(errno) +
                        "): the result is used but not saved (GPUDSP_AUTOTUNE_DIR)");
        return false;
    }
    const std::string path = dir + "/" + entry.key.file_name();
    std::ostringstream tmp_name;
    tmp_name << path << ".tmp." << getpid() << "." << std::this_thread::get_id();
    const std::string tmp = tmp_name.str();
    file_lock lock(dir + "/.lock");
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << json::dump(entry.to_json(), 1) << "\n";
        f.flush();
        if (!f) {
            std::remove(tmp.c_str());
            notes.push_back("tuning cache " + dir +
                            " is not writable: the result is used but not saved "
                            "(GPUDSP_AUTOTUNE_DIR)");
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        notes.push_back("tuning cache " + path + " cannot be replaced (" +
                        std::strerror(errno) + "): the result is used but not saved");
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

bool shipped_lookup(const std::vector<std::string>& dirs,
                    const tune_key& key,
                    tune_entry& entry,
                    std::vector<std::string>& notes)
{
    for (const auto& dir : dirs) {
        DIR* d = opendir(dir.c_str());
        if (!d)
            continue;
        std::vector<std::string> files;
        while (const dirent* f = readdir(d)) {
            const std::string name = f->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
                files.push_back(dir + "/" + name);
        }
        closedir(d);
        // Newest first: tables are named after their GPU and date
        // (data/tuning/README.md), and a later sweep of the same problem
        // replaces an earlier one (in name order the oldest answered).
        std::sort(files.rbegin(), files.rend());
        for (const auto& path : files) {
            std::string text;
            if (!read_file(path, text))
                continue;
            try {
                const json::value table = json::parse(text);
                for (const auto& v : table["entries"].as_array("entries")) {
                    tune_entry e = tune_entry::from_json(v);
                    if (e.key.same_model_and_problem(key)) {
                        entry = std::move(e);
                        return true;
                    }
                }
            } catch (const std::exception& ex) {
                notes.push_back("shipped tuning table " + path + " is unreadable (" +
                                ex.what() + "): ignored");
            }
        }
    }
    return false;
}

// ------------------------------------------------------------ the rule

bool too_noisy(const candidate_timing& t)
{
    return t.samples < min_rounds || !(t.median_s > 0) ||
           (t.q3_s - t.q1_s) > max_spread * t.median_s;
}

bool clearly_faster(const candidate_timing& a, const candidate_timing& b)
{
    return a.samples >= min_rounds && b.samples >= min_rounds && a.q3_s > 0 &&
           a.q3_s < b.q1_s;
}

std::string choose_candidate(const std::vector<candidate_timing>& timings,
                             const std::string& heuristic)
{
    const candidate_timing* best = nullptr;
    for (const auto& t : timings)
        if (t.status == "timed" && t.samples > 0 &&
            (!best || t.median_s < best->median_s))
            best = &t;
    if (!best)
        return heuristic;
    const candidate_timing* h = find_timing(timings, heuristic);
    if (h && h->status == "timed" && h->samples > 0 &&
        h->median_s <= best->median_s * keep_heuristic_within)
        return heuristic;
    return best->id;
}

// ------------------------------------------------------------ the tuner

tune_result autotune(const tune_problem& p,
                     const device_context::sptr& ctx_ptr,
                     const std::string& who,
                     const tune_options& o)
{
    device_context& ctx = *ctx_ptr;
    tune_result r;
    r.kernel = p.kernel;
    r.shape = p.shape;
    r.heuristic = p.heuristic;
    r.chosen = p.heuristic;
    r.unit = p.unit;

    auto available = [&](const std::string& id) {
        for (const auto& c : p.candidates)
            if (c.id == id)
                return c.unavailable.empty();
        return false;
    };
    if (!p.forced.empty()) {
        r.chosen = p.forced;
        r.source = tune_source::forced;
        return r;
    }
    int n_available = 0;
    for (const auto& c : p.candidates)
        n_available += c.unavailable.empty();
    if (o.mode == tune_mode::off || n_available < 2)
        return r; // nothing to choose

    const device_info dev = ctx.info();
    const tune_key key = tune_key::of(p, dev);
    r.key = json::dump(key.to_json());
    auto from_entry = [&](const tune_entry& e, tune_source source, const char* where) {
        if (!available(e.winner)) {
            r.notes.push_back(std::string(where) + " entry for " + p.kernel + " [" +
                              p.shape + "] names " + e.winner +
                              ", which cannot run here: ignored");
            return false;
        }
        r.chosen = e.winner;
        r.source = source;
        r.candidates = e.candidates;
        note_versions(e.recorded, dev, where, r.notes);
        return true;
    };
    if (o.mode != tune_mode::force) {
        tune_entry e;
        if (cache_load(o.cache_dir, key, e, r.notes) &&
            from_entry(e, tune_source::cache, "cache"))
            return r;
        if (shipped_lookup(o.table_dirs, key, e, r.notes) &&
            from_entry(e, tune_source::shipped, "shipped table"))
            return r;
        if (o.mode == tune_mode::cache) {
            r.notes.push_back(p.kernel + " [" + p.shape +
                              "]: not in the cache or a shipped table (GPUDSP_AUTOTUNE="
                              "cache): the heuristic runs");
            return r;
        }
    }

    // Time it: one tuner per device (in this process and, through a lock
    // file beside the cache, in others).
    const auto t0 = steady::now();
    std::lock_guard<std::mutex> in_process(device_mutex(ctx.kind(), ctx.device()));
    const bool have_dir = make_dirs(o.cache_dir);
    file_lock across_processes(have_dir ? o.cache_dir + "/.tuning-" + slug(dev.name) +
                                              "-" + std::to_string(ctx.device()) + ".lock"
                                        : "");
    std::vector<candidate_timing> timings;
    try {
        timings = tuning_session(p, ctx_ptr, dev, who, o, r.notes).run();
    } catch (const not_tuned& e) {
        r.notes.push_back(p.kernel + " [" + p.shape + "]: not tuned (" + e.what() +
                          "): the heuristic runs");
        r.seconds_spent = seconds_since(t0);
        return r;
    }
    r.seconds_spent = seconds_since(t0);
    r.candidates = timings;
    r.chosen = choose_candidate(timings, p.heuristic);
    r.source = tune_source::tuned;

    const candidate_timing* w = find_timing(timings, r.chosen);
    const candidate_timing* h = find_timing(timings, p.heuristic);
    if ((w && too_noisy(*w)) || (h && too_noisy(*h))) {
        // The H200 of 2026-11-27: LDPC chunks of 128 codewords against the
        // heuristic's 512, quartiles 6.8-10.1 us against 27.1-27.3, were
        // never saved for their spread alone.
        if (!(w && h && w != h && clearly_faster(*w, *h))) {
            r.notes.push_back(
                p.kernel + " [" + p.shape +
                "]: timings too spread to trust (interquartile range over "
                "10% of the median, or under 3 rounds): used now, not saved");
            return r;
        }
        r.notes.push_back(
            p.kernel + " [" + p.shape +
            "]: timings spread, but the winner's slowest quartile beats the "
            "heuristic's fastest: saved");
    }
    tune_entry e;
    e.key = key;
    e.winner = r.chosen;
    e.heuristic = p.heuristic;
    e.unit = p.unit;
    e.candidates = timings;
    e.recorded = recorded_versions(dev);
    r.saved = cache_store(o.cache_dir, e, r.notes);
    return r;
}

tune_result
untuned(const std::string& kernel, const std::string& shape, const std::string& chosen)
{
    tune_result r;
    r.kernel = kernel;
    r.shape = shape;
    r.chosen = r.heuristic = chosen;
    return r;
}

tune_result
autotune(const tune_problem& p, const device_context::sptr& ctx, const std::string& who)
{
    return autotune(p, ctx, who, tune_options::from_environment());
}

std::string configuration_from_environment(const char* variable,
                                           const std::vector<std::string>& ids,
                                           const std::string& who)
{
    const char* env = std::getenv(variable);
    if (!env || !*env)
        return "";
    if (std::find(ids.begin(), ids.end(), env) != ids.end())
        return env;
    std::string known;
    for (const auto& id : ids)
        known += (known.empty() ? "\"" : ", \"") + id + "\"";
    throw std::invalid_argument(
        who + ": " + variable + "=\"" + env + "\" is not a configuration of this plan (" +
        (known.empty() ? "it has none to choose from" : known) + ")");
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr

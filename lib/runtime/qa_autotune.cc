/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The plan-time tuner (runtime/autotune.h) on the emulated device: the
// decision rule with an injected timer, output checks, the cache and the
// shipped tables, and real event timing. Runs with GPUDSP_AUTOTUNE unset
// (its own modes are passed explicitly).

#include "qa_common.h"
#include "runtime/autotune.h"
#include "runtime/json.h"
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

using namespace gr::gpudsp::runtime;

namespace {

using qa::temp_dir;

std::string slurp(const std::string& path)
{
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

bool exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

constexpr std::size_t n_bytes = 4096;

// Candidates on the emulated device: "copy" (the heuristic) and "copy
// reversed twice" write the input to the output; "wrong" flips a byte;
// "throws" fails in its work; "absent" cannot run here.
std::vector<tune_candidate> test_candidates(const device_context::sptr& ctx)
{
    auto copy = [ctx](const void* in, void* out, stream_handle s) {
        ctx->enqueue_host_work(
            s, [in, out] { std::memcpy(out, in, n_bytes); }, { { out, n_bytes } }, "qa");
    };
    auto twice = [ctx](const void* in, void* out, stream_handle s) {
        ctx->enqueue_host_work(
            s,
            [in, out] {
                auto* o = static_cast<unsigned char*>(out);
                const auto* i = static_cast<const unsigned char*>(in);
                for (std::size_t k = 0; k < n_bytes; ++k)
                    o[n_bytes - 1 - k] = i[k];
                std::reverse(o, o + n_bytes);
            },
            { { out, n_bytes } },
            "qa");
    };
    auto wrong = [ctx](const void* in, void* out, stream_handle s) {
        ctx->enqueue_host_work(
            s,
            [in, out] {
                std::memcpy(out, in, n_bytes);
                static_cast<unsigned char*>(out)[17] ^= 1;
            },
            { { out, n_bytes } },
            "qa");
    };
    auto throws = [ctx](const void*, void* out, stream_handle s) {
        ctx->enqueue_host_work(
            s,
            [] { throw std::runtime_error("too many resources requested for launch"); },
            { { out, n_bytes } },
            "qa");
    };
    return { { "copy", "", 1, copy },
             { "twice", "", 1, twice },
             { "wrong", "", 1, wrong },
             { "throws", "", 1, throws },
             { "absent", "needs a GPU this machine lacks", 1, copy } };
}

tune_problem test_problem(const device_context::sptr& ctx)
{
    tune_problem p;
    p.kernel = "qa_kernel";
    p.version = 3;
    p.shape = "n=4096";
    p.unit = "byte";
    p.candidates = test_candidates(ctx);
    p.heuristic = "copy";
    p.input_bytes = p.output_bytes = n_bytes;
    return p;
}

// Seconds per run by candidate: "twice" 20% faster than "copy", "wrong"
// fastest of all (it must still never win).
double fixed_times(const tune_candidate& c, int)
{
    return c.id == "copy" ? 1e-3 : c.id == "twice" ? 0.8e-3 : 0.1e-3;
}

tune_options options(const std::string& dir, tune_mode mode = tune_mode::automatic)
{
    tune_options o;
    o.mode = mode;
    o.budget_s = 0.05;
    o.cache_dir = dir;
    o.timer = fixed_times;
    return o;
}

const candidate_timing* timing_of(const tune_result& r, const std::string& id)
{
    for (const auto& t : r.candidates)
        if (t.id == id)
            return &t;
    return nullptr;
}

} // namespace

BOOST_AUTO_TEST_CASE(json_round_trip_and_malformed_documents)
{
    const std::string doc =
        R"({"a": [1, -2.5, 1e300, 0.1, 9007199254740993, true, false, null],)"
        R"( "s": "q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "o": {}, "e": []})";
    const json::value v = json::parse(doc);
    BOOST_CHECK_EQUAL(v["a"].as_array("a").size(), 8u);
    BOOST_CHECK_EQUAL(v["a"].as_array("a")[1].as_number("x"), -2.5);
    BOOST_CHECK_EQUAL(v["a"].as_array("a")[3].as_number("x"), 0.1);
    BOOST_CHECK_EQUAL(v["s"].as_string("s"), "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
    BOOST_CHECK(v["missing"].is_null());
    for (int indent : { -1, 0, 2 })
        BOOST_CHECK(json::parse(json::dump(v, indent)) == v); // exact, numbers too
    BOOST_CHECK_THROW(v["s"].as_number("s"), std::runtime_error);

    // Every proper prefix of a document is malformed; so are these.
    for (std::size_t n = 0; n < doc.size(); ++n)
        BOOST_CHECK_THROW(json::parse(doc.substr(0, n)), json::parse_error);
    for (const char* bad : { "{\"a\" 1}",
                             "[1,]",
                             "{,}",
                             "01",
                             "1.",
                             "-",
                             "\"\\x\"",
                             "\"\\ud800\"",
                             "tru",
                             "[1] 2",
                             "{\"a\":1,}",
                             "\"a\nb\"",
                             "1e400" })
        BOOST_CHECK_THROW(json::parse(bad), json::parse_error);
    std::string deep(100, '[');
    BOOST_CHECK_THROW(json::parse(deep + std::string(100, ']')), json::parse_error);
}

BOOST_AUTO_TEST_CASE(decision_rule)
{
    auto t = [](const char* id, double median, const char* status = "timed") {
        candidate_timing c;
        c.id = id;
        c.status = status;
        c.median_s = c.min_s = c.q1_s = c.q3_s = median;
        c.samples = 5;
        return c;
    };
    // Lowest median wins.
    BOOST_CHECK_EQUAL(choose_candidate({ t("h", 1.0), t("a", 0.5), t("b", 0.7) }, "h"),
                      "a");
    // The heuristic keeps ties within 3%.
    BOOST_CHECK_EQUAL(choose_candidate({ t("h", 1.02), t("a", 1.0) }, "h"), "h");
    BOOST_CHECK_EQUAL(choose_candidate({ t("h", 1.04), t("a", 1.0) }, "h"), "a");
    // Untimed candidates never win, whatever their numbers.
    BOOST_CHECK_EQUAL(choose_candidate({ t("h", 1.0),
                                         t("r", 0.1, "rejected: differs"),
                                         t("f", 0.1, "failed: launch"),
                                         t("u", 0.1, "unavailable: no") },
                                       "h"),
                      "h");
    // Spread: interquartile range over 10% of the median, or under 3 samples.
    candidate_timing c = t("h", 1.0);
    BOOST_CHECK(!too_noisy(c));
    c.q1_s = 0.94;
    c.q3_s = 1.05;
    BOOST_CHECK(too_noisy(c));
    c = t("h", 1.0);
    c.samples = 2;
    BOOST_CHECK(too_noisy(c));
    // Clearly faster: the slowest quartile below the other's fastest.
    candidate_timing a = t("a", 0.4), b = t("b", 1.0);
    a.q3_s = 0.69;
    b.q1_s = 0.7;
    BOOST_CHECK(clearly_faster(a, b));
    BOOST_CHECK(!clearly_faster(b, a));
    a.q3_s = 0.7; // touching: not beyond doubt
    BOOST_CHECK(!clearly_faster(a, b));
    a.q3_s = 0.5;
    a.samples = 2;
    BOOST_CHECK(!clearly_faster(a, b));
}

BOOST_AUTO_TEST_CASE(tuning_checks_outputs_skips_failures_and_caches)
{
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const tune_problem p = test_problem(ctx);

    const tune_result r = autotune(p, ctx, "qa", options(dir.path));
    BOOST_CHECK(r.source == tune_source::tuned);
    BOOST_CHECK_EQUAL(r.chosen, "twice"); // 20% faster than the heuristic
    BOOST_CHECK_EQUAL(r.heuristic, "copy");
    BOOST_REQUIRE_EQUAL(r.candidates.size(), 5u);
    BOOST_CHECK_EQUAL(timing_of(r, "copy")->status, "timed");
    BOOST_CHECK_GE(timing_of(r, "copy")->samples, 3);
    BOOST_CHECK_CLOSE(timing_of(r, "twice")->median_s, 0.8e-3, 1e-9);
    BOOST_CHECK(timing_of(r, "wrong")->status.rfind("rejected: byte 17 ", 0) == 0);
    BOOST_CHECK_MESSAGE(timing_of(r, "throws")->status.find("too many resources") !=
                            std::string::npos,
                        timing_of(r, "throws")->status);
    BOOST_CHECK_EQUAL(timing_of(r, "absent")->status,
                      "unavailable: needs a GPU this machine lacks");
    BOOST_CHECK_EQUAL(r.notes.size(), 2u); // the rejection and the failure
    BOOST_CHECK_MESSAGE(r.describe().find("twice (tuned now in ") != std::string::npos &&
                            r.describe().find("heuristic copy 1.25x slower") !=
                                std::string::npos,
                        r.describe());

    // Saved: the next plan finds it without timing anything.
    const tune_key key = tune_key::of(p, ctx->info());
    BOOST_REQUIRE(exists(dir.path + "/" + key.file_name()));
    tune_options no_timing = options(dir.path);
    no_timing.timer = [](const tune_candidate&, int) -> double {
        BOOST_FAIL("a cached problem must not be timed");
        return 0;
    };
    for (tune_mode m : { tune_mode::automatic, tune_mode::cache }) {
        const tune_result c = autotune(p, ctx, "qa", [&] {
            auto o = no_timing;
            o.mode = m;
            return o;
        }());
        BOOST_CHECK(c.source == tune_source::cache);
        BOOST_CHECK_EQUAL(c.chosen, "twice");
        BOOST_CHECK_EQUAL(c.candidates.size(), 5u);
    }
    // force times again; off and a forced form take nothing from the cache.
    BOOST_CHECK(autotune(p, ctx, "qa", options(dir.path, tune_mode::force)).source ==
                tune_source::tuned);
    const tune_result off = autotune(p, ctx, "qa", options(dir.path, tune_mode::off));
    BOOST_CHECK(off.source == tune_source::heuristic);
    BOOST_CHECK_EQUAL(off.chosen, "copy");
    tune_problem forced = p;
    forced.forced = "wrong";
    const tune_result f = autotune(forced, ctx, "qa", options(dir.path));
    BOOST_CHECK(f.source == tune_source::forced);
    BOOST_CHECK_EQUAL(f.chosen, "wrong");
}

BOOST_AUTO_TEST_CASE(a_wrong_candidate_never_wins)
{
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    tune_problem p = test_problem(ctx);
    p.heuristic = "twice";
    // "wrong" is timed ten times faster than anything else, on every round.
    const tune_result r = autotune(p, ctx, "qa", options(dir.path));
    BOOST_CHECK_NE(r.chosen, "wrong");
    BOOST_CHECK_EQUAL(r.chosen, "twice"); // copy is 25% slower
}

namespace {

// The test problem tuned with every candidate's time (by \p base) 1.5x and
// 0.7x on alternate rounds: interquartile ranges far over 10%.
tune_result tune_noisy(const std::string& dir,
                       double (*base)(const tune_candidate&, int),
                       bool& saved_file)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const tune_problem p = test_problem(ctx);
    tune_options o = options(dir);
    o.timer = [base](const tune_candidate& c, int round) {
        return base(c, round) * (round % 2 ? 1.5 : 0.7);
    };
    const tune_result r = autotune(p, ctx, "qa", o);
    saved_file = exists(dir + "/" + tune_key::of(p, ctx->info()).file_name());
    return r;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_noisy_result_is_used_but_not_saved)
{
    temp_dir dir;
    bool saved_file = true;
    const tune_result r = tune_noisy(dir.path, fixed_times, saved_file);
    BOOST_CHECK(r.source == tune_source::tuned);
    BOOST_CHECK_EQUAL(r.chosen, "twice");
    BOOST_CHECK(!saved_file);
    bool said = false;
    for (const auto& n : r.notes)
        said |= n.find("too spread to trust") != std::string::npos;
    BOOST_CHECK(said);
}

// Spread timings are still saved where the winner is clearly faster than
// the heuristic (its slowest quartile below the heuristic's fastest).
BOOST_AUTO_TEST_CASE(a_noisy_but_clear_win_is_saved)
{
    temp_dir dir;
    bool saved_file = false;
    const tune_result r = tune_noisy(
        dir.path,
        [](const tune_candidate& c, int round) {
            return c.id == "twice" ? 0.3e-3 : fixed_times(c, round);
        },
        saved_file);
    BOOST_CHECK_EQUAL(r.chosen, "twice");
    BOOST_CHECK(too_noisy(*timing_of(r, "twice")));
    BOOST_CHECK(r.saved);
    BOOST_CHECK(saved_file);
}

// The budget is the timing rounds': checks that take longer than five
// budgets (an X-engine problem's visibilities copied back and compared, on
// the H200 5-10 s against 0.5) still leave the rounds a result worth saving.
BOOST_AUTO_TEST_CASE(slow_checks_leave_the_rounds_their_budget)
{
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    tune_problem p = test_problem(ctx);
    p.candidates.resize(2); // copy, twice
    p.result = [](const tune_candidate& c, const void* in, void* out, stream_handle s) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        c.run(in, out, s);
    };
    const tune_options o = options(dir.path); // 0.05 s: the checks take 8 budgets
    const tune_result r = autotune(p, ctx, "qa", o);
    BOOST_CHECK(r.source == tune_source::tuned);
    BOOST_CHECK_EQUAL(r.chosen, "twice");
    BOOST_CHECK_GE(timing_of(r, "copy")->samples, 3);
    BOOST_CHECK(exists(dir.path + "/" + tune_key::of(p, ctx->info()).file_name()));
}

// A candidate that learns only by trying that this machine cannot run it
// (cuFFT refusing every LTO callback) is unavailable, like one that says so
// when listed: not a failure, no note, never chosen.
BOOST_AUTO_TEST_CASE(unavailable_found_by_trying)
{
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    tune_problem p = test_problem(ctx);
    p.candidates.resize(2);
    p.candidates.push_back({ "unlinkable", "", 1, [](const void*, void*, stream_handle) {
                                throw candidate_unavailable(
                                    "qa: links no callback in this process");
                            } });
    const tune_result r = autotune(p, ctx, "qa", options(dir.path));
    BOOST_CHECK_EQUAL(r.chosen, "twice");
    BOOST_CHECK_EQUAL(timing_of(r, "unlinkable")->status,
                      "unavailable: qa: links no callback in this process");
    BOOST_CHECK(r.notes.empty());
}

BOOST_AUTO_TEST_CASE(select_runs_before_each_check_and_batch_outside_the_clock)
{
    // A candidate's select (a workspace of its own, say) is made before its
    // output check and before every timed batch, never inside one; one
    // that finds the candidate cannot run makes it unavailable.
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    tune_problem p = test_problem(ctx);
    p.candidates.resize(2); // copy, twice
    std::vector<std::string> log;
    for (auto& c : p.candidates)
        c.select = [&log, id = c.id] { log.push_back("select " + id); };
    p.candidates.push_back(p.candidates[0]);
    p.candidates.back().id = "no room";
    p.candidates.back().select = [] {
        throw candidate_unavailable("qa: its workspace did not fit");
    };
    tune_options o = options(dir.path);
    o.timer = [&log](const tune_candidate& c, int round) {
        log.push_back("time " + c.id);
        return fixed_times(c, round);
    };
    const tune_result r = autotune(p, ctx, "qa", o);
    BOOST_CHECK_EQUAL(r.chosen, "twice");
    BOOST_CHECK_EQUAL(timing_of(r, "no room")->status,
                      "unavailable: qa: its workspace did not fit");
    // Every timing is of the candidate selected last, and each batch (a
    // run of one candidate's timings) starts right after its select.
    std::string current;
    int batches = 0;
    for (std::size_t i = 0; i < log.size(); ++i)
        if (log[i].rfind("select ", 0) == 0) {
            current = log[i].substr(7);
        } else {
            BOOST_REQUIRE_EQUAL(log[i], "time " + current);
            batches += log[i - 1].rfind("select ", 0) == 0;
        }
    BOOST_CHECK_GE(batches, 2 * 3); // both candidates, at least 3 rounds each

    // Event-timed: a select that takes 20 ms is not in the times of runs
    // that take microseconds.
    tune_problem slow = test_problem(ctx);
    slow.candidates.resize(2);
    for (auto& c : slow.candidates)
        c.select = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
    tune_options events = options(dir.path, tune_mode::force);
    events.timer = nullptr;
    const tune_result e = autotune(slow, ctx, "qa", events);
    for (const auto& t : e.candidates) {
        BOOST_CHECK_EQUAL(t.status, "timed");
        BOOST_CHECK_MESSAGE(t.median_s < 1e-2, t.id << ": " << t.median_s << " s a run");
    }
}

BOOST_AUTO_TEST_CASE(keys_separate_devices_kernels_and_versions)
{
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const tune_problem p = test_problem(ctx);
    device_info d = ctx->info();
    const tune_key k = tune_key::of(p, d);
    BOOST_CHECK(tune_key::from_json(json::parse(json::dump(k.to_json()))) == k);

    std::vector<tune_key> others;
    auto vary = [&](auto change) {
        tune_key o = k;
        change(o);
        others.push_back(o);
    };
    vary([](tune_key& o) { o.gpu = "NVIDIA H100 80GB HBM3"; });
    vary([](tune_key& o) { o.cc_minor += 1; });
    vary([](tune_key& o) { o.multiprocessors += 1; });
    vary([](tune_key& o) { o.l2_bytes *= 2; });
    vary([](tune_key& o) { o.kernel = "other"; });
    vary([](tune_key& o) { o.version += 1; });
    vary([](tune_key& o) { o.shape = "n=8192"; });
    vary([](tune_key& o) { o.candidates += ";new"; });
    for (const auto& o : others) {
        BOOST_CHECK(!(o == k));
        BOOST_CHECK_NE(o.file_name(), k.file_name());
    }
    // A shipped table matches the model: SM count and L2 may differ.
    BOOST_CHECK(others[2].same_model_and_problem(k));
    BOOST_CHECK(others[3].same_model_and_problem(k));
    for (std::size_t i : { 0, 1, 4, 5, 6, 7 })
        BOOST_CHECK(!others[i].same_model_and_problem(k));

    // A cache file holding another key (an edited file) is a miss.
    temp_dir dir;
    tune_entry e;
    e.key = others[0];
    e.winner = e.heuristic = "copy";
    std::vector<std::string> notes;
    BOOST_REQUIRE(cache_store(dir.path, e, notes));
    BOOST_REQUIRE(std::rename((dir.path + "/" + others[0].file_name()).c_str(),
                              (dir.path + "/" + k.file_name()).c_str()) == 0);
    tune_entry got;
    BOOST_CHECK(!cache_load(dir.path, k, got, notes));
    BOOST_REQUIRE_EQUAL(notes.size(), 1u);
    BOOST_CHECK(notes[0].find("holds another key") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(shipped_table_serves_a_miss)
{
    temp_dir cache, tables;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const tune_problem p = test_problem(ctx);
    tune_entry e;
    e.key = tune_key::of(p, ctx->info());
    e.key.multiprocessors += 2; // measured on another board of the same model
    e.winner = "twice";
    e.heuristic = "copy";
    e.unit = "byte";
    json::value table = json::value::object();
    table.set("schema", 1);
    json::value entries = json::value::array();
    entries.push(e.to_json());
    table.set("entries", entries);
    std::ofstream(tables.path + "/h100.json") << json::dump(table, 1);
    // (read first: newer by name)
    std::ofstream(tables.path + "/h200-broken.json") << "{\"entries\": [";

    tune_options o = options(cache.path, tune_mode::cache);
    o.table_dirs = { tables.path + "/absent", tables.path };
    const tune_result r = autotune(p, ctx, "qa", o);
    BOOST_CHECK(r.source == tune_source::shipped);
    BOOST_CHECK_EQUAL(r.chosen, "twice");
    bool said = false; // the broken table is named, not fatal
    for (const auto& n : r.notes)
        said |= n.find("broken.json is unreadable") != std::string::npos;
    BOOST_CHECK(said);

    // Of two tables holding the problem, the later-named (a later date)
    // answers.
    std::remove((tables.path + "/h100.json").c_str());
    for (const auto& dated : { std::make_pair("h100-2026-11-27.json", "copy"),
                               std::make_pair("h100-2026-11-28.json", "twice") }) {
        e.winner = dated.second;
        entries = json::value::array();
        entries.push(e.to_json());
        table.set("entries", entries);
        std::ofstream(tables.path + "/" + dated.first) << json::dump(table);
    }
    const tune_result newest = autotune(p, ctx, "qa", o);
    BOOST_CHECK(newest.source == tune_source::shipped);
    BOOST_CHECK_EQUAL(newest.chosen, "twice");
    for (const char* dated : { "h100-2026-11-27.json", "h100-2026-11-28.json" })
        std::remove((tables.path + "/" + dated).c_str());

    // A table naming a candidate that cannot run here is passed over.
    table = json::value::object();
    table.set("schema", 1);
    entries = json::value::array();
    e.winner = "absent";
    entries.push(e.to_json());
    table.set("entries", entries);
    std::ofstream(tables.path + "/h100.json") << json::dump(table);
    const tune_result h = autotune(p, ctx, "qa", o);
    BOOST_CHECK(h.source == tune_source::heuristic);
    BOOST_CHECK_EQUAL(h.chosen, "copy");
}

BOOST_AUTO_TEST_CASE(corrupt_cache_files_are_ignored_and_replaced)
{
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const tune_problem p = test_problem(ctx);
    const std::string path = dir.path + "/" + tune_key::of(p, ctx->info()).file_name();
    BOOST_REQUIRE(autotune(p, ctx, "qa", options(dir.path)).source == tune_source::tuned);
    const std::string good = slurp(path);
    BOOST_REQUIRE(!good.empty());
    for (const std::string& bad : { good.substr(0, good.size() / 2),
                                    std::string("garbage"),
                                    std::string(),
                                    std::string("{\"schema\": 1, \"key\": 7}"),
                                    std::string("{\"schema\": 99}") }) {
        std::ofstream(path, std::ios::trunc) << bad;
        const tune_result r = autotune(p, ctx, "qa", options(dir.path));
        BOOST_CHECK(r.source == tune_source::tuned); // a miss: tuned again
        bool said = false;
        for (const auto& n : r.notes)
            said |= n.find("is unreadable") != std::string::npos;
        BOOST_CHECK_MESSAGE(said, "no note for a cache file holding: " << bad);
        tune_entry got; // replaced by a whole entry
        std::vector<std::string> notes;
        BOOST_CHECK(cache_load(dir.path, tune_key::of(p, ctx->info()), got, notes));
        BOOST_CHECK_EQUAL(got.winner, "twice");
    }
}

BOOST_AUTO_TEST_CASE(unwritable_cache_folder)
{
    temp_dir dir;
    const std::string file = dir.path + "/not_a_folder";
    std::ofstream(file) << "x";
    auto ctx = device_context::get(backend_kind::emulated, 0);
    const tune_problem p = test_problem(ctx);
    for (const std::string& where : { file + "/cache", file }) {
        const tune_result r = autotune(p, ctx, "qa", options(where));
        BOOST_CHECK(r.source == tune_source::tuned);
        BOOST_CHECK_EQUAL(r.chosen, "twice");
        int warnings = 0;
        for (const auto& n : r.notes)
            warnings += n.find("not saved") != std::string::npos;
        BOOST_CHECK_EQUAL(warnings, 1);
    }
}

BOOST_AUTO_TEST_CASE(concurrent_writers_leave_a_whole_file)
{
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    tune_entry e;
    e.key = tune_key::of(test_problem(ctx), ctx->info());
    e.heuristic = "copy";
    e.unit = "byte";
    candidate_timing t;
    t.id = "copy";
    t.status = "timed";
    t.samples = 5;
    t.median_s = t.min_s = t.q1_s = t.q3_s = 1e-3;
    e.candidates.assign(200, t); // a file large enough to be written in pieces
    std::vector<pid_t> children;
    for (const char* winner : { "copy", "twice" }) {
        const pid_t pid = fork();
        if (pid == 0) {
            tune_entry mine = e;
            mine.winner = winner;
            std::vector<std::string> notes;
            bool ok = true;
            for (int i = 0; i < 200; ++i)
                ok &= cache_store(dir.path, mine, notes);
            _exit(ok ? 0 : 1);
        }
        children.push_back(pid);
    }
    for (int i = 0; i < 300; ++i) { // read while they write: always whole
        tune_entry got;
        std::vector<std::string> notes;
        if (cache_load(dir.path, e.key, got, notes))
            BOOST_CHECK(got.winner == "copy" || got.winner == "twice");
        BOOST_CHECK_MESSAGE(notes.empty(), (notes.empty() ? std::string() : notes[0]));
    }
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        BOOST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    tune_entry got;
    std::vector<std::string> notes;
    BOOST_CHECK(cache_load(dir.path, e.key, got, notes));
    BOOST_CHECK_EQUAL(got.candidates.size(), 200u);
    // No temporary file is left behind.
    BOOST_CHECK_EQUAL(
        std::system(("test -z \"$(ls '" + dir.path + "' | grep tmp)\"").c_str()), 0);
}

BOOST_AUTO_TEST_CASE(event_timing_on_the_emulated_device)
{
    // No injected timer: the candidates are timed by events, in batches.
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    tune_problem p = test_problem(ctx);
    p.candidates.resize(2); // copy, twice
    tune_options o = options(dir.path);
    o.timer = nullptr;
    // A budget that a loaded machine (ctest -j, a build beside it) still
    // fits three rounds into: the tuner gives up on its minimum of rounds
    // after 5 budgets, and 0.05 s (the other tests' budget) left only two
    // rounds once (2026-11-28, under a concurrent build).
    o.budget_s = 0.3;
    const tune_result r = autotune(p, ctx, "qa", o);
    BOOST_CHECK(r.source == tune_source::tuned);
    for (const auto& t : r.candidates) {
        BOOST_CHECK_EQUAL(t.status, "timed");
        BOOST_CHECK_GE(t.samples, 3);
        BOOST_CHECK_GT(t.min_s, 0);
        BOOST_CHECK_LE(t.min_s, t.median_s);
        BOOST_CHECK_LT(t.median_s, 0.1); // per byte: far under 0.1 s
    }
    BOOST_CHECK_LT(r.seconds_spent, 5 * o.budget_s + 1.0);
}

BOOST_AUTO_TEST_CASE(host_timed_runs_compare_their_device_seconds)
{
    // A host-timed problem whose runs report their device time is decided
    // by that time, not by the host clock: "twice" spends 3 ms of host work
    // a run (the LDPC's staging, say) but reports half the device time of
    // "copy", and wins; a candidate that reports no device time cannot run.
    temp_dir dir;
    auto ctx = device_context::get(backend_kind::emulated, 0);
    tune_problem p = test_problem(ctx);
    p.candidates.resize(2); // copy, twice
    p.candidates.push_back(p.candidates[0]);
    p.candidates.back().id = "silent";
    auto last = std::make_shared<double>(0);
    for (auto& c : p.candidates) {
        const double device = c.id == "copy" ? 2e-4 : c.id == "twice" ? 1e-4 : 0;
        c.run = [run = c.run, last, device, slow = c.id == "twice"](
                    const void* in, void* out, stream_handle s) {
            run(in, out, s);
            if (slow)
                std::this_thread::sleep_for(std::chrono::milliseconds(3));
            *last = device;
        };
    }
    p.host_timed = true;
    p.device_seconds = [last] { return *last; };
    tune_options o = options(dir.path, tune_mode::force);
    o.timer = nullptr;
    const tune_result r = autotune(p, ctx, "qa", o);
    BOOST_CHECK_EQUAL(r.chosen, "twice");
    BOOST_REQUIRE(timing_of(r, "twice") && timing_of(r, "copy"));
    BOOST_CHECK_CLOSE(timing_of(r, "twice")->median_s, 1e-4, 1e-6);
    BOOST_CHECK_CLOSE(timing_of(r, "copy")->median_s, 2e-4, 1e-6);
    BOOST_CHECK_EQUAL(timing_of(r, "silent")->status,
                      "unavailable: its run reported no device time");

    // The heuristic itself reporting none leaves the problem untuned.
    p.heuristic = "silent";
    const tune_result h = autotune(p, ctx, "qa", o);
    BOOST_CHECK(h.source == tune_source::heuristic);
    BOOST_CHECK_EQUAL(h.chosen, "silent");

    // So does a timed run reporting none after a checked one that did.
    p.heuristic = "copy";
    auto runs = std::make_shared<int>(0);
    p.candidates[1].run = [run = p.candidates[1].run, last, runs](
                              const void* in, void* out, stream_handle s) {
        run(in, out, s);
        *last = ++*runs == 1 ? 1e-4 : 0;
    };
    const tune_result late = autotune(p, ctx, "qa", o);
    BOOST_CHECK(late.source == tune_source::heuristic);
    BOOST_CHECK_EQUAL(late.chosen, "copy");
}

BOOST_AUTO_TEST_CASE(mode_from_the_environment)
{
    {
        qa::env_setting e("GPUDSP_AUTOTUNE", nullptr);
        BOOST_CHECK(autotune_mode() == tune_mode::automatic);
    }
    for (auto [text, mode] : { std::pair{ "off", tune_mode::off },
                               std::pair{ "cache", tune_mode::cache },
                               std::pair{ "auto", tune_mode::automatic },
                               std::pair{ "force", tune_mode::force } }) {
        qa::env_setting e("GPUDSP_AUTOTUNE", text);
        BOOST_CHECK(autotune_mode() == mode);
        BOOST_CHECK_EQUAL(to_string(mode), std::string(text));
    }
    {
        qa::env_setting e("GPUDSP_AUTOTUNE", "fast");
        try {
            autotune_mode();
            BOOST_FAIL("GPUDSP_AUTOTUNE=fast must be refused");
        } catch (const std::invalid_argument& ex) {
            BOOST_CHECK(std::string(ex.what()).find("\"fast\"") != std::string::npos);
        }
    }
    {
        qa::env_setting a("GPUDSP_AUTOTUNE", "cache");
        qa::env_setting b("GPUDSP_AUTOTUNE_BUDGET", "0.25");
        qa::env_setting c("GPUDSP_AUTOTUNE_DIR", nullptr);
        qa::env_setting d("XDG_CACHE_HOME", "/somewhere");
        const tune_options o = tune_options::from_environment();
        BOOST_CHECK(o.mode == tune_mode::cache);
        BOOST_CHECK_EQUAL(o.budget_s, 0.25);
        BOOST_CHECK_EQUAL(o.cache_dir, "/somewhere/gr-gpudsp");
        BOOST_REQUIRE_EQUAL(o.table_dirs.size(), 1u);
        BOOST_CHECK(o.table_dirs[0].size() > 7 &&
                    o.table_dirs[0].compare(o.table_dirs[0].size() - 7, 7, "/tuning") ==
                        0);
    }
    {
        qa::env_setting b("GPUDSP_AUTOTUNE_BUDGET", "-1");
        BOOST_CHECK_THROW(tune_options::from_environment(), std::invalid_argument);
    }
}

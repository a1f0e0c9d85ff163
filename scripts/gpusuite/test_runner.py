#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Parts of the GPU suite's runner that need no GPU: its reading of ncu's
raw CSV (runner.ncu_rows: the units of a column in either spelling ncu
uses, medians per kernel, an unknown unit refused rather than read as
microseconds, as the first H100 run, 2026-11-24, read an LDPC column in
"ms") and the merging of racecheck's one-case runs into one verdict per
test (runner.merge_cases)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402

HEAD = '"ID","Kernel Name","gpu__time_duration.sum","dram__bytes.sum","launch__grid_size"\n'


def csv_of(time_unit, byte_unit, rows):
    return HEAD + f'"","","{time_unit}","{byte_unit}",""\n' + "".join(
        f'"{i}","{k}","{t}","{b}","{g}"\n' for i, (k, t, b, g) in enumerate(rows))


class ncu_units(unittest.TestCase):
    def test_long_and_short_spellings_agree(self):
        rows = [("decode", 0.24, 24.0, 256), ("decode", 0.26, 24.0, 256)]
        for t, b in (("msecond", "Mbyte"), ("ms", "MB")):
            got = runner.ncu_rows("ldpc", csv_of(t, b, rows))
            self.assertEqual(len(got), 1)
            self.assertAlmostEqual(got[0]["median_us"], 250.0)
            self.assertAlmostEqual(got[0]["total_us"], 500.0)
            # 48 MB in 500 us
            self.assertAlmostEqual(got[0]["dram_gbps"], 96.0)

    def test_microseconds_and_nanoseconds(self):
        got = runner.ncu_rows("x", csv_of("us", "KB", [("k", 51.7, 84000.0, 65536)]))
        self.assertAlmostEqual(got[0]["median_us"], 51.7)
        self.assertAlmostEqual(got[0]["dram_gbps"], 84e6 / 51.7e-6 / 1e9, places=1)
        got = runner.ncu_rows("x", csv_of("nsecond", "byte", [("k", 900.0, 1e6, 1)]))
        self.assertAlmostEqual(got[0]["median_us"], 0.9)

    def test_hottest_kernel_is_the_one_with_most_time(self):
        got = runner.ncu_rows("x", csv_of("us", "B", [("a", 5, 1, 1), ("b", 3, 1, 1),
                                                       ("b", 3, 1, 1)]))
        self.assertEqual([r["kernel"] for r in got if r["hottest"]], ["b"])

    def test_unknown_unit_is_refused(self):
        with self.assertRaisesRegex(ValueError, "msec"):
            runner.ncu_rows("x", csv_of("msec", "MB", [("k", 1, 1, 1)]))


class ncu_stalls(unittest.TestCase):
    def test_top_three_reasons_issue_slots_and_instructions(self):
        stall = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
        head = ['"ID"', '"Kernel Name"', '"gpu__time_duration.sum"',
                '"smsp__issue_active.avg.pct_of_peak_sustained_active"',
                '"smsp__inst_executed.sum"'] + [
                    f'"{stall.format(r)}"' for r in ("barrier", "long_scoreboard", "wait",
                                                     "mio_throttle")]
        units = ['""', '""', '"us"', '"%"', '"inst"', '""', '""', '""', '""']
        rows = [["0", "k", "10", "22.5", "1,000", "0.5", "3.25", "0.75", "1.5"],
                ["1", "k", "12", "23.5", "3,000", "0.5", "3.75", "0.75", "1.5"]]
        text = "\n".join(",".join(r) for r in [head, units] +
                         [[f'"{v}"' for v in r] for r in rows]) + "\n"
        got = runner.ncu_rows("fengine", text)
        self.assertEqual(len(got), 1)
        self.assertAlmostEqual(got[0]["issue_pct"], 23.0)
        self.assertEqual(got[0]["warp_inst"], 2000)
        self.assertEqual(got[0]["stalls"],
                         "long_scoreboard 3.50, mio_throttle 1.50, wait 0.75")

    def test_a_profile_without_them_has_none(self):
        got = runner.ncu_rows("x", csv_of("us", "B", [("k", 5, 1, 1)]))
        self.assertEqual(got[0]["stalls"], "")
        self.assertIsNone(got[0]["issue_pct"])

    def test_an_unknown_metric_is_recognised(self):
        self.assertTrue(runner.unknown_metric(
            "==PROF== Connected\n==ERROR== Failed to find metric smsp__x_per_issue_active\n"))
        self.assertFalse(runner.unknown_metric("==PROF== Disconnected from process 7\n"))


class ncu_fallback(unittest.TestCase):
    """An ncu that does not know a stall metric (its versions differ) costs
    the stall columns, not the profile: the job is profiled again with the
    base metrics."""

    def test_profiled_again_without_the_detail(self):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            (d / "report.csv").write_text(csv_of("us", "B", [("hot", 5, 10, 4)]))
            fake = d / "bin" / "ncu"
            fake.parent.mkdir()
            fake.write_text(f"""#!/bin/sh
case "$*" in
  *--import*) cat {d}/report.csv ;;
  *issue_stalled*) echo "==ERROR== Failed to find metric smsp__average_warps_x"; exit 1 ;;
  *) for a; do [ "$prev" = --export ] && : > "$a.ncu-rep"; prev=$a; done ;;
esac
""")
            fake.chmod(0o755)
            s = runner.suite.__new__(runner.suite)
            s.quick, s.focus, s.only = False, [], None
            s.env = {"cuda": True}
            s.bench_rows = [{"job": "fengine"}]
            s.manifest = {}
            s.root, s.logs, s.tuned_env, s.ncu_rows = d, d / "logs", {}, []
            s.budget = lambda key: 60
            evaluate, path = runner.targets.evaluate, os.environ["PATH"]
            runner.targets.evaluate = lambda r, rows: [(None, False)]
            os.environ["PATH"] = f"{fake.parent}:{path}"
            try:
                got = s.step_ncu()
            finally:
                runner.targets.evaluate, os.environ["PATH"] = evaluate, path
            self.assertEqual(got.status, "passed")
            self.assertIn("without stall reasons", got.items[0].note)
            self.assertEqual([r["kernel"] for r in s.ncu_rows], ["hot"])
            # the second call's command is in the log, without the detail
            log = (d / "logs" / "ncu" / "fengine.log").read_text()
            self.assertNotIn("issue_stalled", log)
            self.assertIn("gpu__time_duration.sum", log)


class racecheck_cases(unittest.TestCase):
    def merged(self, *items):
        return {(m.group, m.name): m for m in runner.merge_cases(
            [runner.item(n, status=st, group=g, seconds=1.0) for g, n, st in items])}

    def test_whole_tests_pass_through(self):
        m = self.merged(("memcheck", "qa_a", "clean"), ("memcheck", "qa_b", "errors"))
        self.assertEqual(m["memcheck", "qa_a"].status, "clean")
        self.assertEqual(m["memcheck", "qa_b"].status, "errors")

    def test_cases_merge_into_their_test(self):
        m = self.merged(("racecheck", "qa_a/x", "clean"), ("racecheck", "qa_a/y", "clean"),
                        ("racecheck", "qa_b/x", "clean"), ("racecheck", "qa_b/y", "timeout"),
                        ("racecheck", "qa_c/x", "timeout"), ("racecheck", "qa_c/y", "errors"),
                        ("racecheck", "qa_d/x", "skipped"))
        self.assertEqual(len(m), 4)
        self.assertEqual(m["racecheck", "qa_a"].status, "clean")
        self.assertEqual(m["racecheck", "qa_a"].seconds, 2.0)
        self.assertEqual(m["racecheck", "qa_b"].status, "timeout")
        self.assertEqual(m["racecheck", "qa_b"].note, "1 of 2 cases clean; timeout: y")
        self.assertEqual(m["racecheck", "qa_c"].status, "errors")  # worse than a timeout
        self.assertEqual(m["racecheck", "qa_d"].status, "skipped")


class boost_listing(unittest.TestCase):
    def test_top_level_enabled_entries(self):
        listing = ("$ qa_x --list_content\n"
                   "first_case*\n"
                   "described_case*: what it checks\n"
                   "disabled_case\n"
                   "a_suite*\n"
                   "    child_case*\n"
                   "last_case*\n")
        self.assertEqual(runner.boost_cases(listing),
                         ["first_case", "described_case", "a_suite", "last_case"])

    def test_no_listing(self):
        self.assertEqual(runner.boost_cases("Test setup error: no CUDA device\n"), [])


class boost_progress(unittest.TestCase):
    LOG = ("Running 3 test cases...\n"
           "\x1b[1;34;49mEntering test module \"Master Test Suite\"\n"
           "\x1b[0;39;49mq.cc(10): Entering test case \"a_failed_case\"\n"
           "q.cc(12): error: in \"a_failed_case\": check x failed\n"
           "q.cc(10): Leaving test case \"a_failed_case\"; testing time: 5us\n"
           "q.cc(20): Entering test case \"every_configuration\"\n"
           "\x1b[1;36;49mconfiguration 3 of 40: ring TW=32 (12 ms)\x1b[0;39;49m\n"
           "\n*** killed after 45 s (suite time limit)\n")

    def test_a_killed_binary_names_its_case(self):
        self.assertEqual(runner.boost_progress(self.LOG),
                         "killed in every_configuration (its last line: configuration 3 of "
                         "40: ring TW=32 (12 ms)); 1 cases finished before it, "
                         "1 errors reported")

    def test_progress_lines_are_not_failures(self):
        self.assertEqual(runner.failure_lines(self.LOG).split(" | ")[0],
                         'q.cc(12): error: in "a_failed_case": check x failed')


class ncu_rotation(unittest.TestCase):
    def test_longest_without_a_profile_first(self):
        last = {"unpack10": "2026-11-28", "fengine": "2026-11-27", "xengine": "2026-11-27",
                "ddc": "2026-11-24"}
        self.assertEqual(runner.ncu_order(["unpack10", "fengine", "xengine", "ddc", "gnss"],
                                          last),
                         ["gnss", "ddc", "fengine", "xengine", "unpack10"])
        # jobs whose own kernels changed since the last GPU run come first
        self.assertEqual(runner.ncu_order(["unpack10", "fengine", "xengine", "ddc", "gnss"],
                                          last, ["xengine", "unpack10"]),
                         ["xengine", "unpack10", "gnss", "ddc", "fengine"])

    def test_own_sources_only(self):
        jobs = runner.gpu_jobs
        self.assertEqual(jobs.own_jobs_of_files(["lib/kernels/fengine/fengine_fir.h",
                                                 "lib/kernels/common/packed10.h",
                                                 "lib/runtime/autotune.cc", "docs/x.md"]),
                         {"fengine", "buffer"})  # (lib/runtime/ is the buffer job's own)

    def test_dates_from_the_committed_tables(self):
        import tempfile
        import pack
        with tempfile.TemporaryDirectory() as d:
            runs = Path(d) / "docs" / "gpu-runs"
            runs.mkdir(parents=True)
            head = "job,kernel,launches\n"
            (runs / "2026-11-24-h100-run6-ncu.csv").write_text(
                head + 'ddc,"k<1, 2>(a)",2\nunpack10,k,4\n')
            (runs / "2026-11-28-h200-run1-ncu.csv").write_text(head + "unpack10,k,4\n")
            (runs / "2026-11-26-h200-onepass-ncu.txt").write_text("not a table\n")
            self.assertEqual(pack.last_profiled(Path(d)),
                             {"ddc": "2026-11-24", "unpack10": "2026-11-28"})


class step_budgets(unittest.TestCase):
    B = runner.BUDGETS

    def suite(self, elapsed, total=runner.DEFAULT_BUDGET):
        """A default run (the budgets add up to more than its 360 s),
        elapsed seconds in."""
        s = runner.suite.__new__(runner.suite)
        s.total_budget = total
        s.t0 = runner.time.monotonic() - elapsed
        s.deadline = s.t0 + total
        return s

    def test_on_time_each_early_step_gets_its_own(self):
        # (the steps the run's time covers: the later ones take what is left)
        keys = list(self.B)
        for i, k in enumerate(keys[:4]):
            spent = sum(self.B[j][0] for j in keys[:i])
            self.assertAlmostEqual(self.suite(spent).budget(k), self.B[k][0], delta=0.5)

    def test_time_saved_goes_to_the_next_step(self):
        # The 2026-11-28 run's first two steps took 45 s and 35 s: the
        # sweep gets its 70 s and the Python step's unused 25 s.
        self.assertAlmostEqual(self.suite(80).budget("tune"), self.B["tune"][0] + 25, delta=0.5)

    def test_the_last_steps_take_what_is_left(self):
        self.assertAlmostEqual(self.suite(330).budget("sanitizer"),
                               30 - self.B["ncu"][1], delta=0.5)
        self.assertAlmostEqual(self.suite(340).budget("ncu"), 20, delta=0.5)

    def test_late_steps_keep_their_minimums(self):
        later = sum(self.B[j][1] for j in list(self.B)[3:])
        self.assertAlmostEqual(self.suite(runner.DEFAULT_BUDGET - later - 20).budget("tune"),
                               20, delta=0.5)

    def test_a_longer_run_scales_the_budgets(self):
        self.assertAlmostEqual(self.suite(0, 2 * runner.DEFAULT_BUDGET).budget("cpp"),
                               2 * self.B["cpp"][0], delta=0.5)


TESTS = ["qa_device_buffer_cuda", "qa_unpack10_kernels_cuda", "qa_pfb_fengine_plan_cuda",
         "qa_xengine_plan_cuda", "qa_ddc_plan_cuda", "qa_gnss_correlator_cuda",
         "qa_ldpc5g_cuda"]


class racecheck_rotation(unittest.TestCase):
    def test_changed_tests_and_a_rotation_of_the_rest(self):
        changed = ["qa_ddc_plan_cuda"]
        seen = set()
        for day in range(7):
            got = runner.racecheck_choice(TESTS, changed, day * 86400.0 + 3600)
            self.assertEqual(got[0], "qa_ddc_plan_cuda")
            self.assertEqual(len(got), 1 + runner.RACECHECK_ROTATION)
            self.assertEqual(len(set(got)), len(got))
            seen.update(got)
        self.assertEqual(seen, set(TESTS))  # every test comes round within a week

    def test_everything_changed(self):
        self.assertEqual(runner.racecheck_choice(TESTS, TESTS, 0.0), TESTS)


class suite_jobs(unittest.TestCase):
    def test_changed_files_map_to_jobs_and_tests(self):
        jobs = runner.gpu_jobs
        self.assertEqual(jobs.jobs_of_files(["lib/kernels/xengine/xengine_cuda.cu",
                                             "docs/xengine.md"]), {"xengine"})
        self.assertEqual(jobs.tests_of_jobs(TESTS, {"xengine", "gnss"}),
                         ["qa_xengine_plan_cuda", "qa_gnss_correlator_cuda"])
        # shared code touches every job
        self.assertEqual(jobs.jobs_of_files(["lib/kernels/common/cp_async.cuh"]),
                         set(jobs.JOBS))
        self.assertEqual(jobs.jobs_of_files(["README.md", "docs/gpu.md"]), set())
        self.assertEqual(jobs.jobs_of_files(["lib/runtime/autotune.cc"]), {"buffer"})

    def test_focus(self):
        jobs = runner.gpu_jobs
        self.assertEqual(jobs.parse_focus("xengine, ddc"), ["xengine", "ddc"])
        with self.assertRaisesRegex(ValueError, "unknown job.*fft"):
            jobs.parse_focus("xengine,fft")
        import re
        pattern = re.compile(jobs.test_pattern(["ldpc"]))
        self.assertEqual([t for t in TESTS if pattern.search(t)], ["qa_ldpc5g_cuda"])


class targets_match(unittest.TestCase):
    def test_ddc_targets_take_back_to_back_rows_only(self):
        import targets

        def texts(case):
            row = {"job": "ddc", "backend": "cuda", "case": case, "value": 40.0,
                   "roofline": 66.9}
            return [t for t, _ in targets.evaluate(row)]
        self.assertEqual(texts("D=16 T=256 10-bit in, device-resident"),
                         [">= 50% of FP32 peak"])
        # (a bank's target is its speed-up over its outputs run alone)
        self.assertEqual(texts("D=16 T=256 10-bit in, 8 outputs from one read, "
                               "device-resident"), [])
        self.assertEqual(texts("D=16 T=256 10-bit in, 8 outputs from one read "
                               "against each alone"),
                         [">= 2x the 8 outputs run alone (a bank from one read)"])
        self.assertEqual(texts("D=16 T=256 10-bit in, device-resident, per call"), [])
        self.assertEqual(texts("D=8 T=128 10-bit in, device-resident"), [])

    def test_unpack10_target_takes_back_to_back_rows_only(self):
        import targets

        def texts(case):
            row = {"job": "unpack10", "backend": "cuda", "case": case, "value": 400.0,
                   "roofline": 450.0}
            return [t for t, _ in targets.evaluate(row)]
        self.assertEqual(texts("float out, 67108864 samples, device-resident"),
                         [">= 80% of D2D copy"])
        self.assertEqual(texts("float out, 67108864 samples, device-resident, per call"),
                         [])

    def test_ddc_ring_rows_meet_the_same_targets(self):
        import targets

        def texts(backend, case):
            row = {"job": "ddc", "backend": backend, "case": case, "value": 40.0,
                   "roofline": 66.9}
            return [t for t, _ in targets.evaluate(row)]
        self.assertEqual(texts("cuda/ring", "D=16 T=256 10-bit in, device-resident"),
                         [">= 50% of FP32 peak"])
        self.assertEqual(
            texts("cuda/mix ring", "D=16 T=256 complex in, device-resident, memory"),
            [">= 80% of the min(memory, FP32) roofline (issue 18)"])
        self.assertEqual(texts("cuda/ring", "D=16 T=256 complex in, device-resident"), [])

    def test_fengine_targets_take_back_to_back_rows_only(self):
        import targets

        def texts(case):
            row = {"job": "fengine", "backend": "cuda", "case": case, "value": 120.0,
                   "roofline": 219.0}
            return [t for t, _ in targets.evaluate(row)]
        self.assertEqual(texts("N=4096 T=16 2 inputs packed10 ci8, device-resident"),
                         [">= 300 GS/s", ">= 80% of roofline"])
        self.assertEqual(texts("N=4096 T=16 2 inputs packed10 ci8, device-resident, "
                               "per call"), [])
        self.assertEqual(texts("N=32768 T=16 2 inputs packed10 ci8, device-resident"),
                         [">= 150 GS/s at N = 32768 (issue 50)", ">= 80% of roofline"])
        self.assertEqual(texts("N=32768 T=16 2 inputs packed10 ci8, device-resident, "
                               "per call"), [])


class pack_layout(unittest.TestCase):
    def test_python_folder_from_the_install_tree(self):
        # A prefix Debian's Python knows installs to dist-packages, any
        # other to site-packages: both are found.
        import tempfile
        import pack
        for sub in ("lib/python3.11/dist-packages", "lib/python3.11/site-packages",
                    "lib64/python3.12/site-packages"):
            with tempfile.TemporaryDirectory() as d:
                pkg = Path(d) / sub / "gnuradio" / "gpudsp"
                pkg.mkdir(parents=True)
                (pkg / "__init__.py").write_text("")
                self.assertEqual(pack.installed_site(Path(d)), Path(d) / sub)
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(SystemExit):
                pack.installed_site(Path(d))


if __name__ == "__main__":
    unittest.main()

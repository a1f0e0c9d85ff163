#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Property-based tests (Hypothesis): every block's constructor and setters
and every kernel function, given one illegal value (negative, zero, huge,
NaN/inf, a wrong vector length, an unsupported combination, an unknown
name, a wrong numpy dtype or shape) among legal ones, raise a Python
exception that names the parameter, within seconds and without allocating
gigabytes (the process runs under an address-space limit of its start plus
4 GiB, except under AddressSanitizer). The classes tried per block are
tabled in docs/reliability.md."""

import math
import os
import resource
import signal

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpudsp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("GPUDSP_FUZZ_EXAMPLES", "0"))
fuzz = settings(max_examples=EXAMPLES or 80, deadline=None, derandomize=EXAMPLES == 0,
                database=None, suppress_health_check=[HealthCheck.too_slow])

NAN, INF = float("nan"), float("inf")
negative = st.integers(-2**31, -1)
huge_int = st.integers(2**31, 2**62)  # beyond any C int
not_finite = st.sampled_from([NAN, INF, -INF])


def limit_memory():
    """Address space of now + 4 GiB: an attempt to allocate gigabytes fails
    (and the test with it). Not under ASan, whose shadow memory is huge."""
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        return
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (vm + (4 << 30), resource.RLIM_INFINITY))


class timeout:
    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        signal.signal(signal.SIGALRM, self.expired)
        signal.alarm(self.seconds)

    def __exit__(self, *exc):
        signal.alarm(0)

    @staticmethod
    def expired(*_):
        raise AssertionError("a call with an illegal value took more than the time limit")


# Per block: parameter -> [(class of bad value, strategy)]. Each example
# takes the legal keyword arguments and replaces one with a bad value.
PFB_OK = dict(n_inputs=2, n_channels=64, n_taps=4, input_format="float",
              output_format="cf32", w_cutoff=1.0, weights=[], dither=False, backend="cpu",
              device=0, max_coarse_delay=0)
PFB_BAD = {
    "n_inputs": [("zero", st.just(0)), ("negative", negative), ("huge", st.integers(4097, 2**31 - 1))],
    "n_channels": [("zero", st.just(0)), ("negative", negative),
                   ("huge", st.integers(2**20 + 1, 2**31 - 1)), ("wrong type", st.just("64"))],
    "n_taps": [("zero", st.just(0)), ("negative", negative), ("huge", st.integers(1025, 2**31 - 1))],
    "input_format": [("unknown name", st.sampled_from(["int8", "", "Float", "complex64"]))],
    "output_format": [("unknown name", st.sampled_from(["ci16", "", "cf64"]))],
    "w_cutoff": [("NaN/inf", not_finite), ("negative", st.floats(-1e9, -1e-9))],
    "weights": [("wrong length", st.lists(st.floats(-1, 1), min_size=1, max_size=511)),
                ("NaN/inf", st.builds(lambda v: [v] * 512, not_finite))],
    "max_coarse_delay": [("negative", negative), ("huge", st.integers(2**26 + 1, 2**31 - 1))],
    "backend": [("unknown name", st.sampled_from(["gpu", "opencl", ""]))],
}
XENGINE_OK = dict(n_stations=4, n_pols=2, n_channels=8, n_integrate=10, input_format="ci8",
                  output_format="auto", backend="cpu", device=0, kernel="auto")
XENGINE_BAD = {
    "n_stations": [("zero", st.just(0)), ("negative", negative),
                   ("huge", st.integers(65537, 2**31 - 1))],
    "n_pols": [("zero", st.just(0)), ("unsupported", st.integers(3, 64)), ("negative", negative)],
    "n_channels": [("zero", st.just(0)), ("negative", negative),
                   ("huge", st.integers(2**28, 2**31 - 1))],
    "n_integrate": [("zero", st.just(0)), ("negative", negative)],
    "input_format": [("unknown name", st.sampled_from(["ci16", "cf64", ""]))],
    "output_format": [("unknown name", st.sampled_from(["ci64", ""]))],
    "kernel": [("unknown name", st.sampled_from(["wmma", "cublas", ""]))],
}
XENGINE_COMBOS = [  # unsupported combinations: every named parameter must appear
    (dict(input_format="cf32", output_format="ci32"), "ci32"),
    (dict(input_format="cf32", kernel="tensor"), "tensor"),
    (dict(n_stations=256, n_channels=2**16), "n_channels"),  # 1 TB of sums
]
DDC_OK = dict(decimation=4, taps=[0.5, 0.25], center_freq=0.1e6, samp_rate=1e6,
              input_format="complex", n_outputs=1, backend="cpu", device=0)
DDC_BAD = {
    "decimation": [("zero", st.just(0)), ("negative", negative)],
    "taps": [("empty", st.just([])), ("NaN/inf", st.builds(lambda v: [0.5, v], not_finite))],
    "center_freq": [("NaN/inf", not_finite)],
    "samp_rate": [("zero", st.just(0.0)), ("negative", st.floats(-1e12, -1e-3)),
                  ("NaN/inf", not_finite)],
    "input_format": [("unknown name", st.sampled_from(["int8", "cf64", ""]))],
    "n_outputs": [("zero", st.just(0)), ("negative", negative),
                  ("huge", st.integers(1025, 2**31 - 1))],
    "center_freqs": [("wrong length", st.lists(st.floats(-1e5, 1e5), min_size=2, max_size=5))],
    "decimations": [("wrong length", st.lists(st.integers(1, 8), min_size=2, max_size=5))],
}
DDC_COMBOS = [
    (dict(input_format="float", center_freq=0.6e6), "center_freq"),  # beyond fs/2, real input
]
GNSS_OK = dict(samp_rate=5e6, n_antennas=1, taps_chips=[0.5, 0.0, -0.5],
               input_format="complex", integration_periods=1, backend="cpu", device=0)
GNSS_BAD = {
    "samp_rate": [("zero", st.just(0.0)), ("negative", st.floats(-1e12, -1e-3)),
                  ("NaN/inf", not_finite)],
    "n_antennas": [("zero", st.just(0)), ("negative", negative),
                   ("huge", st.integers(1025, 2**31 - 1))],
    "taps_chips": [("empty", st.just([])), ("NaN/inf", st.builds(lambda v: [0.0, v], not_finite)),
                   ("huge", st.builds(lambda v: [v], st.floats(600, 1e12))),
                   ("wrong length", st.just([0.0] * 65))],
    "input_format": [("unknown name", st.sampled_from(["float", "int8", ""]))],
    "integration_periods": [("zero", st.just(0)), ("negative", negative),
                            ("huge", st.integers(4000, 2**31 - 1))],
}
COPY_BAD = {"itemsize": [("zero", st.just(0)), ("huge", st.integers(2**31, 2**62)),
                         ("negative", negative), ("wrong type", st.just("8"))],
            "backend": [("unknown name", st.sampled_from(["gpu", "CUDA", ""]))],
            "device": [("negative", negative)]}
UNPACK10_BAD = {"out_type": [("unknown name", st.sampled_from(["int", "complex", ""])),
                             ("wrong type", st.just(4))],
                "backend": [("unknown name", st.sampled_from(["gpu", ""]))],
                "device": [("negative", negative), ("wrong type", st.just(0.5))]}
LDPC_OK = dict(K=500, E=1000)
LDPC_BAD = {
    "K": [("zero", st.just(0)), ("negative", negative), ("huge", st.integers(8449, 2**31 - 1))],
    "E": [("zero", st.just(0)), ("negative", negative), ("too small", st.integers(1, 499))],
    "rv": [("negative", negative), ("unsupported", st.integers(4, 100))],
    "Qm": [("zero", st.just(0)), ("unsupported", st.sampled_from([3, 5, 7, 9, 100]))],
}
LDPC_DECODE_BAD = dict(LDPC_BAD)
LDPC_DECODE_BAD.update({
    "max_iterations": [("zero", st.just(0)), ("negative", negative),
                       ("huge", st.integers(1001, 2**31 - 1))],
    "algorithm": [("unknown name", st.sampled_from(["bp", "min_sum", ""]))],
    "scaling": [("zero", st.just(0.0)), ("NaN/inf", not_finite), ("beyond 1", st.floats(1.01, 1e9))],
    "arithmetic": [("unknown name", st.sampled_from(["int8", "double", ""]))],
    "llr_format": [("unknown name", st.sampled_from(["int16", "half", ""]))],
    "batch": [("zero", st.just(0)), ("negative", negative)],
})


# The FX correlator's Python blocks: the MeasurementSet sink from plain
# settings (GRC's make) and the synthetic digitiser.
MS_OK = dict(n_channels=4, n_taps=2, n_integrate=8, array="meerkat", n_antennas=3,
             samp_rate=8e6, nyquist_zone=1, start="2022-06-21T18:00:00", ra_deg=NAN,
             dec_deg=-30.0, duration_s=10.0, jy_per_unit=1.0, output_format="cf32",
             flag_channels=[])
MS_BAD = {
    "n_channels": [("zero", st.just(0)), ("negative", negative),
                   ("huge", st.integers(2**20 + 1, 2**62)), ("wrong type", st.just("4"))],
    "n_taps": [("zero", st.just(0)), ("negative", negative), ("huge", st.integers(1025, 2**62))],
    "n_integrate": [("zero", st.just(0)), ("negative", negative), ("wrong type", st.just(8.5))],
    "n_antennas": [("negative", negative), ("huge", st.integers(65, 2**62))],
    "array": [("unknown name", st.sampled_from(["vla", "", "../meerkat"]))],
    "samp_rate": [("NaN/inf", not_finite), ("negative", st.floats(-1e12, 0.0))],
    "nyquist_zone": [("zero", st.just(0)), ("negative", negative), ("huge", huge_int)],
    "start": [("malformed", st.sampled_from(["yesterday", "2022-13-01T00:00:00", "", "12:00"]))],
    "ra_deg": [("inf", st.sampled_from([INF, -INF]))],
    "dec_deg": [("NaN/inf", not_finite), ("beyond the pole", st.floats(90.001, 1e9))],
    "duration_s": [("NaN/inf", not_finite), ("negative", st.floats(-1e9, 0.0))],
    "jy_per_unit": [("NaN/inf", not_finite), ("negative", st.floats(-1e9, 0.0))],
    "output_format": [("unknown name", st.sampled_from(["ci16", "", "cf64"]))],
    "flag_channels": [("out of range", st.lists(st.integers(4, 2**40), min_size=1, max_size=3)),
                      ("negative", st.lists(negative, min_size=1, max_size=2)),
                      ("wrong type", st.just([1.5]))],
}


def digitiser_ok():
    from gnuradio.gpudsp import sky
    return dict(n_antennas=2, band=sky.band(8e6, 1),
                sources=[(lambda t: np.zeros((len(t), 2)), 1.0, None)], noise_power=1.0,
                offset=1e-6, rfi=None, seed=1, n_samples=1000)


DIGITISER_BAD = {
    "n_antennas": [("zero", st.just(0)), ("negative", negative),
                   ("huge", st.integers(2049, 2**62)), ("wrong type", st.just(2.0))],
    "noise_power": [("NaN/inf", not_finite), ("negative", st.floats(-1e9, -1e-9))],
    "offset": [("NaN/inf", not_finite), ("negative", st.floats(-1e9, -1e-12))],
    "rfi": [("beyond Nyquist", st.builds(lambda f: (f, 1.0), st.floats(4.0001e6, 1e12))),
            ("NaN/inf", st.builds(lambda a: (1e6, a), not_finite)),
            ("wrong shape", st.just((1e6,)))],
    "seed": [("negative", negative), ("wrong type", st.just("1"))],
    "n_samples": [("negative", negative), ("wrong type", st.just(10.5))],
    "sources": [("wrong shape", st.just([(1.0, None)])),
                ("negative power", st.builds(lambda v: [(lambda t: t, v, None)],
                                             st.floats(-1e9, -1e-9))),
                ("NaN/inf power", st.builds(lambda v: [(lambda t: t, v, None)], not_finite))],
    "band": [("wrong type", st.sampled_from([None, "L", 1712e6]))],
}


class fuzz_parameter_tests:
    backend = "cpu"

    @classmethod
    def setUpClass(cls):
        limit_memory()

    def refuses(self, call, param):
        with timeout(20):
            try:
                call()
            except (ValueError, TypeError) as e:
                msg = str(e)
                self.assertIn(param, msg, f"the message does not name {param}: {msg}")
                return
        self.fail(f"accepted an illegal {param}")

    def draw_bad(self, data, table, ok, make):
        param = data.draw(st.sampled_from(sorted(table)), label="parameter")
        kind, strategy = data.draw(st.sampled_from(table[param]), label="class")
        value = data.draw(strategy, label=kind)
        kw = dict(ok, **{param: value})
        if "backend" in kw:
            kw["backend"] = self.backend if param != "backend" else value
        self.refuses(lambda: make(**kw), param)

    @fuzz
    @given(st.data())
    def test_pfb_fengine(self, data):
        self.draw_bad(data, PFB_BAD, PFB_OK, gpudsp.pfb_fengine)

    @fuzz
    @given(st.data())
    def test_pfb_fengine_setters(self, data):
        f = gpudsp.pfb_fengine(**dict(PFB_OK, backend=self.backend))
        which = data.draw(st.sampled_from(["gains", "fine_delays", "phases", "coarse_delays"]))
        bad = {
            "gains": st.one_of(st.lists(st.just(1 + 0j), max_size=127),
                               st.builds(lambda v: [complex(v, 0)] * 128, not_finite)),
            "fine_delays": st.one_of(st.lists(st.just(0.0), min_size=3, max_size=5),
                                     st.builds(lambda v: [v, 0.0], st.floats(0.5001, 1e9)),
                                     st.builds(lambda v: [v, 0.0], not_finite)),
            "phases": st.one_of(st.builds(lambda v: [v, 0.0], not_finite),
                                st.lists(st.just(0.0), max_size=1)),
            "coarse_delays": st.one_of(st.builds(lambda v: [v, 0], negative),
                                       st.builds(lambda v: [v, 0], st.integers(1, 2**31 - 1)),
                                       st.lists(st.just(0), min_size=3, max_size=4)),
        }[which]
        value = data.draw(bad)
        setter = getattr(f, "set_" + which)
        name = "coarse delays" if which == "coarse_delays" else which.replace("_", " ")
        with timeout(20):
            with self.assertRaises((ValueError, TypeError)) as cm:
                setter(value)
        self.assertTrue(name in str(cm.exception) or which in str(cm.exception),
                        str(cm.exception))

    @fuzz
    @given(st.data())
    def test_xengine(self, data):
        self.draw_bad(data, XENGINE_BAD, XENGINE_OK, gpudsp.xengine)

    def test_xengine_unsupported_combinations(self):
        for combo, named in XENGINE_COMBOS:
            self.refuses(lambda: gpudsp.xengine(**dict(XENGINE_OK, backend=self.backend,
                                                       **combo)), named)

    @fuzz
    @given(st.data())
    def test_ddc(self, data):
        self.draw_bad(data, DDC_BAD, DDC_OK, gpudsp.ddc)

    @fuzz
    @given(freq=not_finite, output=st.integers(-5, 5))
    def test_ddc_setters(self, freq, output):
        d = gpudsp.ddc(**dict(DDC_OK, backend=self.backend))
        self.refuses(lambda: d.set_center_freq(freq, 0), "center_freq")
        if output != 0:
            self.refuses(lambda: d.set_center_freq(0.1e6, output), "output")

    def test_ddc_unsupported_combinations(self):
        for combo, named in DDC_COMBOS:
            self.refuses(lambda: gpudsp.ddc(**dict(DDC_OK, backend=self.backend, **combo)),
                         named)

    @fuzz
    @given(st.data())
    def test_wipeoff_correlator(self, data):
        self.draw_bad(data, GNSS_BAD, GNSS_OK, gpudsp.wipeoff_correlator)

    @fuzz
    @given(st.data())
    def test_wipeoff_correlator_satellites(self, data):
        w = gpudsp.wipeoff_correlator(**dict(GNSS_OK, backend=self.backend))
        case = data.draw(st.sampled_from(["system", "prn", "carrier_freq", "code_freq"]))
        args = dict(system="gps_l1ca", prn=3, carrier_freq=1000.0, code_freq=1.023e6)
        args[case] = data.draw({
            "system": st.sampled_from(["beidou", "GPS", ""]),
            "prn": st.one_of(st.just(0), negative, st.integers(38, 10**6)),  # IS-GPS-200: 1..37
            "carrier_freq": not_finite,
            "code_freq": st.one_of(not_finite, st.floats(-1e9, 0.0), st.floats(5.1e6, 1e12)),
        }[case])
        self.refuses(lambda: w.add_satellite(**args), case if case != "system" else "system")

    @fuzz
    @given(st.data())
    def test_device_copy(self, data):
        self.draw_bad(data, COPY_BAD, dict(itemsize=4, backend="cpu", device=0),
                      gpudsp.device_copy)

    @fuzz
    @given(st.data())
    def test_unpack10(self, data):
        self.draw_bad(data, UNPACK10_BAD, dict(out_type="float", backend="cpu", device=0),
                      gpudsp.unpack10)

    @fuzz
    @given(st.data())
    def test_ldpc5g_encode(self, data):
        self.draw_bad(data, LDPC_BAD, LDPC_OK, gpudsp.ldpc5g_encode)

    @fuzz
    @given(st.data())
    def test_ldpc5g_decode(self, data):
        self.draw_bad(data, LDPC_DECODE_BAD, dict(LDPC_OK, backend="cpu"), gpudsp.ldpc5g_decode)

    def test_ldpc5g_decode_unsupported_combinations(self):
        for combo, named in [(dict(arithmetic="fixed", scaling=0.01), "scaling"),
                             (dict(K=4000, E=20000), "K"),  # base graph 2 holds <= 3840
                             (dict(E=1001, Qm=2), "Qm"),
                             (dict(n_ref=100), "limited buffer")]:
            self.refuses(lambda: gpudsp.ldpc5g_decode(**dict(LDPC_OK, backend="cpu", **combo)),
                         named)

    @fuzz
    @given(st.data())
    def test_ms_sink(self, data):
        try:
            import casacore.tables  # noqa: F401
        except ImportError:
            self.skipTest("python3-casacore is not installed")
        import tempfile
        from gnuradio.gpudsp.ms_sink import make_ms_sink
        with tempfile.TemporaryDirectory() as d:
            self.draw_bad(data, MS_BAD, dict(MS_OK, path=os.path.join(d, "f.ms")),
                          make_ms_sink)

    @fuzz
    @given(st.data())
    def test_digitiser_source(self, data):
        from gnuradio.gpudsp.digitiser import digitiser_source
        self.draw_bad(data, DIGITISER_BAD, digitiser_ok(), digitiser_source)

    def test_fx_blocks_accept_the_legal_values(self):
        # The tables' base values are legal: a refusal above is the bad value's.
        from gnuradio.gpudsp.digitiser import digitiser_source
        digitiser_source(**digitiser_ok())
        try:
            import casacore.tables  # noqa: F401
        except ImportError:
            return
        import tempfile
        from gnuradio.gpudsp.ms_sink import make_ms_sink
        with tempfile.TemporaryDirectory() as d:
            make_ms_sink(path=os.path.join(d, "f.ms"), **MS_OK)

    # -- kernel functions: wrong dtypes and shapes ----------------------------
    @fuzz
    @given(dtype=st.sampled_from([np.float32, np.int16, np.int8, np.complex64]),
           shape=st.sampled_from([(10,), (2, 5)]))
    def test_kernel_arrays(self, dtype, shape):
        x = np.zeros(shape, dtype)
        if dtype is not np.int8 or len(shape) != 1:
            self.refuses(lambda: gpudsp.kernels.unpack10(x.astype(dtype), backend=self.backend),
                         "data")
        # X-engine: int8 [T, C, A, 2] or complex64 [T, C, A]
        bad = np.zeros((4, 2, 3, 3), np.int8) if dtype is np.int8 else np.zeros(shape, dtype)
        self.refuses(lambda: gpudsp.kernels.xengine(bad, 1, backend=self.backend), "x")
        # DDC: 1-D samples only
        self.refuses(lambda: gpudsp.kernels.ddc(np.zeros((2, 50), np.complex64), 4, [1.0], 0.0,
                                                1e6, backend=self.backend), "x")
        # LDPC: LLRs must be whole codewords of E values
        self.refuses(lambda: gpudsp.kernels.ldpc5g_decode(np.zeros((2, 999), np.float32), 500,
                                                          E=1000, backend=self.backend), "llrs")

    def test_kernel_shape_mismatches(self):
        x = np.zeros((2, 4096), np.float32)
        self.refuses(lambda: gpudsp.kernels.fengine(x, 64, 4, "float", gains=np.ones((3, 3)),
                                                    backend=self.backend), "gains")
        self.refuses(lambda: gpudsp.kernels.fengine(x, 64, 4, "float", coarse_delays=[1],
                                                    backend=self.backend), "coarse")
        self.refuses(lambda: gpudsp.kernels.xengine(np.zeros((4, 2, 3, 2), np.int8), 2,
                                                    backend=self.backend), "n_pols")


class qa_fuzz_parameters_cpu(fuzz_parameter_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_fuzz_parameters_emulated(fuzz_parameter_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()

#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Property-based tests (Hypothesis) of the formats and the compute cores:
legal parameters drawn near their edges (one channel, one tap, one station,
odd lengths, the largest sizes CI memory allows, sample indices beyond
2^40), every result against the float64 or exact-integer references of the
kernel tests, and the packed 10-bit stream cut at every position through
the block; 5G LDPC for random (K, E, rv, Qm, n_ref, base graph), legal
ones round-tripped noise-free and illegal ones refused, and LLRs with
NaN/inf/huge values following the one documented rule. CI runs a fixed sequence of examples (derandomised);
GPUDSP_FUZZ_EXAMPLES=n runs n per property with fresh draws."""

import os
import unittest

import numpy as np
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import formats, kernels, ldpc
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import qa_ddc_kernels
import qa_pfb_fengine_kernels
import qa_xengine_kernels

EXAMPLES = int(os.environ.get("GPUDSP_FUZZ_EXAMPLES", "0"))
fuzz = settings(max_examples=EXAMPLES or 60, deadline=None, derandomize=EXAMPLES == 0,
                database=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**32 - 1)


class fuzz_kernel_tests:
    backend = "cpu"

    # -- formats ------------------------------------------------------------
    @fuzz
    @given(n=st.integers(0, 3000), seed=seeds)
    def test_pack10_unpack10_round_trip(self, n, seed):
        v = np.random.default_rng(seed).integers(-512, 512, n)
        packed = formats.pack10(v)
        self.assertEqual(len(packed), (10 * n + 7) // 8)
        np.testing.assert_array_equal(formats.unpack10(packed), v)

    @fuzz
    @given(n_bytes=st.integers(0, 2000), seed=seeds, out=st.sampled_from(["short", "float"]))
    def test_unpack10_kernel_any_length(self, n_bytes, seed, out):
        data = np.random.default_rng(seed).integers(0, 256, n_bytes, dtype=np.uint8)
        got = gpudsp.kernels.unpack10(data, out, backend=self.backend)
        np.testing.assert_array_equal(got, formats.unpack10(data))

    @fuzz
    @given(n_bytes=st.integers(1, 600), seed=seeds, cut=st.integers(1, 600))
    def test_unpack10_block_cut_anywhere(self, n_bytes, seed, cut):
        # The stream delivered in calls of `cut` bytes: every cut position
        # of a 5-byte group occurs, and the result is the one-piece unpack.
        data = np.random.default_rng(seed).integers(0, 256, n_bytes, dtype=np.uint8)
        tb = gr.top_block()
        src = blocks.vector_source_b(data.tolist())
        chop = blocks.copy(1)
        chop.set_max_noutput_items(cut)
        u = gpudsp.unpack10("short", backend=self.backend)
        snk = blocks.vector_sink_s()
        tb.connect(src, chop, u, snk)
        tb.run()
        np.testing.assert_array_equal(np.array(snk.data(), np.int16),
                                      formats.unpack10(data[:n_bytes // 5 * 5]))

    # -- X-engine -------------------------------------------------------------
    @fuzz
    @given(S=st.integers(1, 20), P=st.integers(1, 2), C=st.integers(1, 5),
           T=st.integers(1, 40), seed=seeds)
    @example(S=1, P=1, C=1, T=1, seed=0)
    @example(S=256, P=2, C=1, T=2, seed=1)  # 512 inputs: the largest run in CI
    def test_xengine_exact(self, S, P, C, T, seed):
        x = np.random.default_rng(seed).integers(-128, 128, (T, C, S * P, 2)).astype(np.int8)
        got = gpudsp.kernels.xengine(x, P, backend=self.backend)
        want = qa_xengine_kernels.reference(x, P)
        np.testing.assert_array_equal(got, want)  # int pairs, exact

    # -- DDC ------------------------------------------------------------------
    @fuzz
    @given(D=st.integers(1, 40), T=st.integers(1, 48), n=st.integers(1, 300),
           f=st.floats(-0.5, 0.5), n0=st.sampled_from([0, 1, 2**32 + 3, 2**40 + 11, 2**52]),
           fmt=st.sampled_from(["complex", "float", "short"]), seed=seeds)
    @example(D=1, T=1, n=1, f=0.0, n0=0, fmt="complex", seed=0)
    # Found by this test: the fixed-point frequency lost its low bits near
    # +-0.5 cycle and was rounded to 2^-63 instead of 2^-64.
    @example(D=1, T=1, n=1, f=0.49999999999999994, n0=2**40 + 11, fmt="complex", seed=0)
    @example(D=1, T=1, n=1, f=3.814697265625054e-06, n0=2**52, fmt="complex", seed=0)
    def test_ddc_against_float64(self, D, T, n, f, n0, fmt, seed):
        rng = np.random.default_rng(seed)
        fs = 1e6
        v = rng.integers(-500, 500, (2, n))
        x = {"complex": (v[0] + 1j * v[1]).astype(np.complex64),
             "float": v[0].astype(np.float32), "short": v[0].astype(np.int16)}[fmt]
        taps = rng.uniform(-1, 1, T)
        got = gpudsp.kernels.ddc(x, D, taps, f * fs, fs, first_sample_index=n0,
                                 input_format=fmt, backend=self.backend)
        # The documented phase: exact for the 64-bit fixed-point frequency
        # at any sample index (docs/ddc.md).
        want = qa_ddc_kernels.reference(x, D, taps, f * fs, fs, n0, fixed_frequency=True)
        self.assertEqual(len(got), len(want))
        if len(want):
            scale = np.abs(want).max() + np.abs(taps).sum() * 500
            self.assertLessEqual(np.abs(got - want).max(), 2e-5 * scale)

    # -- F-engine -------------------------------------------------------------
    @fuzz
    @given(half_N=st.integers(1, 64), T=st.integers(1, 8), I=st.integers(1, 3),
           spectra=st.integers(1, 6), fmt=st.sampled_from(["packed10", "short", "float",
                                                           "complex"]), seed=seeds)
    @example(half_N=1, T=1, I=1, spectra=1, fmt="packed10", seed=0)
    def test_fengine_against_float64(self, half_N, T, I, spectra, fmt, seed):
        rng = np.random.default_rng(seed)
        N = 2 * half_N  # packed10 needs whole 5-byte groups per spectrum
        step = N if fmt == "complex" else 2 * N
        # A partial step at the end (whole 5-byte groups for packed10) makes no spectrum.
        n = step * (spectra + T - 1) + (step - 4 if fmt == "packed10" else step - 1)
        x, v = qa_pfb_fengine_kernels.random_input(fmt, I, n, rng)
        w = rng.uniform(-1, 1, step * T)
        got = gpudsp.kernels.fengine(x, N, T, input_format=fmt, weights=w,
                                     backend=self.backend)
        want = qa_pfb_fengine_kernels.reference(v, N, T, w)
        self.assertEqual(got.shape, (spectra, N, I))
        scale = np.abs(want).max()
        self.assertLessEqual(np.abs(got - want).max(), 2e-5 * scale + 1e-30)

    def test_fengine_largest_channel_count(self):
        # The documented maximum, 2^20 channels, one tap, one spectrum.
        N = 1 << 20
        rng = np.random.default_rng(5)
        x, v = qa_pfb_fengine_kernels.random_input("float", 1, 2 * N, rng)
        got = gpudsp.kernels.fengine(x, N, 1, input_format="float",
                                     weights=np.ones(2 * N), backend=self.backend)
        want = np.fft.fft(v[0].astype(np.float64))[:N]
        self.assertLessEqual(np.abs(got[0, :, 0] - want).max(), 1e-5 * np.abs(want).max())


def ldpc_expected(K, E, rv, Qm, n_ref, bg):
    """TS 38.212 restated independently of the C++ code: the base graph
    (7.2.2, or forced), Z (5.3.2), Ncb (5.4.2.1); None where the
    combination is illegal, else (BG, Z, Ncb)."""
    if not (1 <= K <= 8448 and Qm in (1, 2, 4, 6, 8, 10) and 0 <= rv <= 3 and E >= K
            and E % Qm == 0 and n_ref >= 0 and bg in (0, 1, 2)):
        return None
    R = K / E
    BG = bg or (2 if K <= 292 or (K <= 3824 and R <= 0.67) or R <= 0.25 else 1)
    if BG == 2 and K > 3840:
        return None
    kb = 22 if BG == 1 else 10 if K > 640 else 9 if K > 560 else 8 if K > 192 else 6
    Z = min(z for z in kernels.ldpc5g_lifting_sizes() if kb * z >= K)
    N = (66 if BG == 1 else 50) * Z
    Ncb = min(N, n_ref) if n_ref else N
    if Ncb <= (22 if BG == 1 else 10) * Z - 2 * Z:
        return None
    return BG, Z, Ncb


def ldpc_llr_rule(llr):
    """docs/ldpc.md, written out: NaN -> 0, +-inf and |x| > 1e4 -> +-1e4."""
    out = np.nan_to_num(llr, nan=0.0, posinf=1e4, neginf=-1e4)
    return np.clip(out, -1e4, 1e4).astype(np.float32)


class fuzz_ldpc_tests:
    backend = "cpu"

    # -- 5G LDPC ---------------------------------------------------------------
    @fuzz
    @given(K=st.one_of(st.integers(1, 8448), st.sampled_from([0, -5, 8449, 3841, 3840, 292])),
           inv_rate=st.floats(0.8, 6.0), rv=st.integers(-1, 4),
           Qm=st.sampled_from([1, 2, 3, 4, 6, 8, 10, 12]),
           n_ref=st.one_of(st.just(0), st.integers(-100, 30000)),
           bg=st.sampled_from([0, 0, 1, 2, 3]), seed=seeds)
    @example(K=1, inv_rate=1.0, rv=0, Qm=1, n_ref=0, bg=0, seed=0)
    @example(K=8448, inv_rate=1.125, rv=3, Qm=8, n_ref=0, bg=0, seed=0)
    @example(K=3840, inv_rate=3.0, rv=2, Qm=2, n_ref=3000, bg=2, seed=0)
    def test_ldpc_combinations(self, K, inv_rate, rv, Qm, n_ref, bg, seed):
        E = max(1, int(K * inv_rate)) // max(Qm, 1) * max(Qm, 1) if K > 0 else 100
        E += Qm * (E < K and inv_rate >= 1.0)  # inv_rate >= 1 stays legal after rounding
        want = ldpc_expected(K, E, rv, Qm, n_ref, bg)
        if want is None:
            with self.assertRaises(ValueError):
                kernels.ldpc5g_params(K, E, rv=rv, Qm=Qm, n_ref=n_ref, bg=bg)
            return
        p = kernels.ldpc5g_params(K, E, rv=rv, Qm=Qm, n_ref=n_ref, bg=bg)
        self.assertEqual((p["BG"], p["Z"], p["Ncb"]), want)
        rng = np.random.default_rng(seed)
        bits = rng.integers(0, 2, (2, K)).astype(np.uint8)
        tx = kernels.ldpc5g_encode(bits, E, rv=rv, Qm=Qm, n_ref=n_ref, bg=bg)
        for b in range(2):
            c = kernels.ldpc5g_codeword(bits[b], E, rv=rv, Qm=Qm, n_ref=n_ref, bg=bg)
            self.assertFalse(ldpc.syndrome(p["BG"], p["Z"], c).any())
            np.testing.assert_array_equal(c[:K], bits[b])
            self.assertFalse(c[K:p["K_ldpc"]].any())  # fillers
            np.testing.assert_array_equal(tx[b], ldpc.rate_match(c, p))
        # Noise-free (every sign right, magnitudes random): whatever an
        # erasure (peeling) decoder recovers from the sent bits, ours must
        # decode and pass. Beyond that (rates near 1, rv 1 and 2 starting in
        # the parity bits) it may fail, but must say so; a pass flag with
        # wrong bits is allowed only where the wrong bits send the very same
        # E bits (the code cannot tell them apart; a CRC does).
        decodable = ldpc.erasure_decodable(p)
        llr = (1 - 2.0 * tx) * rng.uniform(2.0, 20.0, tx.shape)
        for arithmetic in ("float", "fixed"):
            out, _, ok = kernels.ldpc5g_decode(llr, K, rv=rv, Qm=Qm, n_ref=n_ref, bg=bg,
                                               max_iterations=30, arithmetic=arithmetic,
                                               backend=self.backend)
            right = (out == bits).all(axis=1)
            if decodable:
                self.assertTrue(right.all() and ok.all(), f"{arithmetic}: {right} {ok}")
            for b in np.flatnonzero(ok & ~right):
                again = kernels.ldpc5g_encode(out[b:b + 1], E, rv=rv, Qm=Qm, n_ref=n_ref,
                                              bg=bg)
                np.testing.assert_array_equal(again[0], tx[b], f"{arithmetic}: false decode")

    @fuzz
    @given(K=st.integers(40, 1500), inv_rate=st.floats(1.2, 3.0), seed=seeds,
           algorithm=st.sampled_from(["layered_nms", "flooding_nms"]),
           arithmetic=st.sampled_from(["float", "fixed"]),
           sign=st.sampled_from(["positive_is_zero", "positive_is_one"]),
           kinds=st.lists(st.sampled_from(["nan", "inf", "-inf", "huge", "-huge"]),
                          min_size=1, max_size=40),
           fixed_scale=st.sampled_from([4.0, 0.01]))
    def test_ldpc_llr_rule(self, K, inv_rate, seed, algorithm, arithmetic, sign, kinds,
                           fixed_scale):
        # LLRs holding NaN, +-inf and |x| > 1e4 decode exactly as the same
        # LLRs with the documented rule applied by hand: bits, iterations
        # and pass flags equal. A fixed-point scale below 127 / 1e4 (with
        # LLRs to match) makes the certainty clamp visible after scaling.
        E = int(K * inv_rate) // 2 * 2
        rng = np.random.default_rng(seed)
        bits = rng.integers(0, 2, (3, K)).astype(np.uint8)
        tx = kernels.ldpc5g_encode(bits, E, Qm=2)
        llr = ((1 - 2.0 * tx) + 0.8 * rng.standard_normal(tx.shape)) * 12.0 / fixed_scale
        flat = llr.reshape(-1)
        where = rng.choice(flat.size, len(kinds), replace=False)
        values = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}
        for i, k in zip(where, kinds):
            flat[i] = values.get(k) or float(np.sign(0.5 - ("-" in k)) *
                                             10 ** rng.uniform(4.0001, 38))
        llr = llr.astype(np.float32)
        kw = dict(Qm=2, algorithm=algorithm, arithmetic=arithmetic, llr_sign=sign,
                  max_iterations=12, fixed_scale=fixed_scale, backend=self.backend)
        got = kernels.ldpc5g_decode(llr, K, **kw)
        want = kernels.ldpc5g_decode(ldpc_llr_rule(llr), K, **kw)
        for g, w, what in zip(got, want, ("bits", "iterations", "ok")):
            np.testing.assert_array_equal(g, w, err_msg=what)


class qa_fuzz_kernels_cpu(fuzz_kernel_tests, fuzz_ldpc_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_fuzz_kernels_emulated(fuzz_kernel_tests, fuzz_ldpc_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()

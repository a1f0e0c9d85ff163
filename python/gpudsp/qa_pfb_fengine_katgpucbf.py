#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""pfb_fengine with delay_convention="katgpucbf" (docs/fengine.md, "Delay
conventions") against a float64 model of katgpucbf's F-engine written here
from its definition, independently of the block: the model evaluated at
each spectrum's first sample, coarse delay rint (half to even), and for
real input the rotation -pi fine (k - N/2) / N + phi + pi/2 (D mod 4);
complex input with its channels natural or centred (fftshift). Constant
delays with every D mod 4 and ties, rates, phases and phase rates, a model
replaced mid-stream, streams cut into calls anywhere; the exact mapping
between the two conventions. On the CPU and the emulated device;
qa_pfb_fengine_cuda runs the same tests on CUDA."""

import numpy as np
import pmt
from gnuradio import gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import delay_conventions as dc

from qa_pfb_fengine import fengine_block_tests


def wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def katgpucbf_spectra(x, N, T, w, models, n_spec, centred=False):
    """float64 [n_spec, N, I]: katgpucbf's F-engine on samples x [I, n]
    (real or complex) with window w, driven by `models`: [(at_sample,
    {delay, delay_rate, phase, phase_rate})], each from the first spectrum
    whose timestamp (first window sample) is >= its at_sample."""
    x = np.asarray(x)
    cplx = np.iscomplexobj(x)
    I = x.shape[0]
    step = N if cplx else 2 * N
    L = step * T
    k = np.arange(N)
    out = np.zeros((n_spec, N, I), np.complex128)
    for m in range(n_spec):
        t = (m - T + 1) * step  # the spectrum's timestamp
        model, at = None, 0
        for a, mod in models:
            if t >= a:
                model, at = mod, a
        for i in range(I):
            if model is None:
                d, phi = 0.0, 0.0
            else:
                rel = t - at
                d = model["delay"][i] + model.get("delay_rate", np.zeros(I))[i] * rel
                phi = wrap(model.get("phase", np.zeros(I))[i] +
                           model.get("phase_rate", np.zeros(I))[i] * rel)
            D = int(np.rint(d))
            fine = d - D
            src = np.arange(t, t + L) - D  # delayed by D: sample n is x[n - D]
            frame = np.where((src >= 0) & (src < x.shape[1]),
                             x[i][np.clip(src, 0, x.shape[1] - 1)], 0)
            y = (frame.astype(np.complex128 if cplx else np.float64) * w) \
                .reshape(T, step).sum(axis=0)
            X = np.fft.fft(y)
            if not cplx:
                rot = fine * (-np.pi / N) * (k - N // 2) + phi + 0.5 * np.pi * (D % 4)
                out[m, :, i] = X[:N] * np.exp(1j * rot)
            elif centred:
                kk = k - N // 2
                out[m, :, i] = X[(k + N // 2) % N] * np.exp(1j * (fine * (-2 * np.pi / N) * kk
                                                                  + phi))
            else:
                kk = np.where(k >= N // 2, k - N, k)
                out[m, :, i] = X * np.exp(1j * (fine * (-2 * np.pi / N) * kk + phi))
    return out


def model_message(model, at):
    msg = pmt.make_dict()
    for key, v in model.items():
        msg = pmt.dict_add(msg, pmt.intern(key), pmt.init_f64vector(len(v), [float(u)
                                                                             for u in v]))
    return pmt.dict_add(msg, pmt.intern("at_sample"), pmt.from_long(at))


class katgpucbf_convention_tests:
    backend = "cpu"
    run_block = fengine_block_tests.run_block  # the block in a flowgraph (not its tests)

    def samples(self, fmt, I, n, seed):
        rng = np.random.default_rng(seed)
        if fmt == "complex":
            return (rng.normal(0, 100, (I, n)) + 1j * rng.normal(0, 100, (I, n))) \
                .astype(np.complex64)
        return rng.normal(0, 100, (I, n)).astype(np.float32)

    def check(self, got, want, what):
        n = min(len(got), len(want))
        self.assertGreater(n, 0)
        np.testing.assert_allclose(got[:n], want[:n], rtol=1e-5,
                                   atol=3e-5 * np.abs(want).max(), err_msg=what)

    def run_katgpucbf(self, x, N, T, fmt, models, centred=False, chops=(101, 64, 77)):
        """The block (katgpucbf convention, cf32) with each model posted as
        a message; returns its spectra and the float64 model's."""
        def setup(fe):
            for at, model in models:
                fe._post(pmt.intern("delays"), model_message(model, at))
        got, _ = self.run_block(list(x), N, T, fmt, chops=list(chops), setup=setup,
                                max_coarse_delay=64, delay_convention="katgpucbf",
                                channel_order="centred" if centred else "natural")
        w = gpudsp.kernels.pfb_weights(N, T, 1.0, fmt == "complex")
        want = katgpucbf_spectra(x.astype(np.complex128 if fmt == "complex" else np.float64),
                                 N, T, w, models, len(got), centred)
        return got, want

    def test_katgpucbf_constant_delays_every_quarter_turn_and_ties(self):
        # D = rint(tau): 4.5 -> 4 and 5.5 -> 6, 2.5 -> 2 (ties to even),
        # D mod 4 = 0, 2, 1, 3, 2; phases of every quadrant.
        N, T = 16, 4
        x = self.samples("float", 5, 2 * N * 60, 60)
        model = {"delay": [4.5, 5.5, 9.2, 7.0, 2.5], "phase": [0.3, -2.0, 1.0, 3.0, -0.7]}
        got, want = self.run_katgpucbf(x, N, T, "float", [(0, model)])
        self.check(got, want, "constant delays")
        self.assertEqual(self.fe.coarse_delays(), [4, 6, 9, 7, 2])
        self.assertEqual(self.fe.delay_convention(), "katgpucbf")

    def test_katgpucbf_rates_and_a_model_replaced_mid_stream(self):
        # Rates that move every input's coarse delay several times (through
        # every D mod 4), phase rates, then a second model from a later
        # sample; the stream reaches the block in pieces of odd sizes.
        N, T, n_spec = 16, 4, 220
        step = 2 * N
        x = self.samples("float", 3, step * n_spec, 61)
        first = {"delay": [10.3, 8.7, 20.0], "delay_rate": [0.001, -0.0008, 0.0],
                 "phase": [0.5, -1.0, 2.0], "phase_rate": [0.01, -0.02, 0.0]}
        second = {"delay": [3.25, 30.5, 12.75], "delay_rate": [0.0005, 0.0, -0.001],
                  "phase": [-3.0, 0.25, 1.5], "phase_rate": [-0.005, 0.0, 0.03]}
        got, want = self.run_katgpucbf(x, N, T, "float",
                                       [(5 * step + 3, first), (120 * step + 7, second)])
        self.check(got, want, "rates and a second model")

    def test_katgpucbf_complex_input_natural_and_centred(self):
        N, T, n_spec = 16, 4, 120
        x = self.samples("complex", 2, N * n_spec, 62)
        model = {"delay": [6.4, 11.5], "delay_rate": [0.0009, -0.0007],
                 "phase": [1.0, -0.5], "phase_rate": [0.02, -0.01]}
        for centred in (False, True):
            got, want = self.run_katgpucbf(x, N, T, "complex", [(2 * N + 1, model)], centred)
            self.check(got, want, f"complex, centred={centred}")
            self.assertEqual(self.fe.channel_order(), "centred" if centred else "natural")

    def test_katgpucbf_constant_corrections(self):
        # set_coarse_delays / set_fine_delays / set_phases in the katgpucbf
        # convention: the rotation of a constant model of delay D + tau.
        N, T = 16, 4
        x = self.samples("float", 4, 2 * N * 40, 63)
        D, tau, phi = [1, 2, 3, 4], [0.25, -0.4, 0.5, 0.0], [0.1, 0.2, -2.5, 3.1]

        def setup(fe):
            fe.set_coarse_delays(D, 0)
            fe.set_fine_delays(tau, 0)
            fe.set_phases(phi, 0)
        got, _ = self.run_block(list(x), N, T, "float", setup=setup, max_coarse_delay=16,
                                delay_convention="katgpucbf")
        # rint(3.5) = 4, not the D = 3 given: the reference takes D and tau as set
        w = gpudsp.kernels.pfb_weights(N, T, 1.0, False)
        want = np.zeros((len(got), N, 4), np.complex128)
        for i in range(4):
            if i == 2:
                continue
            want[..., i:i + 1] = katgpucbf_spectra(
                x[i:i + 1].astype(np.float64), N, T, w,
                [(0, {"delay": [D[i] + tau[i]], "phase": [phi[i]]})], len(got))
        for i in (0, 1, 3):
            self.check(got[..., i], want[..., i], f"input {i}")
        # input 2 (D = 3, tau = 0.5): -pi 0.5 (k - N/2) / N + phi + pi/2 (3 mod 4)
        # from spectrum T - 1, the first whose first sample is >= at_sample 0
        ref = gpudsp.kernels.fengine(x[2:3], N, T, input_format="float",
                                     coarse_delays=[(T - 1) * 2 * N + 3], backend="cpu")[..., 0]
        k = np.arange(N)
        rot = 0.5 * (-np.pi / N) * (k - N // 2) + phi[2] + 0.5 * np.pi * 3
        self.check(got[T - 1:len(ref), :, 2], (ref * np.exp(1j * rot))[T - 1:], "input 2")

    def test_conventions_map_exactly(self):
        # katgpucbf's model through katgpucbf_to_gpudsp gives the same spectra
        # in the gpudsp convention (no ties here), and the mapping inverts.
        rng = np.random.default_rng(64)
        N, T = 16, 4
        for fmt in ("float", "complex"):
            cplx = fmt == "complex"
            step = N if cplx else 2 * N
            x = self.samples(fmt, 3, step * 150, 65)
            kat = {"delay": rng.uniform(5, 40, 3), "delay_rate": rng.uniform(-1e-3, 1e-3, 3),
                   "phase": rng.uniform(-3, 3, 3), "phase_rate": rng.uniform(-0.02, 0.02, 3),
                   "at_sample": 3 * step + 5}
            gpu = dc.katgpucbf_to_gpudsp(kat, N, T, cplx)
            back = dc.gpudsp_to_katgpucbf(gpu, N, T, cplx)
            for key in ("delay", "delay_rate", "phase_rate"):
                np.testing.assert_allclose(back[key], kat[key], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(wrap(back["phase"] - kat["phase"]), 0, atol=1e-9)
            self.assertEqual(back["at_sample"], kat["at_sample"])
            outs = []
            for conv, model in (("katgpucbf", kat), ("gpudsp", gpu)):
                m = {k: v for k, v in model.items() if k != "at_sample"}
                got, _ = self.run_block(
                    list(x), N, T, fmt, max_coarse_delay=64, delay_convention=conv,
                    setup=lambda fe, m=m: fe._post(pmt.intern("delays"),
                                                   model_message(m, model["at_sample"])))
                outs.append(got)
            self.check(outs[1], outs[0], f"{fmt}: the two conventions")

    def test_convention_parameters(self):
        with self.assertRaisesRegex(ValueError, "delay_convention"):
            gpudsp.pfb_fengine(2, 16, 4, "float", "cf32", backend=self.backend,
                               delay_convention="meerkat")
        with self.assertRaisesRegex(ValueError, "channel_order"):
            gpudsp.pfb_fengine(2, 16, 4, "complex", "cf32", backend=self.backend,
                               channel_order="shifted")
        with self.assertRaisesRegex(ValueError, "centred channels need complex input"):
            gpudsp.pfb_fengine(2, 16, 4, "float", "cf32", backend=self.backend,
                               channel_order="centred")
        with self.assertRaisesRegex(ValueError, "even n_channels"):
            gpudsp.pfb_fengine(2, 15, 4, "complex", "cf32", backend=self.backend,
                               channel_order="centred")
        fe = gpudsp.pfb_fengine(2, 16, 4, "float", "cf32", backend=self.backend)
        self.assertEqual((fe.delay_convention(), fe.channel_order()), ("gpudsp", "natural"))


class qa_pfb_fengine_katgpucbf_cpu(katgpucbf_convention_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_pfb_fengine_katgpucbf_emulated(katgpucbf_convention_tests, gr_unittest.TestCase):
    backend = "emulated"


if __name__ == "__main__":
    gr_unittest.main()

#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The FX correlator (gpudsp.fx_correlator, apps/gpudsp_fx_correlator) on a
small case of MeerKAT's array: its self-checks pass and fail on wrong
visibilities, the device-buffer path (emulated device) gives the CPU's
visibilities with no host copy on the F -> X edge, its files hold what they
say, and WSClean's image of its MeasurementSet shows the sky where it is,
while a conjugated DATA column or a negated UVW (the sign errors a
correlator can make) fails the image check. qa_fx_correlator_cuda runs the
same on CUDA."""

import importlib.util
import json
import os
import shutil
import tempfile
import unittest.mock

import numpy as np
from gnuradio import gr_unittest
from gnuradio.gpudsp import fx_correlator as fx
from gnuradio.gpudsp import imaging

try:
    from casacore import tables as pt
except ImportError:  # the MS output's dependency
    pt = None


def small(backend, **kw):
    args = dict(antennas=8, channels=64, taps=8, seconds=0.0006, integration=512)
    args.update(kw)
    return fx.fx_params(backend=backend, **args)


_runs = {}


def small_run(backend):
    """The small case's run on a backend, made once per process (the other
    backends' tests compare with the CPU's)."""
    if backend not in _runs:
        _runs[backend] = fx.run(small(backend))
    return _runs[backend]


def failed_checks(result):
    return {c.name for c in fx.verify(result) if not c.passed}


class fx_tests:
    backend = "cpu"
    image = True  # image with WSClean (where it and casacore are installed)

    @classmethod
    def setUpClass(cls):
        cls.result = small_run(cls.backend)

    def test_checks_pass(self):
        r = self.result
        self.assertGreaterEqual(r["visibilities"].shape[0], 3)
        for c in fx.verify(r):
            self.assertTrue(c.passed, f"{c.name}: {c.detail}")
        self.assertEqual(r["backend"], self.backend)

    def test_checks_fail_when_wrong(self):
        # Each mutation of the visibilities is one a faulty correlator makes.
        def mutated(change):
            r = dict(self.result)
            V = r["visibilities"].astype(np.float64)
            r["visibilities"] = np.round(change(V)).astype(np.int64)
            return r

        def conjugate(V):
            V[..., 1] *= -1
            return V

        def delay_residual(V):
            # One antenna's fine delay off by half a sample (its sign
            # flipped): the check averages all baselines, 7 of 28 here.
            k = np.arange(V.shape[1])
            rot = np.exp(1j * np.pi * 0.5 * k / V.shape[1])[None, :, None, None, None]
            c = V[..., 0] + 1j * V[..., 1]
            A = self.result["params"].antennas
            for i in range(A):
                for j in range(i + 1):
                    if (i == 3) != (j == 3):  # baselines with antenna 3
                        b = i * (i + 1) // 2 + j
                        c[:, :, b] *= rot[:, :, 0] if i == 3 else np.conj(rot[:, :, 0])
            return np.stack([c.real, c.imag], -1)

        def gain(V):
            return V * 1.05

        self.assertIn("sky model phase", failed_checks(mutated(conjugate)))
        # Its baselines turn both ways (antenna 3 first or second): the
        # average loses amplitude.
        self.assertTrue({"sky model phase", "sky model amplitude"} &
                        failed_checks(mutated(delay_residual)))
        self.assertIn("sky model amplitude", failed_checks(mutated(gain)))

    def test_delay_conventions(self):
        # The run's F-engine reads the delay model in katgpucbf's convention
        # (MeerKAT's); the same simulation in the gpudsp convention passes the
        # same checks with the same visibilities (ci8 rounding aside), and a
        # katgpucbf model read in the gpudsp convention fails them.
        self.assertEqual(self.result["params"].delay_convention, "katgpucbf")
        other = fx.run(small(self.backend, delay_convention="gpudsp"))
        self.assertEqual(failed_checks(other), set())
        a = self.result["visibilities"].astype(np.float64)
        b = other["visibilities"].astype(np.float64)
        self.assertLess(np.abs(a - b).mean(), 1e-4 * np.abs(a).mean())

        made = fx.simulation.fengine_delay_model

        def katgpucbf_model(sim, seconds):
            sim.params.delay_convention = "katgpucbf"
            try:
                return made(sim, seconds)
            finally:
                sim.params.delay_convention = "gpudsp"
        with unittest.mock.patch.object(fx.simulation, "fengine_delay_model", katgpucbf_model):
            wrong = fx.run(small(self.backend, delay_convention="gpudsp"))
        self.assertIn("sky model phase", failed_checks(wrong))

    def test_same_visibilities_as_cpu_and_no_host_copies(self):
        if self.backend == "cpu":
            self.skipTest("the reference itself")
        ref = small_run("cpu")
        # ci8 values may differ by one LSB where FFT rounding differs between
        # backends; the sums then differ by a tiny fraction.
        a = self.result["visibilities"].astype(np.float64)
        b = ref["visibilities"].astype(np.float64)
        self.assertEqual(a.shape, b.shape)
        self.assertLessEqual(np.abs(a - b).max(), 1e-3 * np.abs(b).max())
        if self.backend == "emulated":  # the same arithmetic: the same bits
            np.testing.assert_array_equal(a, b)
        self.assertEqual(self.result["meta"], ref["meta"])
        edge = self.result["fx_edge_counters"]
        self.assertEqual(edge["h2d_bytes"] + edge["d2h_bytes"], 0)

    def test_files(self):
        r = self.result
        p = r["params"]
        with tempfile.TemporaryDirectory() as d:
            path = fx.write_visibilities(r, d)
            # Plots need matplotlib, an optional dependency (the GPU suite's
            # bundle leaves it out and runs the apps with --no-plots).
            if importlib.util.find_spec("matplotlib"):
                for f in fx.write_plots(r, d):
                    self.assertGreater(os.path.getsize(f), 1000)
            try:
                import h5py
            except ImportError:
                self.assertTrue(path.endswith(".npz"))
                h5py = None
            if h5py:
                with h5py.File(path) as f:
                    self.assertEqual(f["visibilities"].shape, r["visibilities"].shape)
                    np.testing.assert_array_equal(f["visibilities"][:], r["visibilities"])
                    np.testing.assert_allclose(f["channel_frequencies"][:],
                                               1712e6 - np.arange(64) * 1712e6 / 128)
                    self.assertEqual(f["baselines"].shape, (36, 2))
                    self.assertEqual(f.attrs["integration_spectra"], 512)
                    np.testing.assert_array_equal(f["spectra_used"][:],
                                                  [m["gpudsp.spectra_used"] for m in r["meta"]])
                    self.assertEqual(f["antenna_itrf"].shape, (8, 3))
            with open(fx.write_sky_model(r, d)) as f:
                model = json.load(f)
            sim = r["sim"]
            self.assertEqual(model["phase_centre"], {"ra_deg": sim.phase_centre[0],
                                                     "dec_deg": sim.phase_centre[1]})
            self.assertEqual(model["ref_freq_hz"], p.ref_freq())
            self.assertEqual(len(model["sources"]), len(fx.DEFAULT_SKY))
            for s, (east, north, flux, alpha) in zip(model["sources"], fx.DEFAULT_SKY):
                self.assertEqual((s["flux_jy"], s["spectral_index"]), (flux, alpha))
            # The second source: east and north of the centre (RA and Dec larger).
            self.assertGreater(model["sources"][1]["ra_deg"], model["phase_centre"]["ra_deg"])
            self.assertGreater(model["sources"][1]["dec_deg"], model["phase_centre"]["dec_deg"])

    def test_image_and_sign_mutations(self):
        # 16 antennas over MeerKAT's 8 km, 64 channels of the octave: WSClean
        # resolves the four sources (0.03 beam, 3 % as measured). A sign error
        # mirrors the sky through the phase centre: the off-axis sources then
        # sit far from their positions.
        if not self.image:
            self.skipTest("the image is made on the CPU and CUDA backends")
        if pt is None or shutil.which("wsclean") is None:
            self.skipTest("needs python3-casacore and wsclean")
        p = small(self.backend, antennas=16, seconds=0.0003)
        with tempfile.TemporaryDirectory() as d:
            ms = os.path.join(d, "fx.ms")
            r = fx.run(p, ms_path=ms)
            model = r["sim"].sky_model()
            size, scale = imaging.image_plan(r["sim"].array, p.band(), model)

            def image(path, name, **kw):
                fits = imaging.wsclean(path, os.path.join(d, name, "sky"), size, scale, **kw)
                return imaging.check_image(fits, model)

            def noise(checks):
                return [ok for name, ok, _ in checks if name == "image noise"]

            _, _, checks = image(ms, "good")
            for name, ok, detail in checks:
                self.assertTrue(ok, f"{name}: {detail}")
            self.assertEqual(len(checks), len(model["sources"]) + 1)
            # The mutations below are imaged with the theoretical beam; the
            # good MS so imaged fails neither of their conditions.
            results, _, checks = image(ms, "good_theoretic_beam", fit_beam=False)
            for j in (1, 2, 3):
                self.assertGreater(results[j].flux, 0.8 * results[j].model_flux, checks)
            self.assertEqual(noise(checks), [True], checks)

            for column, change in (("DATA", np.conj), ("UVW", np.negative)):
                bad = os.path.join(d, f"bad_{column}.ms")
                shutil.copytree(ms, bad)
                with pt.table(bad, readonly=False, ack=False) as t:
                    t.putcol(column, change(t.getcol(column)))
                # Restored with the theoretical beam, not one fitted to the
                # PSF (imaging.wsclean: the fit is 95 % of WSClean's time;
                # the beam changes a restored point source's flux by a few
                # per cent): sources 1-3, off-axis, are gone from their
                # places, and their mirror images are bright elsewhere.
                results, _, checks = image(bad, f"bad_{column}", fit_beam=False)
                for j in (1, 2, 3):
                    r = results[j]
                    self.assertLess(r.flux, 0.5 * r.model_flux,
                                    f"{column} mutated: source {j} still in place: {checks}")
                self.assertEqual(noise(checks), [False], f"{column} mutated: {checks}")


class qa_fx_correlator_cpu(fx_tests, gr_unittest.TestCase):
    backend = "cpu"


class qa_fx_correlator_emulated(fx_tests, gr_unittest.TestCase):
    backend = "emulated"
    image = False  # the same visibilities as the CPU (checked bit for bit)


if __name__ == "__main__":
    gr_unittest.main()

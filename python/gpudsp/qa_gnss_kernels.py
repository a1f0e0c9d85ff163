#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""gpudsp.kernels.correlate against the float64 evaluation of its
definition (gpudsp.gnss.reference_correlate): both systems at once, several
antennas, taps wrapping around the code start, odd lengths, 100 000
samples at a high IF, int16 input, the analytic noise-free prompt, code
tables and subcarrier, bad input. CPU and emulated device;
qa_gnss_kernels_cuda runs them on CUDA."""

import numpy as np
from gnuradio import gr_unittest
from gnuradio.gpudsp import gnss, kernels


def noise(rng, shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


class gnss_kernel_tests:
    backend = "emulated"

    def correlate(self, *a, **kw):
        return kernels.correlate(*a, backend=self.backend, **kw)

    def assert_close(self, got, want, rel):
        peak = np.abs(want).max()
        err = np.abs(got - want).max() / peak
        self.assertLess(err, rel, f"relative error {err:.3g}")

    def test_mixed_systems_antennas_and_wrapping_taps(self):
        rng = np.random.default_rng(10)
        fs = 6.138e6
        n = 12347
        x = noise(rng, (3, n))
        sats = [
            dict(system="gps_l1ca", prn=1, carrier_freq=1234.5, carrier_phase=0.3,
                 code_freq=1.023e6 + 0.8, code_phase=0.1, start=5, length=n - 5),
            dict(system="galileo_e1b", prn=11, carrier_freq=-3333.0, carrier_phase=-0.4,
                 code_freq=1.023e6 - 2.2, code_phase=4091.9, start=0, length=9999),
            dict(system="gps_l1ca", prn=37, carrier_freq=1.5e6, code_phase=1022.95,
                 start=101, length=7),
            # (a code rate off 1/6 chip per sample: no sample sits exactly on a
            # sub-chip edge, where float64 rounding decides the reference)
            dict(system="galileo_e1b", prn=50, carrier_freq=0.0, code_phase=2000.0,
                 code_freq=1.023e6 + 0.37),
        ]
        taps = [0.6, 0.15, 0.0, -0.15, -0.6, -2.5]
        got = self.correlate(x, sats, taps, fs)
        self.assertEqual(got.shape, (4, 3, 6))
        self.assertEqual(got.dtype, np.complex64)
        self.assert_close(got, gnss.reference_correlate(x, sats, taps, fs), 2e-5)

    def test_long_integration_at_high_if_within_1e_4_of_prompt(self):
        rng = np.random.default_rng(11)
        fs = 25e6
        n = 100000
        sat = dict(system="galileo_e1b", prn=3, carrier_freq=6.1e6 + 1234.5,
                   carrier_phase=0.3, code_freq=1.023e6 + 0.8, code_phase=123.4)
        x = noise(rng, (1, n)) + gnss.synthetic_signal(n, fs, [sat])
        taps = [0.6, 0.15, 0.0, -0.15, -0.6]
        got = self.correlate(x, [sat], taps, fs)
        want = gnss.reference_correlate(x, [sat], taps, fs)
        err = np.abs(got - want).max() / np.abs(want[0, 0, 2])
        self.assertLess(err, 1e-4)

    def test_within_1e_5_of_prompt_at_the_corners(self):
        # The code phase's precision (docs/gnss.md): 100 000 samples of each
        # system at Doppler near +-10 kHz (code Doppler included), sample
        # rates 2, 25 and 100 MS/s and IF 0 and fs/4: every tap within 1e-5
        # of |prompt| of the definition (reference_correlate). With 32
        # fractional bits the same cases reach 2.0e-5 (L1) and 3.6e-5 (E1-B):
        # the quantised code rate moves chip and sub-chip edges by up to
        # 1.2e-5 chip over the run, and one sample on the wrong side of an
        # E1-B sub-chip edge costs up to 2.5e-5 of the prompt. Now the rate
        # is exact to 2^-52 chip per sample (2e-11 chip over the run). The
        # Doppler and code phase are not round numbers: with rational ones
        # (10 kHz exactly: code rate 1.023 MHz + 500/77 Hz) samples fall
        # within 1e-13 chip of an edge, which no finite precision of the
        # rate settles the same way as the exact phase.
        worst = self.check_corners(("gps_l1ca", "galileo_e1b"), (2e6, 25e6, 100e6), 1.023e6,
                                   1575.42e6, code_phase=811.31379)
        self.assertGreater(worst, 0.0)

    def check_corners(self, systems, rates, chip_rate, carrier_hz, code_phase):
        """100 000 samples per case, Doppler +-9 999.371 Hz (code Doppler
        included), IF 0 and fs/4: every tap within 1e-5 of |prompt| of the
        definition; returns the worst relative error."""
        n = 100000
        taps = [0.5, 0.1, 0.0, -0.1, -0.5]
        worst = 0.0
        for system in systems:
            for fs in rates:
                for doppler in (-9999.371, 9999.371):
                    for f_if in (0.0, fs / 4):
                        sat = dict(system=system, prn=19, carrier_freq=f_if + doppler,
                                   carrier_phase=0.37,
                                   code_freq=chip_rate * (1 + doppler / carrier_hz),
                                   code_phase=code_phase)
                        x = gnss.synthetic_signal(n, fs, [sat])
                        got = self.correlate(x, [sat], taps, fs)
                        want = gnss.reference_correlate(x, [sat], taps, fs)
                        err = np.abs(got - want).max() / np.abs(want[0, 0, 2])
                        worst = max(worst, err)
                        self.assertLess(err, 1e-5, f"{system} fs {fs:g} Doppler {doppler:g} "
                                                   f"IF {f_if:g}: {err:.3g}")
        return worst

    def test_l5_and_e5a_within_1e_5_of_prompt_at_the_corners(self):
        # The same precision rule for the 10.23 Mchip/s codes (10230 chips,
        # 49 fractional bits) at 25 and 100 MS/s (their chip rate exceeds
        # 2 MS/s, which the plan refuses), IF 0 and fs/4.
        self.check_corners(("gps_l5q", "galileo_e5ai"), (25e6, 100e6), 10.23e6, 1176.45e6,
                           code_phase=8111.31379)

    def test_secondary_code_wiped_across_primary_periods(self):
        # A GPS L5 pilot (NH20) integrated over its 20 primary periods with
        # the right secondary chip adds up coherently; without the secondary
        # code, or one chip off, it does not. Noise-free, so the magnitudes
        # are the code's: n samples coherently; without the secondary code
        # the sum of NH20's signs, (12 - 8) / 20 of it.
        fs = 10.5e6
        doppler = 1234.567
        sat = dict(system="gps_l5q", prn=7, carrier_freq=doppler, carrier_phase=0.1,
                   code_freq=10.23e6 * (1 + doppler / 1176.45e6), code_phase=0.0,
                   secondary=True)
        n = int(0.020 * fs)
        x = gnss.synthetic_signal(n, fs, [sat])
        taps = [0.5, 0.0, -0.5]
        job = {k: v for k, v in sat.items() if k != "secondary"}
        got = self.correlate(x, [dict(job, secondary_chip=c) for c in (0, 1, -1)], taps, fs)
        want = gnss.reference_correlate(x, [dict(job, secondary_chip=0)], taps, fs)
        self.assert_close(got[:1], want, 2e-5)
        self.assertGreater(abs(got[0, 0, 1]), 0.99 * n)
        self.assertLess(abs(got[1, 0, 1]), 0.25 * n)
        self.assertAlmostEqual(abs(got[2, 0, 1]), 0.2 * n, delta=0.01 * n)

    def test_secondary_code_from_any_start_against_the_definition(self):
        # Integrations starting inside a primary period and ending inside
        # another (partial periods at both ends), several antennas, taps
        # reaching across epochs, a secondary chip beyond the code's length
        # (taken modulo it), beside a job without a secondary code.
        rng = np.random.default_rng(15)
        fs = 21.3e6
        n = 80001
        x = noise(rng, (2, n))
        sats = [dict(system="galileo_e5aq", prn=33, carrier_freq=-4321.0, carrier_phase=0.2,
                     code_freq=10.23e6 - 3.3, code_phase=9000.5, start=17, length=n - 40,
                     secondary_chip=198),
                dict(system="galileo_e5ai", prn=2, carrier_freq=777.0, code_phase=10229.7,
                     start=0, length=n, secondary_chip=19),
                dict(system="gps_l5i", prn=63, carrier_freq=55.0, code_phase=3.25,
                     start=1000, length=30000, secondary_chip=3),
                dict(system="gps_l5q", prn=1, carrier_freq=-10.0, code_phase=5.5)]
        taps = [1.5, 0.5, 0.0, -0.5, -1.5]
        got = self.correlate(x, sats, taps, fs)
        self.assert_close(got, gnss.reference_correlate(x, sats, taps, fs), 2e-5)

    def test_threads_give_the_same_sums(self):
        # Satellites spread over CPU threads: bit-identical to one thread.
        rng = np.random.default_rng(14)
        fs = 4.092e6
        x = noise(rng, (2, 20011))
        sats = [dict(system=("gps_l1ca", "galileo_e1b")[k % 2], prn=k + 1,
                     carrier_freq=-3000.0 + 701.3 * k, code_phase=37.1 * k,
                     start=k, length=19000 - 17 * k) for k in range(9)]
        one = self.correlate(x, sats, [0.5, 0.0, -0.5], fs)
        for t in (2, 3, 8, 16):
            np.testing.assert_array_equal(
                self.correlate(x, sats, [0.5, 0.0, -0.5], fs, threads=t), one)
        for bad in (0, -1, 257):
            with self.assertRaisesRegex(ValueError, "threads"):
                self.correlate(x, sats, [0.0], fs, threads=bad)

    def test_noise_free_prompt_is_analytic(self):
        # A replica of the model with the same parameters: every product is
        # |c|^2, so the prompt is N for L1 and sum c^2 = N * mean(CBOC^2) = N
        # for E1-B; a half-chip early/late L1 tap is N/2 for a rectangular
        # chip when fs is a multiple of twice the chip rate.
        fs = 4.092e6
        n = 8184
        for system in ("gps_l1ca", "galileo_e1b"):
            sat = dict(system=system, prn=7, carrier_freq=2000.0, code_freq=1.023e6,
                       code_phase=100.0)
            x = gnss.synthetic_signal(n, fs, [sat], n_antennas=2,
                                      antenna_phases=[[0.0], [0.25]])
            got = self.correlate(x, [sat], [0.0], fs)
            self.assertAlmostEqual(got[0, 0, 0].real, n, delta=n * 1e-5)
            self.assertAlmostEqual(abs(got[0, 0, 0].imag), 0, delta=n * 1e-5)
            # Antenna 2 adds a quarter cycle: +1j.
            self.assertAlmostEqual(got[0, 1, 0].imag, n, delta=n * 1e-5)
        sat = dict(system="gps_l1ca", prn=7, carrier_freq=2000.0, code_freq=1.023e6,
                   code_phase=100.0)
        x = gnss.synthetic_signal(n, fs, [sat])
        got = self.correlate(x, [sat], [0.5, -0.5], fs)
        want = gnss.reference_correlate(x, [sat], [0.5, -0.5], fs)
        self.assert_close(got, want, 1e-5)
        # Early and late see half the chips agree: about N/2 (+ the Gold
        # code's cross terms, which the reference holds too).
        self.assertLess(abs(got[0, 0, 0].real - n / 2), 0.1 * n)

    def test_complex_short_input(self):
        rng = np.random.default_rng(12)
        fs = 2.046e6
        x16 = rng.integers(-3000, 3000, (2, 4097, 2)).astype(np.int16)
        x = (x16[..., 0] + 1j * x16[..., 1]).astype(np.complex64)
        sats = [dict(system="gps_l1ca", prn=5, carrier_freq=-777.0, code_phase=3.3)]
        got = self.correlate(x16, sats, [0.5, 0.0, -0.5], fs, input_format="complex_short")
        self.assert_close(got, gnss.reference_correlate(x, sats, [0.5, 0.0, -0.5], fs), 2e-5)

    def test_code_tables_and_subcarrier(self):
        c = kernels.gnss_code("gps_l1ca", 1)
        self.assertEqual(c.shape, (1023,))
        # IS-GPS-200: PRN 1 starts with octal 1440 = 1100100000.
        np.testing.assert_array_equal(c[:10], [1, 1, -1, -1, 1, -1, -1, -1, -1, -1])
        e = kernels.gnss_code("galileo_e1b", 1)
        self.assertEqual(e.shape, (4092,))
        # Galileo OS SIS ICD: PRN 1 starts with hex F5 = 11110101.
        np.testing.assert_array_equal(e[:8], [1, 1, 1, 1, -1, 1, -1, 1])
        sub = np.array(kernels.gnss_signal("galileo_e1b")["subcarrier"])
        a, b = np.sqrt(10 / 11), np.sqrt(1 / 11)
        np.testing.assert_allclose(sub, [a + b, a - b] * 3 + [-a + b, -a - b] * 3)
        self.assertAlmostEqual(np.mean(sub ** 2), 1.0)

    def test_bad_input_is_refused(self):
        x = np.zeros((1, 1000), np.complex64)
        ok = dict(system="gps_l1ca", prn=1)
        for sat, taps in ((dict(system="glonass", prn=1), [0]),
                          (dict(system="gps_l1ca", prn=38), [0]),
                          (dict(system="galileo_e1b", prn=0), [0]),
                          (dict(system="gps_l5i", prn=64), [0]),
                          (dict(system="galileo_e5aq", prn=51), [0]),
                          (dict(ok, secondary_chip=0), [0]),  # L1 C/A has none
                          (dict(system="gps_l5q", prn=1, secondary_chip=-2), [0]),
                          (dict(ok, length=1001), [0]),
                          (dict(ok, code_freq=-1.0), [0]),
                          (dict(ok, dopler=3.0), [0]),
                          (ok, [511.5]),
                          (ok, [])):
            with self.assertRaises((ValueError, RuntimeError), msg=str((sat, taps))):
                self.correlate(x, [sat], taps, 1e6)
        with self.assertRaises(ValueError):
            self.correlate(x, [ok], [0], -1.0)
        with self.assertRaises(ValueError):
            self.correlate(np.zeros((1, 2, 3), np.complex64), [ok], [0], 1e6)


class qa_gnss_kernels(gnss_kernel_tests, gr_unittest.TestCase):
    backend = "emulated"

    def test_cpu_matches_emulated_device(self):
        rng = np.random.default_rng(13)
        x = noise(rng, (2, 5003))
        sats = [dict(system="galileo_e1b", prn=p, carrier_freq=100.0 * p, code_phase=7.7 * p)
                for p in range(1, 9)]
        a = kernels.correlate(x, sats, [0.5, 0, -0.5], 5e6, backend="cpu")
        b = kernels.correlate(x, sats, [0.5, 0, -0.5], 5e6, backend="emulated")
        np.testing.assert_array_equal(a, b)


if __name__ == "__main__":
    gr_unittest.run(qa_gnss_kernels)

#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GNSS helpers in plain numpy: the float64 reference of the correlator's
definition, code replicas with their subcarrier, and a synthetic
multi-antenna signal. Used by the tests, the tracking demo and the
benchmarks; see docs/gnss.md for the conventions."""

import numpy as np

from . import kernels

__all__ = ["replica", "reference_correlate", "synthetic_signal", "record_dtype",
           "parse_records", "with_satellites", "secondary_signs", "SYSTEMS",
           "SYMBOL_PERIODS"]

#: system numbers used in the block's records
SYSTEMS = ("gps_l1ca", "galileo_e1b", "gps_l5i", "gps_l5q", "galileo_e5ai", "galileo_e5aq")

#: primary code periods per data symbol of a data component (L1 C/A: 50
#: bit/s; E1-B: 250 symbols/s; L5 I5: 100 symbols/s; E5a-I: 50 symbols/s)
SYMBOL_PERIODS = {"gps_l1ca": 20, "galileo_e1b": 1, "gps_l5i": 10, "galileo_e5ai": 20}

_signals = {}


def _signal(system):
    if system not in _signals:
        s = kernels.gnss_signal(system)
        s["codes"] = {}
        _signals[system] = s
    return _signals[system]


def secondary_signs(system, prn, periods):
    """The sign of each primary period (an int array of period numbers,
    period 0 carrying secondary chip 0) from the secondary code; ones for a
    system without one."""
    code = kernels.gnss_secondary_code(system, prn).astype(np.float64)
    periods = np.asarray(periods, np.int64)
    if len(code) == 0:
        return np.ones(periods.shape)
    return code[np.mod(periods, len(code))]


def replica(system, prn, chips):
    """c(t) for code phases t (chips, float64 or longdouble array): the chip
    floor(t) mod L (ICD chip value 1 as +1) times the subcarrier at the
    fractional chip (E1-B: sqrt(10/11) BOC(1,1) + sqrt(1/11) BOC(6,1),
    sine-phased)."""
    s = _signal(system)
    if prn not in s["codes"]:
        s["codes"][prn] = kernels.gnss_code(system, prn).astype(np.float64)
    code = s["codes"][prn]
    t = np.asarray(chips)
    if t.dtype != np.longdouble:
        t = t.astype(np.float64)
    whole = np.floor(t)
    value = code[np.mod(whole, s["code_length"]).astype(np.int64)]
    if s["sub_phases"] > 1:
        sub = np.minimum(np.floor((t - whole) * s["sub_phases"]).astype(np.int64),
                         s["sub_phases"] - 1)
        value = value * np.asarray(s["subcarrier"])[sub]
    return value


def reference_correlate(x, satellites, taps_chips, samp_rate):
    """The definition evaluated directly: complex128 [n_satellites,
    n_antennas, n_taps], products and sums in float64, code phases in
    extended precision (np.longdouble): a sample 1e-13 chip from a chip or
    sub-chip edge (100 000 samples of E1-B meet one) is placed by the
    exact phase, which float64's 1e-11 chip at 5e4 chips would not."""
    x = np.atleast_2d(np.asarray(x))
    n = x.shape[1]
    out = np.zeros((len(satellites), x.shape[0], len(taps_chips)), np.complex128)
    for k, sat in enumerate(satellites):
        start = int(sat.get("start", 0))
        length = int(sat.get("length", n - start))
        i = np.arange(length, dtype=np.float64)
        carrier = np.exp(-2j * np.pi * (sat.get("carrier_phase", 0.0) +
                                        sat.get("carrier_freq", 0.0) * i / samp_rate))
        code_freq = sat.get("code_freq", _signal(sat["system"])["chip_rate"])
        wiped = x[:, start:start + length].astype(np.complex128) * carrier
        il = np.arange(length, dtype=np.longdouble)
        tau0 = np.longdouble(sat.get("code_phase", 0.0))
        sign = 1.0
        if sat.get("secondary_chip", -1) >= 0:
            # Each primary period of the prompt replica (all taps) times its
            # secondary chip's sign; the period holding sample start carries
            # secondary_chip.
            L = _signal(sat["system"])["code_length"]
            prompt = np.mod(tau0, L) + np.longdouble(code_freq) * il / np.longdouble(samp_rate)
            period = np.floor(prompt / L).astype(np.int64)
            sign = secondary_signs(sat["system"], sat["prn"], sat["secondary_chip"] + period)
        for l, tap in enumerate(taps_chips):
            t = tau0 + np.longdouble(tap) + np.longdouble(code_freq) * il / np.longdouble(samp_rate)
            c = replica(sat["system"], sat["prn"], t) * sign
            out[k, :, l] = wiped @ c
    return out


def synthetic_signal(n_samples, samp_rate, satellites, n_antennas=1, cn0_dbhz=None,
                     antenna_phases=None, first_sample=0, rng=None):
    """complex64 [n_antennas, n_samples] holding the satellites' signals and
    complex white noise of unit power per sample (when cn0_dbhz is given).

    Each satellite dict: system, prn, carrier_freq (Hz), code_freq (chips/s),
    carrier_phase (cycles) and code_phase (chips) at absolute sample 0,
    optional amplitude, optional bits (a +-1 array, one per
    bit_periods code periods, default SYMBOL_PERIODS), optional
    secondary=True (each primary period k, counted from code phase 0,
    multiplied by the sign of secondary chip k; see secondary_signs) and
    cn0_dbhz (overrides the default). Sample i of the result is absolute sample
    first_sample + i, so consecutive calls continue the signal.
    antenna_phases[m][k]: the phase (cycles) antenna m adds to satellite k."""
    rng = np.random.default_rng() if rng is None else rng
    i = first_sample + np.arange(n_samples, dtype=np.float64)
    x = np.zeros((n_antennas, n_samples), np.complex128)
    if cn0_dbhz is not None:
        x += (rng.standard_normal((n_antennas, n_samples)) +
              1j * rng.standard_normal((n_antennas, n_samples))) / np.sqrt(2)
    for k, sat in enumerate(satellites):
        s = _signal(sat["system"])
        t = sat.get("code_phase", 0.0) + sat["code_freq"] * i / samp_rate
        c = replica(sat["system"], sat["prn"], t)
        if "bits" in sat:
            per = sat.get("bit_periods", SYMBOL_PERIODS.get(sat["system"], 1))
            bit = np.floor(t / (s["code_length"] * per)).astype(np.int64)
            c = c * np.asarray(sat["bits"])[np.mod(bit, len(sat["bits"]))]
        if sat.get("secondary", False):
            c = c * secondary_signs(sat["system"], sat["prn"],
                                    np.floor(t / s["code_length"]).astype(np.int64))
        cn0 = sat.get("cn0_dbhz", cn0_dbhz)
        amp = sat.get("amplitude", 1.0)
        if cn0 is not None:
            # Noise of unit power in samp_rate: C/N0 = A^2 / (1 / fs).
            amp = np.sqrt(10 ** (cn0 / 10) / samp_rate)
        phase = sat.get("carrier_phase", 0.0) + sat["carrier_freq"] * i / samp_rate
        for m in range(n_antennas):
            extra = 0.0 if antenna_phases is None else antenna_phases[m][k]
            x[m] += amp * c * np.exp(2j * np.pi * (phase + extra))
    return x.astype(np.complex64)


def record_dtype(n_antennas, n_taps):
    """numpy dtype of one output record of wipeoff_correlator (64-byte
    header, then complex64 [antenna][tap]); see docs/gnss.md."""
    return np.dtype([("system", "<i4"), ("prn", "<i4"), ("start", "<i8"),
                     ("length", "<i8"), ("carrier_freq", "<f8"),
                     ("carrier_phase", "<f8"), ("code_freq", "<f8"),
                     ("code_phase", "<f8"), ("flags", "<u4"), ("integration", "<u4"),
                     ("correlations", "<c8", (n_antennas, n_taps))])


def parse_records(data, n_antennas, n_taps):
    """The records of a wipeoff_correlator output stream (bytes, or a uint8
    array) as a numpy structured array (record_dtype)."""
    return np.frombuffer(np.asarray(data, dtype=np.uint8).tobytes(),
                         dtype=record_dtype(n_antennas, n_taps))


def with_satellites(correlator, satellites):
    """Adds each satellite dict (system, prn, and optionally carrier_freq,
    code_freq, carrier_phase, code_phase, sample, secondary_chip) to a wipeoff_correlator
    and returns it (GRC's "Satellites" parameter)."""
    for sat in satellites:
        chip_rate = kernels.gnss_signal(sat["system"])["chip_rate"]
        correlator.add_satellite(sat["system"], int(sat["prn"]),
                                 float(sat.get("carrier_freq", 0.0)),
                                 float(sat.get("code_freq", chip_rate)),
                                 float(sat.get("carrier_phase", 0.0)),
                                 float(sat.get("code_phase", 0.0)),
                                 int(sat.get("sample", -1)))
        if int(sat.get("secondary_chip", -1)) >= 0:
            correlator.set_secondary_chip(sat["system"], int(sat["prn"]),
                                          int(sat["secondary_chip"]))
    return correlator

#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Delay models in pfb_fengine's two conventions, and the exact mapping
between them (docs/fengine.md, "Delay conventions").

A model is, per input, delay + delay_rate (n - at_sample) samples and
phase + phase_rate (n - at_sample) radians at input sample n. The
conventions read it differently:

- "gpudsp" evaluates it at each spectrum's window centre, rotates channel k
  by -pi tau k / N + phi (real input; -2 pi tau k' / N + phi for complex,
  k' the signed frequency index) and takes the coarse delay floor(tau + 0.5);
- "katgpucbf" (MeerKAT's CBF) evaluates it at the spectrum's first sample,
  rotates by -pi tau (k - N/2) / N + phi + pi/2 (D mod 4) for real input
  (the fine delay and phase referred to the band centre, fs/4), as gpudsp
  for complex input, and rounds the coarse delay half to even.

So between the two, for a window whose centre is h = n_taps x step / 2
samples after its start (step = 2 n_channels real, n_channels complex):
real input  d_g = d_k - r h,  phi'_g = phi'_k + pi/2 r,
            phi_g = phi_k + pi/2 d_k - phi'_g h;
complex     d_g = d_k - r h,  phi'_g = phi'_k,  phi_g = phi_k - phi'_k h;
and the delay rates are equal. The block then computes the same spectra
from either, except where the total delay falls exactly on a half sample
(the two round such ties differently)."""

import math

import numpy as np

__all__ = ["katgpucbf_to_gpudsp", "gpudsp_to_katgpucbf", "wrap_angle"]

_KEYS = ("delay", "delay_rate", "phase", "phase_rate")


def wrap_angle(x):
    """Radians into [-pi, pi)."""
    return (np.asarray(x, np.float64) + np.pi) % (2 * np.pi) - np.pi


def _centre_offset(n_channels, n_taps, complex_input):
    step = n_channels if complex_input else 2 * n_channels
    return n_taps * step / 2.0


def _arrays(model):
    n = len(np.atleast_1d(model["delay"]))
    out = {}
    for k in _KEYS:
        v = model.get(k)
        out[k] = np.zeros(n) if v is None or len(np.atleast_1d(v)) == 0 else \
            np.asarray(v, np.float64).reshape(-1)
        if len(out[k]) != n:
            raise ValueError(f"{k} must hold one value per input ({n}), got {len(out[k])}")
    return out


def katgpucbf_to_gpudsp(model, n_channels, n_taps, complex_input=False):
    """{delay, delay_rate, phase, phase_rate[, at_sample]} in katgpucbf's
    convention -> the same in gpudsp's (same at_sample), for a pfb_fengine
    of n_channels and n_taps."""
    m = _arrays(model)
    h = _centre_offset(n_channels, n_taps, complex_input)
    r = m["delay_rate"]
    out = {"delay": m["delay"] - r * h, "delay_rate": r.copy()}
    if complex_input:
        out["phase_rate"] = m["phase_rate"].copy()
        out["phase"] = wrap_angle(m["phase"] - m["phase_rate"] * h)
    else:
        out["phase_rate"] = m["phase_rate"] + 0.5 * math.pi * r
        out["phase"] = wrap_angle(m["phase"] + 0.5 * math.pi * m["delay"]
                                  - out["phase_rate"] * h)
    if "at_sample" in model:
        out["at_sample"] = model["at_sample"]
    return out


def gpudsp_to_katgpucbf(model, n_channels, n_taps, complex_input=False):
    """The inverse of katgpucbf_to_gpudsp."""
    m = _arrays(model)
    h = _centre_offset(n_channels, n_taps, complex_input)
    r = m["delay_rate"]
    out = {"delay": m["delay"] + r * h, "delay_rate": r.copy()}
    if complex_input:
        out["phase_rate"] = m["phase_rate"].copy()
        out["phase"] = wrap_angle(m["phase"] + m["phase_rate"] * h)
    else:
        out["phase_rate"] = m["phase_rate"] - 0.5 * math.pi * r
        out["phase"] = wrap_angle(m["phase"] - 0.5 * math.pi * out["delay"]
                                  + m["phase_rate"] * h)
    if "at_sample" in model:
        out["at_sample"] = model["at_sample"]
    return out

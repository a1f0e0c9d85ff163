#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The compute cores of gr-gpudsp's blocks, callable on numpy arrays.

Each function runs the same plan the block runs, on the backend asked for
("auto", "cuda" or "cpu"), and returns a numpy array.
"""

import numpy as np

from .gpudsp_python import _kernels

__all__ = ["unpack10", "pfb_weights", "fengine", "xengine", "ddc", "correlate",
           "gnss_code", "gnss_signal", "gnss_secondary_code", "ldpc5g_params", "ldpc5g_encode", "ldpc5g_decode",
           "ldpc5g_codeword", "ldpc5g_lifting_sizes"]


def unpack10(data, out_type="short", backend="auto", device=0):
    """Packed 10-bit bytes (1-D uint8) to int16 samples (float32 with
    ``out_type="float"``): every whole sample the bytes hold."""
    return _kernels.unpack10(data, out_type, backend, device)


def pfb_weights(n_channels, n_taps, w_cutoff=1.0, complex_input=False):
    """The F-engine's PFB window (float64, length step * n_taps with step =
    2 n_channels, or n_channels for complex input): a Hann window times a
    sinc, scaled so that sum(w**2) = 1. See docs/fengine.md."""
    return _kernels.pfb_weights(n_channels, n_taps, w_cutoff, complex_input)


def fengine(x, n_channels, n_taps=16, input_format="packed10", output_format="cf32",
            w_cutoff=1.0, weights=None, gains=None, fine_delays=None, phases=None,
            coarse_delays=None, dither=False, backend="auto", device=0,
            dither_seed=0x5EED, first_spectrum=0, return_saturation=False,
            delay_rates=None, phase_rates=None, reference_spectrum=0,
            centred_channels=False):
    """The F-engine (polyphase filter bank, FFT, corrections, quantisation).

    x: [n_inputs, n_samples] of the input format ("packed10": uint8
    [n_inputs, n_bytes]; "short": int16; "float": float32; "complex":
    complex64). Returns [n_spectra, n_channels, n_inputs] complex64, or for
    output_format "ci8" int8 [n_spectra, n_channels, n_inputs, 2] (and the
    [n_spectra, n_inputs] saturation counts with return_saturation=True).
    gains: [n_channels, n_inputs] complex; fine_delays, phases, coarse_delays:
    one per input (samples, radians, whole samples >= 0). delay_rates,
    phase_rates: one per input, samples and radians per spectrum: spectrum m
    (absolute, from first_spectrum) uses fine_delays + delay_rates (m -
    reference_spectrum) and phases + phase_rates (m - reference_spectrum).
    centred_channels (complex input): channel k holds frequency k - N/2
    (katgpucbf's order) instead of DC first. See docs/fengine.md for the
    definition."""
    result = _kernels.fengine(
        x, int(n_channels), int(n_taps), input_format, output_format, float(w_cutoff),
        [] if weights is None else [float(w) for w in weights],
        gains,
        [] if fine_delays is None else [float(t) for t in fine_delays],
        [] if phases is None else [float(p) for p in phases],
        [] if coarse_delays is None else [int(d) for d in coarse_delays],
        [] if delay_rates is None else [float(r) for r in delay_rates],
        [] if phase_rates is None else [float(r) for r in phase_rates],
        int(reference_spectrum),
        bool(dither), int(dither_seed), int(first_spectrum), backend, int(device),
        bool(centred_channels))
    if output_format == "ci8":
        out, sat = result
        return (out, sat) if return_saturation else out
    return result


def xengine(x, n_pols=2, backend="auto", device=0, output_format="auto", kernel="auto",
            return_saturation=False):
    """All-baseline cross-correlation summed over time.

    x: complex64 [n_time, n_channels, n_inputs], or int8 [n_time, n_channels,
    n_inputs, 2] (re, im in -127..127); input = station * n_pols + pol.
    Returns V [n_channels, n_baselines, n_pols, n_pols] complex64 (cf32 input,
    or output_format="cf32"), or int32 [..., 2] for int8 input (exact,
    saturated to +-(2**31 - 1)), with V[c][k(i,j)][p][q] = sum_t
    x[t,c,i*P+p] * conj(x[t,c,j*P+q]) for stations i >= j and
    k(i,j) = i(i+1)/2 + j. kernel: "auto", "fp32" or "tensor" (GPU only).
    With return_saturation=True returns (V, saturated visibilities)."""
    out, saturated, _ = _kernels.xengine(x, int(n_pols), output_format, kernel, backend,
                                         int(device))
    return (out, saturated) if return_saturation else out


def ddc(x, decimation, taps, center_freq, samp_rate, first_sample_index=0,
        input_format="complex", backend="auto", device=0):
    """Digital down-conversion: mix, low-pass FIR, decimate (docs/ddc.md).

    y[m] = sum_k taps[k] x[mD - k] exp(-2j pi center_freq (mD - k) / samp_rate),
    with x[n] the sample of absolute index n (x holds n = first_sample_index
    onwards; zeros before). Returns complex64 y[m] for every m whose sample
    mD lies in x, from m = ceil(first_sample_index / D). input_format:
    "complex" (complex64), "float", "short" or "packed10" (uint8 bytes)."""
    return _kernels.ddc(np.asarray(x), int(decimation), np.asarray(taps, np.complex128),
                        float(center_freq), float(samp_rate),
                        int(first_sample_index), input_format, backend, int(device))


def correlate(x, satellites, taps_chips=(0.5, 0.0, -0.5), samp_rate=None,
              input_format="complex", backend="auto", device=0, threads=1):
    """GNSS carrier wipe-off and code correlation (docs/gnss.md).

    x: complex64 [n_antennas, n_samples] (int16 [n_antennas, n_samples, 2]
    for input_format "complex_short"), or a C-contiguous complex64 CUDA
    array (anything with __cuda_array_interface__), read on the GPU where it
    lies. satellites: dicts with "system" (see gnss_signal), "prn", and
    optionally "carrier_freq" (Hz, 0), "carrier_phase" (cycles, 0),
    "code_freq" (chips/s, nominal), "code_phase" (chips, 0), "start" (0),
    "length" (to the end), "secondary_chip" (-1: primary code only; k:
    the primary period holding sample start carries secondary chip k, and
    every period is multiplied by its chip's sign). Returns complex64 [n_satellites,
    n_antennas, n_taps]:
    R[k][m][l] = sum_i x[m, start + i] exp(-2j pi (carrier_phase +
    carrier_freq i / samp_rate)) c_k(code_phase + taps_chips[l] +
    code_freq i / samp_rate). threads: CPU threads the satellites are
    spread over (1..256; the results do not depend on it)."""
    if samp_rate is None:
        raise ValueError("correlate: samp_rate is required")
    if not hasattr(x, "__cuda_array_interface__"):
        x = np.asarray(x)
    return _kernels.correlate(x, [dict(s) for s in satellites],
                              [float(t) for t in taps_chips], float(samp_rate),
                              input_format, backend, int(device), int(threads))


def gnss_code(system, prn):
    """The primary code of (system, prn) as int8 +1/-1, chip value 1 of the
    ICD as +1."""
    return _kernels.gnss_code(system, int(prn))


def gnss_signal(system):
    """code_length, n_prns, chip_rate, sub_phases, the subcarrier value of
    each sub-phase of a chip, secondary_length (0: none) and carrier_hz of
    a system: "gps_l1ca", "galileo_e1b", "gps_l5i", "gps_l5q",
    "galileo_e5ai" or "galileo_e5aq"."""
    return _kernels.gnss_signal(system)


def gnss_secondary_code(system, prn):
    """The secondary code of (system, prn) as the int8 sign (+1/-1) each
    primary code period is multiplied by: 1 - 2 s for ICD chip s; empty for
    a system without one."""
    return _kernels.gnss_secondary_code(system, int(prn))


def ldpc5g_params(K, E, rv=0, Qm=1, n_ref=0, bg=0):
    """The 5G NR LDPC code for K information bits sent as E bits (TS 38.212
    5.3.2, 5.4.2): BG, Z, iLS, K_ldpc, N, Ncb, k0, fillers, rows_used.
    bg=1 or 2 overrides the standard's choice of base graph; n_ref > 0 is
    a limited buffer."""
    return _kernels.ldpc5g_params(int(K), int(E), int(rv), int(Qm), int(n_ref), int(bg))


def ldpc5g_encode(bits, E, rv=0, Qm=1, n_ref=0, bg=0):
    """uint8 0/1 bits [batch, K] -> rate-matched, interleaved coded bits
    [batch, E] (uint8 0/1)."""
    return _kernels.ldpc5g_encode(np.asarray(bits), int(E), int(rv), int(Qm), int(n_ref),
                                  int(bg))


def ldpc5g_codeword(bits, E, rv=0, Qm=1, n_ref=0, bg=0):
    """The full mother codeword c (n_cols Z bits, fillers 0) of K bits."""
    return _kernels.ldpc5g_codeword(np.asarray(bits), int(E), int(rv), int(Qm), int(n_ref),
                                    int(bg))


def ldpc5g_decode(llrs, K, rv=0, Qm=1, n_ref=0, max_iterations=10, algorithm="layered_nms",
                  scaling=0.75, offset=0.0, arithmetic="float", fixed_scale=4.0,
                  llr_sign="positive_is_zero", early_termination=True, backend="auto",
                  device=0, bg=0, E=None, packed_bits=False):
    """Decodes LLRs [batch, E] (received order) into (bits [batch, K] uint8,
    iterations [batch] int32, ok [batch] bool). LLRs float32, float16, or int8
    counting fixed-point steps (LLR = value / fixed_scale); on CUDA the
    fixed-point layered decoder reads float16 and int8 as they are (2 and 4
    times fewer bytes to the GPU). packed_bits: bits [batch, ceil(K / 8)],
    MSB first. algorithm: "layered_nms" or
    "flooding_nms" (normalized min-sum with scaling, minus offset);
    arithmetic "fixed": int16 a-posteriori values, int8 messages, LLRs
    quantised to fixed_scale steps per unit (bit-exact between CPU and
    GPU). llr_sign: "positive_is_zero" (3GPP) or "positive_is_one". E, when
    given, must equal the LLRs per codeword (llrs.shape[-1])."""
    llrs = np.asarray(llrs)
    if llrs.dtype not in (np.int8, np.float16):
        llrs = llrs.astype(np.float32, copy=False)
    if E is not None and (llrs.ndim == 0 or llrs.shape[-1] != int(E)):
        raise ValueError(f"ldpc5g_decode: llrs hold {llrs.shape[-1] if llrs.ndim else 0} "
                         f"values per codeword, E = {int(E)}")
    return _kernels.ldpc5g_decode(llrs, int(K), int(rv), int(Qm),
                                  int(n_ref), int(max_iterations), algorithm, float(scaling),
                                  float(offset), arithmetic, float(fixed_scale), llr_sign,
                                  bool(early_termination), backend, int(device), int(bg),
                                  bool(packed_bits))


def ldpc5g_lifting_sizes():
    """The 51 lifting sizes of TS 38.212 Table 5.3.2-1, ascending."""
    return list(_kernels.ldpc5g_lifting_sizes())

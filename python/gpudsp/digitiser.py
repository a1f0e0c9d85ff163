#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A synthetic digitiser (a GNU Radio source block): N dual-polarisation
antennas sampling a sky of point sources, receiver noise and an optional
RFI tone, quantised to packed 10-bit, as a real-sampling digitiser in a
given Nyquist zone sees them (docs/fx.md).

Each source is a white Gaussian voltage per polarisation (independent
between the two), optionally shaped to its spectral index; antenna a
receives it delayed by its own geometric delay tau_a(t), which changes over
the run. The delay is applied exactly as the radio-frequency signal is
delayed: whole samples by indexing, the rest by a 512-tap Kaiser-windowed
(beta 8) filter whose response is exp(i theta) exp(-2 pi i f frac) at
baseband f > 0, theta the phase the Nyquist zone adds (a second-zone
signal, inverted, turns by +2 pi fs tau). Its error is below 2e-4 in
amplitude and 1e-4 rad in phase from 1 % to 99 % of Nyquist
(qa_digitiser). The delay is updated every `update` samples (4096; a
geometric delay moves by less than 1e-14 s in that time, 1e-4 rad at
1.7 GHz).

Deterministic for a seed: samples are made in fixed blocks whatever sizes
the scheduler asks for, so a stream cut anywhere is the same stream."""

import math

import numpy as np
from gnuradio import gr

from . import formats

__all__ = ["delay_filter", "digitiser_source", "digitiser_signal", "FILTER_TAPS"]

FILTER_TAPS = 512
FILTER_BETA = 8.0
FILTER_CENTRE = FILTER_TAPS // 2 - 1  # a filter delays by this + frac samples


def delay_filter(frac, theta, n_taps=FILTER_TAPS, beta=FILTER_BETA):
    """Taps that delay a real signal by n_taps/2 - 1 + frac samples and turn
    its positive frequencies by theta (negative ones by -theta):
    cos(theta) sinc(t) - sin(theta) (1 - cos(pi t)) / (pi t), the
    band-limited identity and Hilbert transformer at t = n - centre - frac,
    under a Kaiser window centred on the delay. frac and theta may be
    arrays of the same shape S: the taps are then [*S, n_taps]."""
    frac = np.asarray(frac, np.float64)[..., None]
    theta = np.asarray(theta, np.float64)[..., None]
    t = np.arange(n_taps) - (n_taps // 2 - 1) - frac
    with np.errstate(divide="ignore", invalid="ignore"):
        hilbert = np.where(np.abs(t) < 1e-12, 0.0, (1 - np.cos(np.pi * t)) / (np.pi * t))
    x = np.clip(1 - (t / (n_taps / 2)) ** 2, 0, None)
    window = np.i0(beta * np.sqrt(x)) / np.i0(beta)
    return window * (np.cos(theta) * np.sinc(t) - np.sin(theta) * hilbert)


def zone_turn(nyquist_zone):
    """theta per sample of delay: the turn a delay of one sample gives a
    sampled signal of this Nyquist zone at baseband f > 0, over and above
    exp(-2 pi i f delay) (even zones are inverted)."""
    z = int(nyquist_zone)
    return 2 * math.pi * (z // 2 if z % 2 == 0 else -(z - 1) // 2)


def spectral_shape_filter(band, ref_freq, spectral_index, n_taps=255):
    """Linear-phase taps (odd length, delay (n_taps-1)/2 samples) whose gain
    at baseband f is sqrt((nu(f) / ref_freq)^alpha): a voltage with flux
    density S(nu) = S0 (nu/ref_freq)^alpha. None for alpha = 0."""
    if spectral_index == 0:
        return None
    n = 4096
    f = np.arange(n // 2 + 1) / n  # cycles per sample
    nu = np.maximum(band.sky_frequency(f * band.samp_rate), 1.0)
    gain = np.sqrt((nu / ref_freq) ** spectral_index)
    h = np.fft.irfft(gain, n)  # zero-phase, circular
    h = np.roll(h, n_taps // 2)[:n_taps]
    return h * np.kaiser(n_taps, 6.0)


def _finite(value, low=None):
    return formats.finite_number(value) and (low is None or value >= low)


def _validate(n_antennas, band, sources, noise_power, offset, rfi, seed):
    """Refuses bad arguments by name (docs/reliability.md)."""
    if not isinstance(n_antennas, (int, np.integer)) or not 1 <= n_antennas <= 2048:
        raise ValueError(f"digitiser: n_antennas must be an integer in [1, 2048] "
                         f"(got {n_antennas!r})")
    if not (_finite(getattr(band, "samp_rate", None), 1e-300) and
            isinstance(getattr(band, "nyquist_zone", None), (int, np.integer)) and
            band.nyquist_zone >= 1):
        raise ValueError(f"digitiser: band must be a sky.band with a finite samp_rate > 0 "
                         f"and nyquist_zone >= 1 (got {band!r})")
    for j, s in enumerate(sources):
        if not (isinstance(s, (tuple, list)) and len(s) == 3 and callable(s[0]) and
                _finite(s[1], 0.0)):
            raise ValueError(f"digitiser: sources[{j}] must be (delays function, power >= 0, "
                             f"shape taps or None) (got {s!r})")
    if not _finite(noise_power, 0.0):
        raise ValueError(f"digitiser: noise_power must be finite and >= 0 (got {noise_power!r})")
    if not _finite(offset, 0.0):
        raise ValueError(f"digitiser: offset must be finite and >= 0 s (got {offset!r})")
    if rfi is not None and not (isinstance(rfi, (tuple, list)) and len(rfi) == 2 and
                                _finite(rfi[0], 0.0) and rfi[0] <= band.samp_rate / 2 and
                                _finite(rfi[1])):
        raise ValueError(f"digitiser: rfi must be None or (frequency in [0, fs/2] Hz, "
                         f"finite amplitude) (got {rfi!r})")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"digitiser: seed must be an integer >= 0 (got {seed!r})")


class digitiser_signal:
    """The digitiser's samples, made block by block (no GNU Radio): used by
    digitiser_source and by tests.

    sources: list of (delays, power, shape): delays(seconds array) ->
    [time, antenna] geometric delays (s, relative to the array); power:
    variance (digitiser units^2) of the source in each polarisation;
    shape: spectral taps or None. noise_power: variance per input. rfi:
    None or (baseband frequency Hz, amplitude). The common delay offset
    keeps every antenna's delay positive: antenna a's signal of source j is
    s_j(t - offset - tau_aj(t) - FILTER_CENTRE / fs)."""

    BLOCK = 65536

    def __init__(self, n_antennas, band, sources, noise_power, offset, rfi=None, seed=1,
                 update=4096):
        _validate(n_antennas, band, sources, noise_power, offset, rfi, seed)
        self.n_antennas = int(n_antennas)
        self.band = band
        self.fs = band.samp_rate
        self.sources = sources
        self.noise_sigma = math.sqrt(noise_power)
        self.offset = float(offset)
        self.rfi = rfi
        self.update = int(update)
        if self.BLOCK % self.update:
            raise ValueError("digitiser: update must divide the block of 65536 samples")
        self.turn = zone_turn(band.nyquist_zone)
        self.rng = np.random.default_rng(seed)
        # Each source's voltage per polarisation: the recent past it still
        # needs (the longest delay, the filters) as history.
        longest = 0.0
        for delays, _, _ in sources:
            d = self.offset + delays(np.array([0.0]))[0]
            if d.min() < 0:
                raise ValueError("digitiser: the offset must make every delay >= 0")
            longest = max(longest, float(d.max()))
        # Margin: delays may grow during the run (by 1e-5 s, or 3 km of
        # path, at most: Earth rotation moves them far less).
        self.history_len = int(math.ceil((longest + 1e-5) * self.fs)) + 2 * FILTER_TAPS
        self.n_made = 0
        self._shape_state = {}
        # The sources' past is signal too: the first samples already see
        # every antenna's delayed copy (a stream that starts with zeros in
        # place of the delayed source would lose correlation at the start).
        self.history = []
        for j, (_, power, shape) in enumerate(sources):
            past = self.rng.normal(0, math.sqrt(power), (2, self.history_len))
            if shape is not None:
                self._shaped(j, self.rng.normal(0, math.sqrt(power), (2, len(shape) - 1)), shape)
                past = self._shaped(j, past, shape)
            self.history.append(past)

    def block(self):
        """[2 * n_antennas, BLOCK] float64 samples (antenna a pol p at 2a + p)."""
        n, U, L = self.BLOCK, self.update, FILTER_TAPS
        out = self.rng.normal(0, self.noise_sigma, (2 * self.n_antennas, n))
        n_fft = 1 << int(math.ceil(math.log2(U + L - 1)))
        for j, (delays, power, shape) in enumerate(self.sources):
            fresh = self.rng.normal(0, math.sqrt(power), (2, n))  # [pol, sample]
            if shape is not None:
                fresh = self._shaped(j, fresh, shape)
            s = np.concatenate([self.history[j], fresh], axis=1)
            self.history[j] = s[:, -self.history_len:]
            base = s.shape[1] - n  # index of this block's first sample in s
            # Delays at each sub-block's centre.
            centres = (self.n_made + np.arange(0, n, U) + U / 2) / self.fs
            tau = (self.offset + delays(centres)) * self.fs  # [sub-block, antenna] samples
            # Every antenna of a sub-block at once: its segment of the source
            # (history included) through its own delay filter, by
            # overlap-save FFTs batched over antennas and polarisations.
            window = np.arange(U + L - 1)
            for u in range(n // U):
                m0 = u * U
                K = np.floor(tau[u])
                H = np.fft.rfft(delay_filter(tau[u] - K, self.turn * tau[u]), n_fft)  # [A, f]
                start = base + m0 - K.astype(np.int64) - (L - 1)
                if start.min() < 0:
                    raise RuntimeError("digitiser: a delay grew beyond the history "
                                       "kept for it (offset too small)")
                if start.max() + U + L - 1 > s.shape[1]:
                    raise RuntimeError("digitiser: a delay fell below zero during the run "
                                       "(offset too small)")
                seg = s[:, start[:, None] + window]  # [pol, A, U + L - 1]
                y = np.fft.irfft(np.fft.rfft(seg, n_fft) * H, n_fft)[..., L - 1:L - 1 + U]
                out[:, m0:m0 + U] += y.transpose(1, 0, 2).reshape(2 * self.n_antennas, U)
        if self.rfi is not None:
            f, amp = self.rfi
            out += amp * np.cos(2 * np.pi * f / self.fs * (self.n_made + np.arange(n)))
        self.n_made += n
        return out

    def _shaped(self, j, fresh, taps):
        """The white voltages [pol, n] through the spectral-shape filter,
        continuous across blocks (its own short history)."""
        past = self._shape_state.get(j, np.zeros((2, len(taps) - 1)))
        x = np.concatenate([past, fresh], axis=1)
        self._shape_state[j] = x[:, -(len(taps) - 1):]
        # By FFT (np.convolve's direct sum goes through the reference BLAS's
        # ddot, the slowest step of the simulation); the same to 1e-15.
        n_fft = 1 << int(math.ceil(math.log2(x.shape[1])))
        y = np.fft.irfft(np.fft.rfft(x, n_fft) * np.fft.rfft(taps, n_fft), n_fft)
        return y[:, len(taps) - 1:x.shape[1]]


class digitiser_source(gr.sync_block):
    """Outputs 2 * n_antennas byte streams (antenna a, polarisation p on port
    2a + p) of packed 10-bit samples (4 samples per 5 bytes), from a
    digitiser_signal (its arguments, see there). n_samples: stop after this
    many samples per input (None: never)."""

    def __init__(self, n_antennas, band, sources, noise_power, offset, rfi=None, seed=1,
                 n_samples=None):
        if n_samples is not None and (not isinstance(n_samples, (int, np.integer)) or
                                      n_samples < 0):
            raise ValueError(f"digitiser: n_samples must be None or an integer >= 0 "
                             f"(got {n_samples!r})")
        # Made (and its arguments checked) before the ports depend on them.
        self._signal_args = (n_antennas, band, sources, noise_power, offset, rfi, seed)
        signal = digitiser_signal(*self._signal_args)
        gr.sync_block.__init__(self, name="digitiser_source", in_sig=None,
                               out_sig=[np.uint8] * (2 * n_antennas))
        self.n_bytes = None if n_samples is None else \
            formats.packed10_bytes(int(n_samples) // 4 * 4)
        self._restart(signal)

    def _restart(self, signal):
        self.signal = signal
        n_ports = 2 * self._signal_args[0]
        self.pending = [np.zeros(0, np.uint8) for _ in range(n_ports)]
        self.n_sent = 0
        self.clipped = 0  # samples beyond the 10-bit range

    def start(self):
        # A flowgraph run again counts items from 0: the same samples again
        # (a fresh signal from the same arguments and seed), not the rest.
        if self.n_sent:
            self._restart(digitiser_signal(*self._signal_args))
        return True

    def _make_block(self):
        x = self.signal.block()
        q = np.round(x)
        self.clipped += int(np.count_nonzero((q < -512) | (q > 511)))
        q = np.clip(q, -512, 511).astype(np.int16)
        return [formats.pack10(row) for row in q]

    def work(self, input_items, output_items):
        want = len(output_items[0])
        if self.n_bytes is not None:
            want = min(want, self.n_bytes - self.n_sent)
            if want <= 0:
                return -1  # WORK_DONE
        self.n_sent += want
        while len(self.pending[0]) < want:
            block = self._make_block()
            self.pending = [np.concatenate([p, b]) for p, b in zip(self.pending, block)]
        for i, o in enumerate(output_items):
            o[:want] = self.pending[i][:want]
            self.pending[i] = self.pending[i][want:]
        return want

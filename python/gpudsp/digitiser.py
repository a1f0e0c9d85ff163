#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A synthetic digitiser for N dual-polarisation antennas (a GNU Radio
source block): a broadband point source seen by every antenna with its own
geometric delay (whole plus fractional samples), independent receiver noise
per input, an optional narrowband RFI tone, quantised to packed 10-bit.

Deterministic for a given seed: samples are made in fixed blocks whatever
sizes the scheduler asks for.
"""

import numpy as np
from gnuradio import gr

from . import formats

__all__ = ["digitiser_source", "fractional_delay_taps"]


def fractional_delay_taps(frac, n_taps=64):
    """A Blackman-windowed sinc that delays by n_taps/2 - 1 + frac samples
    (0 <= frac < 1), with unit gain at DC."""
    centre = n_taps // 2 - 1 + frac
    x = np.arange(n_taps) - centre
    window = 0.42 + 0.5 * np.cos(2 * np.pi * x / n_taps) + 0.08 * np.cos(4 * np.pi * x / n_taps)
    h = np.sinc(x) * window
    return h / np.sum(h)


class digitiser_source(gr.sync_block):
    """Outputs: 2 * n_antennas byte streams (antenna a, pol p on port 2a + p)
    of packed 10-bit samples (4 samples per 5 bytes).

    delays: per antenna, in samples (>= 0): when the source's wavefront
    reaches each antenna, after the earliest. source_sigma, noise_sigma:
    standard deviations in 10-bit units of the source (common to one
    polarisation of every antenna; the two polarisations see independent
    source signals) and of the receiver noise (independent per input).
    rfi: None or (frequency in cycles per sample, amplitude), on every input.
    n_samples: stop after this many samples per input (None: never).
    """

    BLOCK = 65536  # samples made at a time (a multiple of 4)
    TAPS = 64      # fractional-delay filter length

    def __init__(self, n_antennas, delays, source_sigma=30.0, noise_sigma=30.0,
                 rfi=None, seed=1, n_samples=None):
        gr.sync_block.__init__(self, name="digitiser_source", in_sig=None,
                               out_sig=[np.uint8] * (2 * n_antennas))
        self.n_antennas = int(n_antennas)
        delays = np.asarray(delays, float)
        if delays.shape != (self.n_antennas,) or np.any(delays < 0):
            raise ValueError("digitiser_source: give one delay >= 0 per antenna")
        self.whole = np.floor(delays).astype(int)
        self.filters = [fractional_delay_taps(f, self.TAPS) for f in delays - self.whole]
        self.source_sigma = float(source_sigma)
        self.noise_sigma = float(noise_sigma)
        self.rfi = rfi
        self.rng = np.random.default_rng(seed)
        # Per polarisation, the source's recent past: the longest delay plus the filter.
        self.history = [np.zeros(int(self.whole.max()) + self.TAPS) for _ in range(2)]
        self.pending = [np.zeros(0, np.uint8) for _ in range(2 * self.n_antennas)]
        self.n_made = 0  # samples made per input so far
        self.n_bytes = None if n_samples is None else formats.packed10_bytes(int(n_samples) // 4 * 4)
        self.n_sent = 0  # bytes handed out per output

    def _make_block(self):
        n = self.BLOCK
        h0 = len(self.history[0])
        streams = []
        for p in range(2):
            s = np.concatenate([self.history[p], self.rng.normal(0, self.source_sigma, n)])
            self.history[p] = s[-h0:]
            streams.append(s)
        tone = 0.0
        if self.rfi is not None:
            f, amp = self.rfi
            tone = amp * np.cos(2 * np.pi * f * (self.n_made + np.arange(n)))
        out = []
        for a in range(self.n_antennas):
            # Output m of the filter is source sample (m - whole - frac - (TAPS/2 - 1));
            # the fixed TAPS/2 - 1 is common to all inputs.
            start = h0 - self.whole[a] - (self.TAPS - 1)
            for p in range(2):
                seg = streams[p][start: start + n + self.TAPS - 1]
                x = np.convolve(seg, self.filters[a], mode="valid")
                x += self.rng.normal(0, self.noise_sigma, n) + tone
                q = np.clip(np.round(x), -512, 511).astype(np.int16)
                out.append(formats.pack10(q))
        self.n_made += n
        return out

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

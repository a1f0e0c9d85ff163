#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A complete FX correlator in one GNU Radio flowgraph:

    digitiser_source (10-bit, N dual-pol antennas, a point source)
      -> pfb_fengine (delays compensated or not) -> xengine -> visibility_sink

with the checks that prove its output (phase slopes against the injected
geometric delays, flat phases after compensation, autocorrelation levels,
the RFI channel), and the files it writes (HDF5 or .npz, PNG plots).
Used by apps/gpudsp_fx_correlator and the tests.
"""

import json
import math
import os
import threading
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import pmt
from gnuradio import gr

from .digitiser import digitiser_source
from .gpudsp_python import buffer_counters, pfb_fengine, xengine
from .xengine_helpers import xengine_to_matrix

SPEED_OF_LIGHT = 299792458.0


@dataclass
class fx_params:
    antennas: int = 4
    channels: int = 256
    taps: int = 16
    samp_rate: float = 1712e6        # Hz, real samples per polarisation
    seconds: float = 0.004           # of digitiser data
    integration: int = 1024          # spectra per dump
    compensate: bool = True          # apply the geometric delays in the F-engine
    backend: str = "auto"
    device: int = 0
    seed: int = 1
    array_radius: float = 10.0       # m: antennas in a disc of this radius
    azimuth: float = 30.0            # deg, source direction
    elevation: float = 50.0          # deg
    source_sigma: float = 30.0       # 10-bit units
    noise_sigma: float = 30.0        # 10-bit units, per input
    rfi_freq: float = 0.37           # fraction of the band (0..1); negative: none
    rfi_amplitude: float = 3.0       # 10-bit units
    dither: bool = True

    def step(self):
        return 2 * self.channels

    def n_samples(self):
        """Samples per input: whole dumps of whole spectra."""
        per_dump = self.step() * self.integration
        dumps = max(1, int(self.seconds * self.samp_rate) // per_dump)
        return dumps * per_dump + (self.taps - 1) * self.step()

    def rfi_channel(self):
        return None if self.rfi_freq < 0 else int(round(self.rfi_freq * self.channels))


@dataclass
class fx_geometry:
    positions: np.ndarray      # [antenna, 3] m, east-north-up
    direction: np.ndarray      # unit vector to the source
    arrival: np.ndarray        # [antenna] samples after the earliest antenna

    @staticmethod
    def make(p):
        rng = np.random.default_rng(p.seed + 1000)
        r = p.array_radius * np.sqrt(rng.random(p.antennas))
        phi = 2 * np.pi * rng.random(p.antennas)
        pos = np.stack([r * np.cos(phi), r * np.sin(phi), rng.normal(0, 0.1, p.antennas)], 1)
        az, el = math.radians(p.azimuth), math.radians(p.elevation)
        s = np.array([math.cos(el) * math.sin(az), math.cos(el) * math.cos(az), math.sin(el)])
        # An antenna further along s meets the wavefront earlier.
        tau = -(pos @ s) / SPEED_OF_LIGHT * p.samp_rate
        return fx_geometry(pos, s, tau - tau.min())


class visibility_sink(gr.sync_block):
    """Collects dumps (ci32) and their tags."""

    def __init__(self, item_values):
        gr.sync_block.__init__(self, name="visibility_sink",
                               in_sig=[(np.int32, item_values)], out_sig=None)
        self.dumps, self.meta = [], []

    def work(self, input_items, output_items):
        x = input_items[0]
        n0 = self.nitems_read(0)
        tags = self.get_tags_in_window(0, 0, len(x))
        for d in range(len(x)):
            self.dumps.append(np.array(x[d]))
            m = {}
            for t in tags:
                if t.offset == n0 + d:
                    m[pmt.symbol_to_string(t.key)] = pmt.to_python(t.value)
            self.meta.append(m)
        return len(x)


def delay_corrections(p, geom):
    """Coarse (whole) and fine (|tau| <= 0.5) delays per input that line
    every antenna up with the latest one."""
    need = geom.arrival.max() - geom.arrival  # delay each antenna's signal by this
    coarse = np.round(need).astype(int)
    fine = need - coarse
    return np.repeat(coarse, 2), np.repeat(fine, 2)


def run(p, progress=None):
    """Builds and runs the flowgraph; returns a result dict."""
    geom = fx_geometry.make(p)
    n_inputs = 2 * p.antennas
    rfi = None
    if p.rfi_freq >= 0:
        # Cycles per sample at the centre of the RFI channel.
        rfi = (p.rfi_channel() / (2.0 * p.channels), p.rfi_amplitude)
    src = digitiser_source(p.antennas, geom.arrival, p.source_sigma, p.noise_sigma, rfi,
                           p.seed, p.n_samples())
    max_delay = int(math.ceil(geom.arrival.max())) + 4
    fe = pfb_fengine(n_inputs, p.channels, p.taps, "packed10", "ci8", 1.0, [], p.dither,
                     p.backend, p.device, max_delay)
    # Gain: int8 values of about 12 rms per part, far from the clip at 127.
    sigma2 = p.source_sigma ** 2 + p.noise_sigma ** 2 + 1.0 / 12
    gain = 12.0 * math.sqrt(2.0) / math.sqrt(sigma2)
    fe.set_gains([complex(gain)] * (p.channels * n_inputs))
    if p.compensate:
        coarse, fine = delay_corrections(p, geom)
        fe.set_coarse_delays([int(c) for c in coarse])
        fe.set_fine_delays([float(f) for f in fine])
    xe = xengine(p.antennas, 2, p.channels, p.integration, "ci8", "ci32", p.backend, p.device)
    n_baselines = p.antennas * (p.antennas + 1) // 2
    sink = visibility_sink(p.channels * n_baselines * 4 * 2)
    tb = gr.top_block("fx_correlator")
    for i in range(n_inputs):
        tb.connect((src, i), (fe, i))
    tb.connect(fe, xe, sink)

    total_spectra = p.n_samples() // p.step()
    done = threading.Event()

    def report_progress():
        while not done.wait(1.0):
            if progress:
                progress(min(1.0, xe.nitems_read(0) / total_spectra))

    t0 = time.perf_counter()
    watcher = threading.Thread(target=report_progress, daemon=True)
    watcher.start()
    tb.run()
    done.set()
    seconds = time.perf_counter() - t0

    V = np.stack(sink.dumps).reshape(-1, p.channels, n_baselines, 2, 2, 2) if sink.dumps else \
        np.zeros((0, p.channels, n_baselines, 2, 2, 2), np.int32)
    edge = buffer_counters(fe, 0, "output")
    return dict(params=p, geometry=geom, visibilities=V, meta=sink.meta, gain=gain,
                wall_seconds=seconds, backend=fe.backend(), kernel=xe.kernel(),
                fx_edge_counters=edge, samples_per_input=p.n_samples())


# ---------------------------------------------------------------------------
# Checks

@dataclass
class check:
    name: str
    passed: bool
    detail: str


def _summed(result):
    """Visibilities summed over dumps and normalised per spectrum, complex128."""
    V = result["visibilities"]
    used = sum(m.get("gpudsp.spectra_used", 0) for m in result["meta"])
    Vc = V[..., 0].astype(np.float64) + 1j * V[..., 1].astype(np.float64)
    return Vc.sum(axis=0) / max(used, 1)


def _good_channels(p):
    k = np.arange(p.channels)
    good = (k >= max(2, p.channels // 32)) & (k <= int(0.85 * p.channels))
    rc = p.rfi_channel()
    if rc is not None:
        good &= np.abs(k - rc) > 1
    return k[good]


def fit_delay(v, k, N):
    """The delay difference, in samples, of a cross-spectrum v over channels
    k: phase(v) = -pi k delta / N. A delay search (the peak of the fringe,
    |sum v e^{i pi k delta / N}|, on a 1/8-sample grid over +-N) and then a
    straight-line fit to the unwrapped residual phase."""
    grid = np.arange(-N, N, 0.125)
    power = np.abs(np.exp(1j * np.pi * np.outer(grid, k) / N) @ v)
    coarse = grid[np.argmax(power)]
    residual = np.unwrap(np.angle(v * np.exp(1j * np.pi * k * coarse / N)))
    slope = np.polyfit(k, residual, 1)[0]
    return coarse - slope * N / np.pi


def verify(result):
    """The correlator's own proof that it worked: a list of checks."""
    p, geom = result["params"], result["geometry"]
    out = []
    if result["visibilities"].shape[0] == 0:
        return [check("dumps", False, "no dump was produced")]
    V = _summed(result)  # [channel, baseline, p, q]
    k = _good_channels(p)
    N = p.channels

    # Phases of same-pol cross-correlations against the injected delays.
    worst_delay, worst_rms = 0.0, 0.0
    for i in range(p.antennas):
        for j in range(i):
            b = i * (i + 1) // 2 + j
            expected = 0.0 if p.compensate else geom.arrival[i] - geom.arrival[j]
            for pol in range(2):
                delta = fit_delay(V[k, b, pol, pol], k, N)
                worst_delay = max(worst_delay, abs(delta - expected))
                residual = np.angle(V[k, b, pol, pol] * np.exp(1j * np.pi * k * expected / N))
                worst_rms = max(worst_rms, float(np.sqrt(np.mean(residual ** 2))))
    if p.antennas > 1:
        what = "flat phases (delays compensated)" if p.compensate else \
            "phase slopes = injected delay differences"
        out.append(check("delay", worst_delay < 0.02,
                         f"{what}: worst fitted delay error {worst_delay:.4f} samples "
                         f"(tolerance 0.02)"))
        out.append(check("phase", worst_rms < 0.05,
                         f"worst RMS phase residual {worst_rms:.4f} rad (tolerance 0.05)"))

    # Autocorrelation levels: g^2 (source + noise + 10-bit rounding) plus the
    # int8 rounding (1/12 per part) and dither (1/12 per part).
    g2 = result["gain"] ** 2
    expected = g2 * (p.source_sigma ** 2 + p.noise_sigma ** 2 + 1.0 / 12) + \
        (1.0 / 3 if p.dither else 1.0 / 6)
    worst = 0.0
    for a in range(p.antennas):
        b = a * (a + 1) // 2 + a
        for pol in range(2):
            level = np.mean(V[k, b, pol, pol].real)
            worst = max(worst, abs(level / expected - 1))
    out.append(check("autocorrelation", worst < 0.03,
                     f"levels within {100 * worst:.2f}% of the injected noise + source power "
                     f"{expected:.1f} (tolerance 3%)"))

    # RFI: the strongest excess in the autocorrelations is its channel.
    rc = p.rfi_channel()
    if rc is not None:
        autos = np.mean([V[:, a * (a + 1) // 2 + a, pol, pol].real
                         for a in range(p.antennas) for pol in range(2)], axis=0)
        excess = autos / np.median(autos)
        peak = int(np.argmax(excess[2:])) + 2
        out.append(check("rfi", peak == rc,
                         f"RFI tone found in channel {peak} (injected in {rc}), "
                         f"{excess[peak]:.2f}x the median level"))
    sat = sum(m.get("gpudsp.saturated", 0) for m in result["meta"])
    out.append(check("saturation", sat == 0, f"{sat} saturated visibilities"))
    return out


# ---------------------------------------------------------------------------
# Files

def write_visibilities(result, folder):
    """HDF5 (h5py) or .npz: the dumps with axes and metadata. Returns the path."""
    p, geom = result["params"], result["geometry"]
    N = p.channels
    baselines = np.array([(i, j) for i in range(p.antennas) for j in range(i + 1)], np.int32)
    starts = np.array([m.get("gpudsp.dump_start", 0) for m in result["meta"]], np.uint64)
    used = np.array([m.get("gpudsp.spectra_used", 0) for m in result["meta"]], np.uint64)
    arrays = dict(
        visibilities=result["visibilities"],
        channel_frequencies=np.arange(N) * p.samp_rate / (2 * N),
        baselines=baselines,
        dump_start_spectrum=starts,
        # Centre of each dump, s from the first sample: spectrum m starts at
        # sample (m - T + 1) * 2N (docs/fengine.md).
        dump_timestamps=((starts.astype(float) - (p.taps - 1) + p.integration / 2) *
                         2 * N / p.samp_rate),
        spectra_used=used,
        antenna_positions=geom.positions,
        injected_delays_samples=geom.arrival,
        source_direction=geom.direction,
    )
    attrs = dict(params=json.dumps(asdict(p)), integration_spectra=p.integration,
                 integration_seconds=p.integration * 2 * N / p.samp_rate,
                 visibility_layout="[dump][channel][baseline][p][q][re,im] int32; "
                                   "baseline k = i(i+1)/2 + j, V = x_ip conj(x_jq)",
                 fengine_gain=result["gain"])
    os.makedirs(folder, exist_ok=True)
    try:
        import h5py
    except ImportError:
        path = os.path.join(folder, "visibilities.npz")
        np.savez(path, **arrays, **{k: np.array(v) for k, v in attrs.items()})
        return path
    path = os.path.join(folder, "visibilities.h5")
    with h5py.File(path, "w") as f:
        for k, v in arrays.items():
            f.create_dataset(k, data=v)
        for k, v in attrs.items():
            f.attrs[k] = v
    return path


def write_plots(result, folder):
    """PNG plots: baselines' amplitude and phase, the correlation matrix of
    one channel, the autocorrelation spectra. Returns the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = result["params"]
    V = _summed(result)
    N = p.channels
    f_mhz = np.arange(N) * p.samp_rate / (2 * N) / 1e6
    paths = []
    os.makedirs(folder, exist_ok=True)

    fig, ax = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    shown = [(i, j) for i in range(p.antennas) for j in range(i)][:4]
    for i, j in shown:
        v = V[:, i * (i + 1) // 2 + j, 0, 0]
        ax[0].plot(f_mhz, np.abs(v), label=f"ant {i} x ant {j} (pol 0)")
        ax[1].plot(f_mhz, np.angle(v), ".", ms=3)
    ax[0].set_ylabel("amplitude")
    ax[0].legend(fontsize=8)
    ax[1].set_ylabel("phase (rad)")
    ax[1].set_xlabel("frequency (MHz)")
    ax[0].set_title("cross-correlations, delays " +
                    ("compensated" if p.compensate else "not compensated"))
    paths.append(os.path.join(folder, "baselines.png"))
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)

    c = N // 2
    M = xengine_to_matrix(V[c:c + 1], p.antennas, 2)[0]
    d = np.sqrt(np.abs(np.diag(M)))
    fig, ax = plt.subplots(figsize=(5, 4.5))
    im = ax.imshow(np.abs(M) / np.outer(d, d), vmin=0, vmax=1)
    fig.colorbar(im, ax=ax, label="|correlation coefficient|")
    ax.set_title(f"channel {c} ({f_mhz[c]:.1f} MHz)")
    ax.set_xlabel("input (antenna x 2 + pol)")
    ax.set_ylabel("input")
    paths.append(os.path.join(folder, "correlation_matrix.png"))
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(9, 4))
    for a in range(p.antennas):
        for pol in range(2):
            ax.plot(f_mhz, 10 * np.log10(np.maximum(V[:, a * (a + 1) // 2 + a, pol, pol].real, 1e-3)),
                    lw=0.8, label=f"ant {a} pol {pol}")
    ax.set_xlabel("frequency (MHz)")
    ax.set_ylabel("power per spectrum (dB)")
    ax.set_title("autocorrelations")
    ax.legend(fontsize=7, ncol=4)
    paths.append(os.path.join(folder, "autocorrelations.png"))
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    return paths

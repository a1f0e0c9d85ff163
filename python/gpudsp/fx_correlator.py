#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A complete FX correlator in one GNU Radio flowgraph, observing a
simulated sky with a real array (docs/fx.md):

    digitiser_source (10-bit, N dual-pol antennas, point sources at their
    geometric delays, receiver noise, RFI)
      -> pfb_fengine (delay tracking of the phase centre through its
         "delays" message port) -> xengine -> visibility_sink [+ ms_sink]

with the checks that prove its output against the sky model, and its
files (HDF5, MeasurementSet, sky_model.json, plots). Used by
apps/gpudsp_fx_correlator and the tests."""

import json
import math
import os
import threading
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import pmt
from gnuradio import gr

from . import sky
from .digitiser import digitiser_source, spectral_shape_filter, zone_turn
from .gpudsp_python import buffer_counters, pfb_fengine, xengine
from .ms_sink import dump_centre_seconds, dump_to_rows, ms_sink
from .xengine_helpers import xengine_baseline_index, xengine_complex, xengine_to_matrix

SPEED_OF_LIGHT = sky.SPEED_OF_LIGHT

# The default sky, relative to the phase centre: (east arcsec, north arcsec,
# flux Jy at the band's centre, spectral index). One source at the centre,
# the others off-axis in both RA and Dec with different spectra.
DEFAULT_SKY = [(0.0, 0.0, 10.0, 0.0), (75.0, 45.0, 6.0, -0.7),
               (-55.0, 80.0, 4.0, 0.5), (40.0, -65.0, 5.0, 0.0)]


@dataclass
class fx_params:
    antennas: int = 16               # dual-pol antennas, spread over the array
    array: str = "meerkat"           # data/fx/<array>_antennas.txt
    channels: int = 256
    taps: int = 16
    samp_rate: float = 1712e6        # Hz, real samples per polarisation
    nyquist_zone: int = 2            # MeerKAT L-band: 856-1712 MHz, inverted
    seconds: float = 0.0004          # of digitiser data
    integration: int = 256           # spectra per dump
    backend: str = "auto"
    device: int = 0
    seed: int = 1
    start: str = "2022-06-21T18:00:00"  # UTC (within astropy's bundled IERS-B)
    ra_deg: float = None             # phase centre; None: transiting at start
    dec_deg: float = -30.0
    sources: list = field(default_factory=lambda: list(DEFAULT_SKY))
    sefd_jy: float = 400.0           # receiver noise, as a flux density
    rms: float = 30.0                # 10-bit units of the total signal per input
    rfi_freq: float = 0.37           # fraction of the baseband (0..1); negative: none
    rfi_amplitude: float = 3.0       # 10-bit units
    dither: bool = True
    geometry_engine: str = None      # "astropy", "simple" (None: astropy when installed)
    delay_convention: str = "katgpucbf"  # the F-engine's (docs/fengine.md): MeerKAT's CBF's

    def step(self):
        return 2 * self.channels

    def band(self):
        return sky.band(self.samp_rate, self.nyquist_zone)

    def n_samples(self):
        """Samples per input: whole dumps of whole spectra."""
        per_dump = self.step() * self.integration
        dumps = max(1, int(self.seconds * self.samp_rate) // per_dump)
        return dumps * per_dump + (self.taps - 1) * self.step()

    def rfi_channel(self):
        return None if self.rfi_freq < 0 else int(round(self.rfi_freq * self.channels))

    def ref_freq(self):
        b = self.band()
        return (b.low + b.high) / 2


@dataclass
class simulation:
    """What the run simulates: the array and its geometry, the sky, the
    flux scale and the delays given to the digitiser and the F-engine."""
    params: fx_params
    array: sky.antenna_array
    geometry: sky.geometry
    phase_centre: tuple             # (ra_deg, dec_deg)
    sources: list                   # sky.sky_source
    units_per_jy: float             # digitiser units^2 per Jy
    offset: float                   # s, the digitiser's common delay, which the
                                    # F-engine's delay model compensates

    @staticmethod
    def make(p):
        array = sky.load_array(p.array, p.antennas)
        duration = p.n_samples() / p.samp_rate
        geom = sky.geometry(array, p.start, duration, engine=p.geometry_engine)
        ra0 = sky.lst_deg(array, p.start) if p.ra_deg is None else p.ra_deg
        srcs = []
        for east, north, flux, alpha in p.sources:
            ra, dec = sky.offset_position(ra0, p.dec_deg, east, north)
            srcs.append(sky.sky_source(ra, dec, flux, alpha))
        total = sum(s.flux_jy for s in srcs) + p.sefd_jy
        bound = array.max_baseline() / SPEED_OF_LIGHT  # |geometric delay| <= this
        return simulation(p, array, geom, (ra0, p.dec_deg), srcs, p.rms ** 2 / total,
                          offset=bound + 1e-7)

    def fengine_delay_model(self, seconds):
        """The delay model message (docs/fengine.md) valid from the sample at
        `seconds`: the phase centre's delay compensated for every input,
        emulating a delay of the radio-frequency signal. In the katgpucbf
        convention (as MeerKAT's CAM sends it) the phase is the fringe phase
        at the band centre, fs/4 below the zone's turn per sample of delay;
        in the gpudsp convention the phase at DC, the zone's turn."""
        p = self.params
        fs = p.samp_rate
        at = int(round(seconds * fs))
        tau = self.geometry.delays(*self.phase_centre)
        t = np.array([at / fs, at / fs + 1e-3])
        d = tau(t)                                   # [2, antenna]
        delay = (self.offset - d[0]) * fs            # samples, >= 0
        rate = -(d[1] - d[0]) / 1e-3                 # samples per sample
        turn = zone_turn(p.nyquist_zone)
        if p.delay_convention == "katgpucbf":
            turn -= 0.5 * math.pi  # the band centre: a quarter turn per sample
        msg = {"delay": np.repeat(delay, 2), "delay_rate": np.repeat(rate, 2),
               "phase": np.repeat(np.remainder(turn * delay, 2 * np.pi), 2),
               "phase_rate": np.repeat(turn * rate, 2)}
        out = pmt.make_dict()
        for k, v in msg.items():
            out = pmt.dict_add(out, pmt.intern(k), pmt.init_f64vector(len(v), list(v)))
        return pmt.dict_add(out, pmt.intern("at_sample"), pmt.from_long(at))

    def max_coarse_delay(self):
        return int(math.ceil(2 * self.offset * self.params.samp_rate)) + 64

    def digitiser(self, n_samples=None):
        """The digitiser source: n_samples per input (default: the run's)."""
        p = self.params
        band = p.band()
        sources = []
        for s in self.sources:
            tau = self.geometry.delays(s.ra_deg, s.dec_deg)
            shape = spectral_shape_filter(band, p.ref_freq(), s.spectral_index)
            sources.append((tau, s.flux_jy * self.units_per_jy, shape))
        rfi = None
        if p.rfi_freq >= 0:
            rfi = (p.rfi_channel() * p.samp_rate / (2 * p.channels), p.rfi_amplitude)
        return digitiser_source(p.antennas, band, sources, p.sefd_jy * self.units_per_jy,
                                self.offset, rfi, p.seed,
                                p.n_samples() if n_samples is None else n_samples)

    def fengine(self, n_samples=None, output="ci8"):
        """The F-engine (ci8, or cf32 for tests), its gain set and the phase
        centre's delay model posted to its "delays" port: one model per
        second of the run."""
        p = self.params
        n_inputs = 2 * p.antennas
        fe = pfb_fengine(n_inputs, p.channels, p.taps, "packed10", output, 1.0, [],
                         p.dither and output == "ci8", p.backend, p.device,
                         self.max_coarse_delay(), p.delay_convention)
        fe.set_gains([complex(self.fengine_gain())] * (p.channels * n_inputs))
        n = p.n_samples() if n_samples is None else n_samples
        for t in np.arange(0.0, n / p.samp_rate, 1.0):
            fe._post(pmt.intern("delays"), self.fengine_delay_model(t))
        return fe

    def fengine_gain(self):
        """int8 values of about 12 rms per part, far from the clip at 127."""
        return 12.0 * math.sqrt(2.0) / self.params.rms

    def sky_model(self):
        """sky_model.json's content: fluxes in Jy (the MS's DATA unit)."""
        return {"phase_centre": {"ra_deg": self.phase_centre[0],
                                 "dec_deg": self.phase_centre[1]},
                "ref_freq_hz": self.params.ref_freq(),
                "sources": [{"ra_deg": s.ra_deg, "dec_deg": s.dec_deg,
                             "flux_jy": s.flux_jy, "spectral_index": s.spectral_index}
                            for s in self.sources]}

    def jy_per_unit(self):
        """Jy per unit of the X-engine's per-spectrum visibility (F-engine
        output units squared): the power gain g^2 of the F-engine's white-
        noise response (sum w^2 = 1) times the digitiser's units per Jy."""
        return 1.0 / (self.fengine_gain() ** 2 * self.units_per_jy)


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
                if t.offset == n0 + d and not pmt.is_u32vector(t.value):
                    m[pmt.symbol_to_string(t.key)] = pmt.to_python(t.value)
            self.meta.append(m)
        return len(x)


def run(p, progress=None, ms_path=None):
    """Builds and runs the flowgraph; returns a result dict. ms_path: also
    write a MeasurementSet there (python3-casacore)."""
    sim = simulation.make(p)
    n_inputs = 2 * p.antennas
    src = sim.digitiser()
    fe = sim.fengine()
    g = sim.fengine_gain()
    xe = xengine(p.antennas, 2, p.channels, p.integration, "ci8", "ci32", p.backend, p.device)
    n_baselines = p.antennas * (p.antennas + 1) // 2
    sink = visibility_sink(p.channels * n_baselines * 4 * 2)
    tb = gr.top_block("fx_correlator")
    for i in range(n_inputs):
        tb.connect((src, i), (fe, i))
    tb.connect(fe, xe, sink)
    ms = None
    if ms_path:
        rc = p.rfi_channel()
        ms = ms_sink(ms_path, sim.array, p.band(), p.channels, sim.geometry, sim.phase_centre,
                     p.step() / p.samp_rate, p.taps, p.integration, sim.jy_per_unit(),
                     flag_channels=[] if rc is None else [rc - 1, rc, rc + 1])
        tb.connect(xe, ms)

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
    return dict(params=p, sim=sim, visibilities=V, meta=sink.meta, gain=g,
                wall_seconds=seconds, backend=fe.backend(), kernel=xe.kernel(),
                fx_edge_counters=edge, samples_per_input=p.n_samples(),
                digitiser_clipped=src.clipped, ms_path=ms_path)


# ---------------------------------------------------------------------------
# The sky model's visibilities

def channel_response(p, half_width=2.0, points=33):
    """Quadrature of one F-engine channel's power response: (offsets in
    channels, weights summing to 1). The response of channel k to a tone
    (k + d) fs / 2N is |sum_n w[n] exp(2 pi i d n / 2N)|^2 (the window's
    transform), the same for every channel."""
    from .kernels import pfb_weights
    w = np.asarray(pfb_weights(p.channels, p.taps, 1.0, False))
    d = np.linspace(-half_width, half_width, points)
    H = np.exp(2j * np.pi * np.outer(d, np.arange(len(w))) / (2 * p.channels)) @ w
    weights = np.abs(H) ** 2
    return d, weights / weights.sum()


def model_visibilities(sim, uvw, channels, response=None):
    """[row, channel] visibilities (Jy) of the point-source sky for baselines
    of the given UVW (m, MS convention) in the given F-engine channels, as
    the correlator measures them: sum_j S_j(nu) exp(+2 pi i (u l + v m +
    w (n - 1)) nu / c) averaged over each channel's power response (the
    phase of an off-axis source turns across a channel: bandwidth
    smearing). response: channel_response(p), when the caller has it."""
    p = sim.params
    d, wq = channel_response(p) if response is None else response
    base = (np.asarray(channels)[:, None] + d[None, :]) * p.samp_rate / (2 * p.channels)
    nu = p.band().sky_frequency(base)  # [channel, point]
    out = np.zeros((len(uvw), len(channels)), complex)
    for s in sim.sources:
        l, m, n = sky.direction_cosines(s.ra_deg, s.dec_deg, *sim.phase_centre)
        path = uvw @ np.array([l, m, n - 1])  # [row] m
        spec = s.flux(nu, p.ref_freq()) * wq[None, :]  # [channel, point]
        phase = np.exp(2j * np.pi * path[:, None, None] * (nu / SPEED_OF_LIGHT)[None])
        out += (phase * spec[None]).sum(-1)
    return out


def ms_rows(result, dump):
    """One dump in the MS convention: (ANTENNA1, ANTENNA2, DATA [row, channel,
    corr] in Jy, in the F-engine's channel order, UVW)."""
    p, sim = result["params"], result["sim"]
    Vc = xengine_complex(result["visibilities"][dump])
    used = result["meta"][dump].get("gpudsp.spectra_used", p.integration)
    a1, a2, data = dump_to_rows(Vc, p.antennas, p.band().inverted)
    data = data * sim.jy_per_unit() / max(used, 1)
    start = result["meta"][dump].get("gpudsp.dump_start", dump * p.integration)
    centre = dump_centre_seconds(start, p.integration, p.taps, p.step() / p.samp_rate)
    uvw_ant = sim.geometry.uvw(centre, *sim.phase_centre)[0]
    return a1, a2, data, uvw_ant[a1] - uvw_ant[a2]


# ---------------------------------------------------------------------------
# Checks

@dataclass
class check:
    name: str
    passed: bool
    detail: str


def band_channels(p, fraction=0.98):
    """F-engine channels whose baseband frequency lies within the central
    `fraction` of the band (the digitiser is exact there), without the RFI
    channel and its neighbours."""
    k = np.arange(p.channels)
    edge = (1 - fraction) / 2
    good = (k >= edge * p.channels) & (k <= (1 - edge) * p.channels)
    rc = p.rfi_channel()
    if rc is not None:
        good &= np.abs(k - rc) > 1
    return k[good]


def sky_model_ratio(result, channels=None):
    """Per channel, the measured cross-correlations (XX and YY) against the
    sky model's: r = sum V conj(M) / sum |M|^2 over baselines and dumps, and
    its standard error: the noise sigma / sqrt(sum |M|^2) (sigma the rms of
    V - r M) and the sources' sample variance."""
    p = result["params"]
    k = np.arange(p.channels) if channels is None else np.asarray(channels)
    Vs, Ms = [], []
    response = channel_response(p)
    for dmp in range(result["visibilities"].shape[0]):
        a1, a2, data, uvw = ms_rows(result, dmp)
        cross = a1 != a2
        M = model_visibilities(result["sim"], uvw[cross], k, response)
        for corr in (0, 3):
            Vs.append(data[cross][:, k, corr])
            Ms.append(M)
    V, M = np.concatenate(Vs), np.concatenate(Ms)
    den = (np.abs(M) ** 2).sum(0)
    r = (V * np.conj(M)).sum(0) / den
    sigma = np.sqrt(np.mean(np.abs(V - r * M) ** 2, axis=0))
    # Plus the sources' own sample variance, common to every baseline: a
    # channel's source power is estimated from the spectra summed, in two
    # independent polarisations (relative variance 1 / (2 n)).
    used = sum(m.get("gpudsp.spectra_used", 0) for m in result["meta"])
    return r, np.sqrt(sigma ** 2 / den + 1.0 / (2 * max(used, 1)))


def band_sky_model_ratio(result):
    """sky_model_ratio over band_channels, computed once per visibility
    array (the checks and the plots both read it; it models every dump).
    Kept with the array it was computed from: a result whose
    "visibilities" is replaced is computed afresh."""
    vis = result["visibilities"]
    cached = result.get("_band_sky_model_ratio")
    if cached is None or cached[0] is not vis:
        cached = (vis, sky_model_ratio(result, band_channels(result["params"])))
        result["_band_sky_model_ratio"] = cached
    return cached[1]


def verify(result):
    """The correlator's own proof that it worked: a list of checks."""
    p, sim = result["params"], result["sim"]
    out = []
    if result["visibilities"].shape[0] == 0:
        return [check("dumps", False, "no dump was produced")]
    k = band_channels(p)
    if p.antennas > 1:
        r, err = band_sky_model_ratio(result)
        amp = np.abs(r) - 1
        ph = np.angle(r)
        # Noise-limited: each channel within 5 standard errors, and the band
        # flat to 1 % and 0.01 rad on average (delays compensated exactly),
        # the average within 5 of its own standard errors of that.
        mean_err = np.sqrt(np.sum(err ** 2)) / len(err)
        phase_ok = np.all(np.abs(ph) <= 5 * err + 0.01) and \
            abs(np.mean(ph)) < 0.01 + 5 * mean_err
        amp_ok = np.all(np.abs(amp) <= 5 * err + 0.01) and \
            abs(np.mean(amp)) < 0.01 + 5 * mean_err
        out.append(check("sky model phase", bool(phase_ok),
                         f"measured / model visibilities over 98% of the band: phase mean "
                         f"{np.mean(ph):+.4f} rad, worst channel {np.abs(ph).max():.4f} rad "
                         f"(noise {np.median(err):.4f} per channel, {mean_err:.4f} on the "
                         f"mean; flat within 0.01 rad + 5 sigma)"))
        out.append(check("sky model amplitude", bool(amp_ok),
                         f"amplitude mean {1 + np.mean(amp):.4f}, worst channel "
                         f"{1 + amp[np.argmax(np.abs(amp))]:.4f} (flat within 1% + 5 sigma)"))

    # Autocorrelation levels: g^2 (sources + receiver noise + 10-bit rounding)
    # plus the int8 rounding (1/12 per part) and dither (1/12 per part).
    V = result["visibilities"].astype(np.float64)
    used = sum(m.get("gpudsp.spectra_used", 0) for m in result["meta"])
    autos = V[..., 0].sum(0) / max(used, 1)  # [channel, baseline, p, q] real parts
    g2 = result["gain"] ** 2
    freqs = p.band().channel_frequencies(p.channels)
    power = sim.units_per_jy * (p.sefd_jy + sum(s.flux(freqs, p.ref_freq()) for s in sim.sources))
    expected = g2 * (power + 1.0 / 12) + (1.0 / 3 if p.dither else 1.0 / 6)
    worst = 0.0
    for a in range(p.antennas):
        b = xengine_baseline_index(a, a)
        for pol in range(2):
            level = np.mean(autos[k, b, pol, pol] / expected[k])
            worst = max(worst, abs(level - 1))
    out.append(check("autocorrelation", worst < 0.03,
                     f"levels within {100 * worst:.2f}% of the simulated sky + receiver "
                     f"power (tolerance 3%)"))
    rc = p.rfi_channel()
    if rc is not None:
        mean_auto = np.mean([autos[:, xengine_baseline_index(a, a), pol, pol]
                             for a in range(p.antennas) for pol in range(2)], axis=0)
        excess = mean_auto / np.median(mean_auto)
        peak = int(np.argmax(excess[2:])) + 2
        out.append(check("rfi", peak == rc,
                         f"RFI tone found in channel {peak} (injected in {rc}), "
                         f"{excess[peak]:.2f}x the median level"))
    sat = sum(m.get("gpudsp.saturated", 0) for m in result["meta"])
    out.append(check("saturation", sat == 0 and result["digitiser_clipped"] == 0,
                     f"{sat} saturated visibilities, {result['digitiser_clipped']} clipped "
                     f"10-bit samples"))
    return out


# ---------------------------------------------------------------------------
# Files

def write_visibilities(result, folder):
    """HDF5 (h5py) or .npz: the dumps with axes and metadata. Returns the path."""
    p, sim = result["params"], result["sim"]
    N = p.channels
    baselines = np.array([(i, j) for i in range(p.antennas) for j in range(i + 1)], np.int32)
    starts = np.array([m.get("gpudsp.dump_start", 0) for m in result["meta"]], np.uint64)
    used = np.array([m.get("gpudsp.spectra_used", 0) for m in result["meta"]], np.uint64)
    arrays = dict(
        visibilities=result["visibilities"],
        channel_frequencies=p.band().channel_frequencies(N),
        baselines=baselines,
        dump_start_spectrum=starts,
        # Centre of each dump, s from the first sample.
        dump_timestamps=dump_centre_seconds(starts.astype(float), p.integration, p.taps,
                                            p.step() / p.samp_rate),
        spectra_used=used,
        antenna_enu=sim.array.enu,
        antenna_itrf=sim.array.itrf(),
    )
    attrs = dict(params=json.dumps(asdict(p)), integration_spectra=p.integration,
                 integration_seconds=p.integration * 2 * N / p.samp_rate,
                 visibility_layout="[dump][channel][baseline][p][q][re,im] int32; "
                                   "baseline k = i(i+1)/2 + j, V = x_ip conj(x_jq), baseband "
                                   "channels (sky frequency in channel_frequencies)",
                 fengine_gain=result["gain"], jy_per_unit=sim.jy_per_unit(),
                 start_utc=p.start, sky_model=json.dumps(sim.sky_model()))
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


def write_sky_model(result, folder):
    """sky_model.json beside the MS: the sources, fluxes in Jy (DATA's unit)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "sky_model.json")
    with open(path, "w") as f:
        json.dump(result["sim"].sky_model(), f, indent=2)
    return path


def write_plots(result, folder):
    """PNG plots: measured against model visibilities over the band, the
    correlation matrix of one channel, the autocorrelation spectra. Returns
    the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = result["params"]
    freqs = p.band().channel_frequencies(p.channels) / 1e6
    order = np.argsort(freqs)
    paths = []
    os.makedirs(folder, exist_ok=True)

    if p.antennas > 1:
        r = np.full(p.channels, np.nan, complex)
        r[band_channels(p)] = band_sky_model_ratio(result)[0]
        fig, ax = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        ax[0].plot(freqs[order], np.abs(r[order]), lw=0.8)
        ax[0].set_ylabel("|measured / model|")
        ax[1].plot(freqs[order], np.angle(r[order]), ".", ms=3)
        ax[1].set_ylabel("phase (rad)")
        ax[1].set_xlabel("sky frequency (MHz)")
        ax[0].set_title("visibilities against the sky model, all baselines (delays tracked)")
        paths.append(os.path.join(folder, "baselines.png"))
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)

    Vc = xengine_complex(result["visibilities"]).sum(0)
    c = p.channels // 2
    M = xengine_to_matrix(Vc[c:c + 1], p.antennas, 2)[0]
    d = np.sqrt(np.abs(np.diag(M)))
    fig, ax = plt.subplots(figsize=(5, 4.5))
    im = ax.imshow(np.abs(M) / np.outer(d, d), vmin=0, vmax=1)
    fig.colorbar(im, ax=ax, label="|correlation coefficient|")
    ax.set_title(f"channel {c} ({freqs[c]:.1f} MHz)")
    ax.set_xlabel("input (antenna x 2 + pol)")
    ax.set_ylabel("input")
    paths.append(os.path.join(folder, "correlation_matrix.png"))
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(9, 4))
    for a in range(min(p.antennas, 8)):
        for pol in range(2):
            y = Vc[:, xengine_baseline_index(a, a), pol, pol].real
            ax.plot(freqs[order], 10 * np.log10(np.maximum(y[order], 1e-3)), lw=0.8,
                    label=f"ant {a} pol {pol}")
    ax.set_xlabel("sky frequency (MHz)")
    ax.set_ylabel("power (dB)")
    ax.set_title("autocorrelations")
    ax.legend(fontsize=7, ncol=4)
    paths.append(os.path.join(folder, "autocorrelations.png"))
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    return paths

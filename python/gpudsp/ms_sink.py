#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""X-engine dumps to a CASA MeasurementSet (v2), written with python-casacore
as the dumps arrive (docs/fx.md, "The MeasurementSet").

Conventions (the CASA / WSClean ones, as katdal writes MeerKAT data): a row
holds ANTENNA1 <= ANTENNA2; UVW = uvw(ANTENNA1) - uvw(ANTENNA2) (J2000
axes); DATA = <E1 conj(E2)> of the sky-frequency voltages, so that
DATA = sum over the sky of I exp(+2 pi i (u l + v m + w (n - 1))). The
X-engine gives V = sum x_i conj(x_j) for stations i >= j over baseband
channels; a row (j, i) therefore takes conj(V[q][p]) for correlation
(p, q), or V[q][p] when the band is inverted (an even Nyquist zone: the
baseband voltage is the conjugate of the sky one). Channels are written in
ascending sky frequency (reversed for an inverted band), CHAN_WIDTH > 0,
NET_SIDEBAND 1. Correlations XX, XY, YX, YY (CORR_TYPE 9..12).

DATA is the dump's sum divided by the spectra summed, times jy_per_unit
(1: correlator units, F-engine output units squared per spectrum). WEIGHT
is the spectra summed, SIGMA 1 / sqrt(WEIGHT). FLAG: every value of a dump
whose spectra were all missing (gpudsp.missing upstream), the rows of an
antenna whose F-engine input saturated in the dump, visibilities the
X-engine saturated (int32 limits), the DC channel (a real-sampled band's
edge, which holds the DC level), and any channels given to flag (what an
RFI flagger would find: the FX demo flags its simulated RFI tone)."""

import functools
import math
import os
import shutil

import numpy as np
import pmt
from gnuradio import gr

from . import formats
from .xengine_helpers import xengine_baseline_index, xengine_complex

__all__ = ["ms_writer", "ms_sink", "make_ms_sink", "dump_to_rows", "spectrum_centre_seconds",
           "dump_centre_seconds",
           "CORR_TYPES"]

CORR_TYPES = [9, 10, 11, 12]  # XX, XY, YX, YY (casacore Stokes::StokesTypes)
INT32_LIMITS = (-(2 ** 31), 2 ** 31 - 1)


def spectrum_centre_seconds(m, n_taps, spectrum_seconds):
    """Seconds from the stream's first sample to the centre of F-engine
    spectrum m's window (it covers spectra m - T + 1 .. m: docs/fengine.md).
    m may be fractional (a dump's centre)."""
    return ((m - n_taps + 1) + n_taps / 2) * spectrum_seconds


def dump_centre_seconds(dump_start, n_integrate, n_taps, spectrum_seconds):
    """Seconds from the stream's first sample to the centre of the dump of
    n_integrate spectra from spectrum dump_start (an array or a number)."""
    return spectrum_centre_seconds(dump_start + (n_integrate - 1) / 2, n_taps, spectrum_seconds)


@functools.lru_cache(maxsize=None)
def _ms_baselines(n_stations):
    """(ANTENNA1, ANTENNA2, X-engine baseline index) of each MS row, rows
    ordered by (ANTENNA1, ANTENNA2): computed once per array size."""
    a1, a2, cols = [], [], []
    for j in range(n_stations):
        for i in range(j, n_stations):
            a1.append(j)
            a2.append(i)
            cols.append(xengine_baseline_index(i, j))
    return np.array(a1, np.int32), np.array(a2, np.int32), cols


def dump_to_rows(V, n_stations, inverted):
    """X-engine dump V [channel, baseline, p, q] (complex; baseline i(i+1)/2
    + j for stations i >= j) -> (ANTENNA1, ANTENNA2, DATA [row, channel,
    corr]) in the MS convention, rows ordered by (ANTENNA1, ANTENNA2),
    channels still in the X-engine's order."""
    V = np.asarray(V)
    a1, a2, cols = _ms_baselines(int(n_stations))
    block = V[:, cols]                        # [channel, row, p, q]
    block = np.swapaxes(block, 2, 3)          # [channel, row, q, p]: (p, q) <- V[q][p]
    if not inverted:
        block = np.conj(block)
    data = block.reshape(V.shape[0], len(cols), 4).transpose(1, 0, 2)
    return a1.copy(), a2.copy(), data


class ms_writer:
    """Creates the MeasurementSet at `path` (replacing it) and appends dumps.

    array: sky.antenna_array; band: sky.band; geometry: sky.geometry (for
    UVW); phase_centre: (ra_deg, dec_deg); spectrum_seconds: step / fs;
    n_taps: the F-engine's (a spectrum m's time is its window centre,
    (m - T + 1 + T/2) step); jy_per_unit: DATA scale."""

    def __init__(self, path, array, band, n_channels, geometry, phase_centre,
                 spectrum_seconds, n_taps, n_integrate, jy_per_unit=1.0,
                 telescope="MeerKAT", field="phase centre", flag_channels=()):
        from casacore import tables as pt
        self.pt = pt
        self.path = path
        self.array, self.band, self.geometry = array, band, geometry
        self.n_stations = len(array.names)
        self.n_channels = int(n_channels)
        self.ra0, self.dec0 = phase_centre
        self.spectrum_seconds = float(spectrum_seconds)
        self.n_taps = int(n_taps)
        self.n_integrate = int(n_integrate)
        self.scale = float(jy_per_unit)
        self.telescope, self.field = telescope, field
        freqs = band.channel_frequencies(self.n_channels)
        self.order = np.argsort(freqs)             # MS channel c <- F-engine channel order[c]
        self.freqs = freqs[self.order]
        # MS channels always flagged: where the DC channel and the given
        # F-engine channels land.
        bad = {0} | {int(k) for k in flag_channels if 0 <= int(k) < self.n_channels}
        self.flagged = np.isin(self.order, sorted(bad))
        self.times = []
        if os.path.exists(path):
            shutil.rmtree(path)
        self._create()

    # -- creation -------------------------------------------------------------
    def _create(self):
        pt = self.pt
        desc = pt.required_ms_desc("MAIN")
        nc = self.n_channels
        # DATA and FLAG with a fixed [channel, correlation] shape, tiled.
        keep = dict(desc["FLAG"].get("keywords", {}))
        for name, value, vtype in (("DATA", 0j, "complex"), ("FLAG", False, "boolean")):
            d = pt.makearrcoldesc(name, value, valuetype=vtype, ndim=2, shape=[nc, 4],
                                  datamanagertype="TiledColumnStMan",
                                  datamanagergroup="Tiled" + name, options=4,  # FixedShape
                                  keywords=keep if name == "FLAG" else {})
            desc.update(pt.maketabdesc(d))
        ms = pt.default_ms(self.path, desc, pt.makedminfo(desc))
        ms.close()
        self._subtables()

    def _table(self, name):
        return self.pt.table(f"{self.path}::{name}", readonly=False, ack=False)

    def _subtables(self):
        a = self.array
        with self._table("ANTENNA") as t:
            n = self.n_stations
            t.addrows(n)
            t.putcol("NAME", a.names)
            t.putcol("STATION", [self.telescope] * n)
            t.putcol("TYPE", ["GROUND-BASED"] * n)
            t.putcol("MOUNT", ["ALT-AZ"] * n)
            t.putcol("POSITION", a.itrf())
            t.putcol("OFFSET", np.zeros((n, 3)))
            t.putcol("DISH_DIAMETER", np.full(n, a.dish_diameter))
            t.putcol("FLAG_ROW", np.zeros(n, bool))
        with self._table("FEED") as t:
            n = self.n_stations
            t.addrows(n)
            t.putcol("ANTENNA_ID", np.arange(n, dtype=np.int32))
            t.putcol("FEED_ID", np.zeros(n, np.int32))
            t.putcol("SPECTRAL_WINDOW_ID", np.full(n, -1, np.int32))
            t.putcol("BEAM_ID", np.full(n, -1, np.int32))
            t.putcol("NUM_RECEPTORS", np.full(n, 2, np.int32))
            t.putcol("POLARIZATION_TYPE", np.array([["X", "Y"]] * n))
            t.putcol("RECEPTOR_ANGLE", np.tile([0.0, math.pi / 2], (n, 1)))
            t.putcol("BEAM_OFFSET", np.zeros((n, 2, 2)))
            t.putcol("POL_RESPONSE", np.tile(np.eye(2, dtype=np.complex64), (n, 1, 1)))
            t.putcol("POSITION", np.zeros((n, 3)))
            t.putcol("INTERVAL", np.full(n, 1e30))
        with self._table("SPECTRAL_WINDOW") as t:
            t.addrows(1)
            width = self.band.samp_rate / (2 * self.n_channels)
            nc = self.n_channels
            t.putcol("NUM_CHAN", np.array([nc], np.int32))
            t.putcol("NAME", ["band"])
            t.putcol("CHAN_FREQ", self.freqs[None, :])
            t.putcol("CHAN_WIDTH", np.full((1, nc), width))
            t.putcol("EFFECTIVE_BW", np.full((1, nc), width))
            t.putcol("RESOLUTION", np.full((1, nc), width))
            t.putcol("REF_FREQUENCY", np.array([float(np.mean(self.freqs))]))
            t.putcol("TOTAL_BANDWIDTH", np.array([width * nc]))
            t.putcol("MEAS_FREQ_REF", np.array([5], np.int32))  # TOPO
            t.putcol("NET_SIDEBAND", np.array([1], np.int32))
            t.putcol("FREQ_GROUP_NAME", ["none"])
        with self._table("POLARIZATION") as t:
            t.addrows(1)
            t.putcol("NUM_CORR", np.array([4], np.int32))
            t.putcol("CORR_TYPE", np.array([CORR_TYPES], np.int32))
            t.putcol("CORR_PRODUCT", np.array([[[0, 0], [0, 1], [1, 0], [1, 1]]], np.int32))
        with self._table("DATA_DESCRIPTION") as t:
            t.addrows(1)
            t.putcol("SPECTRAL_WINDOW_ID", np.array([0], np.int32))
            t.putcol("POLARIZATION_ID", np.array([0], np.int32))
        with self._table("FIELD") as t:
            t.addrows(1)
            d = np.array([[[math.radians(self.ra0), math.radians(self.dec0)]]])
            t.putcol("NAME", [self.field])
            t.putcol("CODE", ["T"])
            t.putcol("NUM_POLY", np.array([0], np.int32))
            t.putcol("SOURCE_ID", np.array([-1], np.int32))
            for col in ("PHASE_DIR", "DELAY_DIR", "REFERENCE_DIR"):
                t.putcol(col, d)
        with self._table("OBSERVATION") as t:
            t.addrows(1)
            t.putcol("TELESCOPE_NAME", [self.telescope])
            t.putcol("OBSERVER", ["gr-gpudsp"])
            t.putcol("PROJECT", ["gr-gpudsp FX correlator"])
            t.putcol("SCHEDULE_TYPE", [""])

    # -- dumps ----------------------------------------------------------------

    def write_dump(self, sums, dump_start, spectra_used, saturated_inputs=()):
        """sums: the X-engine's dump [channel, baseline, p, q] (complex or
        int32 [..., 2]), dump_start: its first spectrum, spectra_used: the
        spectra summed; saturated_inputs: F-engine inputs that clipped in it."""
        sums = np.asarray(sums)
        sat_cells = None
        if sums.dtype.kind in "iu":
            sat_cells = np.isin(sums, INT32_LIMITS).any(-1)
            sums = xengine_complex(sums)
        a1, a2, data = dump_to_rows(sums, self.n_stations, self.band.inverted)
        n = len(a1)
        weight = float(spectra_used)
        data = data[:, self.order] * (self.scale / max(weight, 1.0))
        flag = np.zeros(data.shape, bool)
        flag[:, self.flagged] = True
        if spectra_used == 0:
            flag[:] = True
        if sat_cells is not None:
            _, _, sat = dump_to_rows(sat_cells.astype(np.complex64), self.n_stations, True)
            flag |= sat[:, self.order].real != 0
        bad = {i // 2 for i in saturated_inputs}
        if bad:
            flag[np.isin(a1, list(bad)) | np.isin(a2, list(bad))] = True
        centre = dump_centre_seconds(dump_start, self.n_integrate, self.n_taps,
                                     self.spectrum_seconds)
        interval = self.n_integrate * self.spectrum_seconds
        uvw_ant = self.geometry.uvw(centre, self.ra0, self.dec0)[0]
        mjd_s = self.geometry.start_mjd * 86400.0 + centre
        self.times.append(mjd_s)
        with self.pt.table(self.path, readonly=False, ack=False) as t:
            r0 = t.nrows()
            t.addrows(n)
            put = lambda col, v: t.putcol(col, v, startrow=r0, nrow=n)
            put("TIME", np.full(n, mjd_s))
            put("TIME_CENTROID", np.full(n, mjd_s))
            put("INTERVAL", np.full(n, interval))
            put("EXPOSURE", np.full(n, interval * weight / self.n_integrate))
            put("ANTENNA1", a1)
            put("ANTENNA2", a2)
            put("FEED1", np.zeros(n, np.int32))
            put("FEED2", np.zeros(n, np.int32))
            put("DATA_DESC_ID", np.zeros(n, np.int32))
            put("FIELD_ID", np.zeros(n, np.int32))
            put("SCAN_NUMBER", np.ones(n, np.int32))
            put("ARRAY_ID", np.zeros(n, np.int32))
            put("OBSERVATION_ID", np.zeros(n, np.int32))
            put("PROCESSOR_ID", np.full(n, -1, np.int32))
            put("STATE_ID", np.full(n, -1, np.int32))
            put("UVW", uvw_ant[a1] - uvw_ant[a2])
            put("DATA", data.astype(np.complex64))
            put("FLAG", flag)
            put("FLAG_ROW", flag.all(axis=(1, 2)))
            put("WEIGHT", np.full((n, 4), max(weight, 1e-9), np.float32))
            put("SIGMA", np.full((n, 4), 1 / math.sqrt(max(weight, 1e-9)), np.float32))

    def close(self):
        """Fills the time ranges once every dump is in."""
        if not self.times:
            return
        interval = self.n_integrate * self.spectrum_seconds
        t0, t1 = min(self.times) - interval / 2, max(self.times) + interval / 2
        with self._table("OBSERVATION") as t:
            t.putcol("TIME_RANGE", np.array([[t0, t1]]))
        with self._table("FIELD") as t:
            t.putcol("TIME", np.array([t0]))
        with self._table("FEED") as t:
            t.putcol("TIME", np.full(self.n_stations, t0))


class ms_sink(gr.sync_block):
    """A GNU Radio sink: X-engine dumps (ci32 or cf32 items of n_channels x
    n_baselines x 4 complex values, with the X-engine's tags) into a
    MeasurementSet through an ms_writer (its arguments; n_pols must be 2).
    Dumps are written as they arrive; the time ranges on stop()."""

    def __init__(self, path, array, band, n_channels, geometry, phase_centre,
                 spectrum_seconds, n_taps, n_integrate, jy_per_unit=1.0, output_format="ci32",
                 flag_channels=()):
        n_bl = len(array.names) * (len(array.names) + 1) // 2
        values = n_channels * n_bl * 4
        if output_format not in ("ci32", "cf32"):
            raise ValueError("ms_sink: output_format must be \"ci32\" or \"cf32\"")
        sig = (np.int32, 2 * values) if output_format == "ci32" else (np.complex64, values)
        gr.sync_block.__init__(self, name="ms_sink", in_sig=[sig], out_sig=None)
        self.shape = (n_channels, n_bl, 2, 2) + ((2,) if output_format == "ci32" else ())
        self.writer = ms_writer(path, array, band, n_channels, geometry, phase_centre,
                                spectrum_seconds, n_taps, n_integrate, jy_per_unit,
                                flag_channels=flag_channels)
        self.path = path
        self._complete = False

    def work(self, input_items, output_items):
        if self._complete:
            return len(input_items[0])  # dropped: see start()
        x = input_items[0]
        n0 = self.nitems_read(0)
        tags = self.get_tags_in_window(0, 0, len(x))
        for d in range(len(x)):
            meta = {"gpudsp.dump_start": None, "gpudsp.spectra_used": None}
            sat_inputs = set()
            for t in tags:
                if t.offset != n0 + d:
                    continue
                key = pmt.symbol_to_string(t.key)
                if key == "gpudsp.saturated" and pmt.is_u32vector(t.value):
                    # The F-engine's per-input clip counts of a spectrum in this dump.
                    sat_inputs |= {i for i, c in enumerate(pmt.u32vector_elements(t.value))
                                   if c}
                elif key in meta:
                    meta[key] = pmt.to_python(t.value)
            start = meta["gpudsp.dump_start"]
            if start is None:
                start = (n0 + d) * self.writer.n_integrate
            used = meta["gpudsp.spectra_used"]
            if used is None:
                used = self.writer.n_integrate
            self.writer.write_dump(np.asarray(x[d]).reshape(self.shape), int(start), int(used),
                                   sat_inputs)
        return len(x)

    def start(self):
        # A run again would count dumps (and so times) from 0 into a set that
        # is complete: refused, with the way out; its dumps are read and
        # dropped, so that the rest of the flowgraph runs on. (Said here and
        # done in work(): a Python block's start() that fails brings GNU
        # Radio 3.10 down.)
        if self._complete:
            self.logger.error(f"the MeasurementSet {self.path} is complete (its time ranges "
                              "were written when the last run stopped): this run's dumps are "
                              "dropped; make a new ms_sink to run the flowgraph again")
        return True

    def stop(self):
        # Complete once it holds dumps (a run that wrote none leaves it open).
        if not self._complete and self.writer.times:
            self.writer.close()
            self._complete = True
        return True


def make_ms_sink(path, n_channels, n_taps, n_integrate, array="meerkat", n_antennas=0,
                 samp_rate=1712e6, nyquist_zone=2, start="now", ra_deg=float("nan"),
                 dec_deg=-30.0, duration_s=3600.0, jy_per_unit=1.0, output_format="ci32",
                 flag_channels=()):
    """An ms_sink from plain settings (GNU Radio Companion's block): array, a
    name under the module's data/fx (<name>_antennas.txt) or the path of
    such a table; n_antennas of it spread over the array (0: all of them,
    in the file's order: the X-engine's stations); start, the UTC of the
    stream's first sample ("now": the time the block is made); ra_deg NaN:
    the RA transiting at start; duration_s, how long the geometry is
    computed for (times beyond it extrapolate: give at least the run's
    length). The F-engine feeding the X-engine uses 2 n_channels samples
    per spectrum (real input)."""
    from datetime import datetime, timezone
    from . import sky
    # The X-engine's and F-engine's own limits (docs/reliability.md).
    for name, value, low, high in (("n_channels", n_channels, 1, 1 << 20),
                                   ("n_taps", n_taps, 1, 1024),
                                   ("n_integrate", n_integrate, 1, (1 << 31) - 1),
                                   ("n_antennas", n_antennas, 0, 65536),
                                   ("nyquist_zone", nyquist_zone, 1, 1000)):
        if not isinstance(value, (int, np.integer)) or not low <= value <= high:
            raise ValueError(f"ms_sink: {name} must be an integer in [{low}, {high}] "
                             f"(got {value!r})")
    for name, value in (("samp_rate", samp_rate), ("duration_s", duration_s),
                        ("jy_per_unit", jy_per_unit)):
        if not (formats.finite_number(value) and value > 0):
            raise ValueError(f"ms_sink: {name} must be finite and > 0 (got {value!r})")
    if not (formats.finite_number(dec_deg) and -90 <= dec_deg <= 90):
        raise ValueError(f"ms_sink: dec_deg must be within [-90, 90] (got {dec_deg!r})")
    if not isinstance(ra_deg, (int, float, np.number)) or math.isinf(ra_deg):
        raise ValueError(f"ms_sink: ra_deg must be finite, or NaN for the RA transiting "
                         f"at start (got {ra_deg!r})")
    try:
        if os.path.exists(str(array)):
            arr = sky.load_array(os.path.basename(str(array)).split("_antennas")[0],
                                 path=str(array))
        else:
            arr = sky.load_array(str(array))
    except (OSError, ValueError) as e:
        raise ValueError(f"ms_sink: array {array!r} is neither a name under data/fx nor an "
                         f"antenna table: {e}") from None
    if n_antennas > len(arr.names):
        raise ValueError(f"ms_sink: n_antennas must be at most {len(arr.names)} for array "
                         f"{array!r} (got {n_antennas})")
    if n_antennas:
        arr = arr.subset(n_antennas)
    if start == "now":
        start = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")
    try:
        sky._mjd_utc(str(start))
    except ValueError:
        raise ValueError(f"ms_sink: start must be an ISO 8601 UTC time "
                         f"(YYYY-MM-DDTHH:MM:SS) or \"now\" (got {start!r})") from None
    flags = list(flag_channels)
    for k in flags:
        if not isinstance(k, (int, np.integer)) or not 0 <= k < n_channels:
            raise ValueError(f"ms_sink: flag_channels must be channel indices in "
                             f"[0, {n_channels}) (got {k!r})")
    b = sky.band(float(samp_rate), int(nyquist_zone))
    geom = sky.geometry(arr, start, float(duration_s))
    ra = sky.lst_deg(arr, start) if math.isnan(ra_deg) else float(ra_deg) % 360.0
    return ms_sink(path, arr, b, int(n_channels), geom, (ra, float(dec_deg)),
                   2 * int(n_channels) / float(samp_rate), int(n_taps), int(n_integrate),
                   float(jy_per_unit), output_format, flag_channels=flags)

#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""An array, a band and a sky of point sources, for the FX correlator's
simulation and for its MeasurementSet (docs/fx.md).

Geometry: antenna positions (east, north, up from a WGS84 reference point)
are turned into geocentric celestial (GCRS) positions at each time with
astropy (Earth rotation, precession-nutation and polar motion from its
bundled IERS-B table; no network access is attempted). Baselines are those
positions minus the reference's, so the geocentre and the Earth's orbital
motion drop out. A source at ICRS (RA, Dec) has the unit vector s; antenna
a receives its wavefront tau_a = -(b_a . s) / c seconds after the
reference point. The (u, v, w) of antenna a for a phase centre s0 are b_a
projected on (east, north, s0) of s0's ICRS frame (J2000 UVW). Delays and
UVW therefore share one frame: an image made from them puts each source at
its ICRS position. Aberration, refraction and the sources' proper motion
are not simulated (the same for the model and the data).

Delays are computed on a grid of times and interpolated with a polynomial
fit per antenna and source (error below 1e-15 s for grid spacings up to a
minute: Earth rotates 4e-3 rad in 60 s)."""

import math
import os
from dataclasses import dataclass

import numpy as np

SPEED_OF_LIGHT = 299792458.0

__all__ = ["SPEED_OF_LIGHT", "band", "MEERKAT_L_BAND", "antenna_array", "load_array",
           "sky_source", "geometry"]


@dataclass(frozen=True)
class band:
    """A real-sampled band: samp_rate (Hz) and the Nyquist zone (1: sky 0 ..
    fs/2; 2: fs/2 .. fs, which arrives inverted: baseband f is sky fs - f)."""
    samp_rate: float
    nyquist_zone: int = 1

    @property
    def inverted(self):
        return self.nyquist_zone % 2 == 0

    @property
    def low(self):
        return (self.nyquist_zone - 1) * self.samp_rate / 2

    @property
    def high(self):
        return self.nyquist_zone * self.samp_rate / 2

    def sky_frequency(self, baseband):
        """The sky frequency (Hz) of baseband frequency f in [0, fs/2]."""
        f = np.asarray(baseband, float)
        return self.high - f if self.inverted else self.low + f

    def channel_frequencies(self, n_channels):
        """Sky frequency of each F-engine channel k (baseband k fs / 2N),
        in the F-engine's channel order."""
        return self.sky_frequency(np.arange(n_channels) * self.samp_rate / (2 * n_channels))


# MeerKAT L-band: 856-1712 MHz sampled at 1712 MS/s in the second Nyquist zone.
MEERKAT_L_BAND = band(1712e6, 2)


def _dms(text):
    sign = -1 if text.strip().startswith("-") else 1
    d, m, s = (abs(float(v)) for v in text.split(":"))
    return sign * (d + m / 60 + s / 3600)


@dataclass
class antenna_array:
    """Antennas as east/north/up offsets (m) from a WGS84 reference point."""
    name: str
    names: list
    enu: np.ndarray        # [antenna, 3] m
    latitude_deg: float
    longitude_deg: float
    height_m: float
    dish_diameter: float

    def subset(self, n):
        """n antennas spread over the table (every (N-1)/(n-1)-th, so that a
        subset of MeerKAT keeps core and long baselines)."""
        if not 1 <= n <= len(self.names):
            raise ValueError(f"{self.name} has {len(self.names)} antennas, asked for {n}")
        idx = np.unique(np.round(np.linspace(0, len(self.names) - 1, n)).astype(int))
        return antenna_array(self.name, [self.names[i] for i in idx], self.enu[idx],
                             self.latitude_deg, self.longitude_deg, self.height_m,
                             self.dish_diameter)

    def reference_itrf(self):
        """The reference point's geocentric position (m, WGS84 ellipsoid)."""
        a, f = 6378137.0, 1 / 298.257223563
        e2 = f * (2 - f)
        lat, lon = math.radians(self.latitude_deg), math.radians(self.longitude_deg)
        n = a / math.sqrt(1 - e2 * math.sin(lat) ** 2)
        h = self.height_m
        return np.array([(n + h) * math.cos(lat) * math.cos(lon),
                         (n + h) * math.cos(lat) * math.sin(lon),
                         (n * (1 - e2) + h) * math.sin(lat)])

    def itrf(self):
        """[antenna, 3] geocentric (ITRF/WGS84 ECEF) positions in m."""
        x0 = self.reference_itrf()
        lat, lon = math.radians(self.latitude_deg), math.radians(self.longitude_deg)
        east = np.array([-math.sin(lon), math.cos(lon), 0.0])
        north = np.array([-math.sin(lat) * math.cos(lon), -math.sin(lat) * math.sin(lon),
                          math.cos(lat)])
        up = np.array([math.cos(lat) * math.cos(lon), math.cos(lat) * math.sin(lon),
                       math.sin(lat)])
        return x0 + self.enu @ np.stack([east, north, up])

    def max_baseline(self):
        d = self.enu[:, None, :] - self.enu[None, :, :]
        return float(np.sqrt((d ** 2).sum(-1)).max())


def load_array(name="meerkat", n_antennas=None, path=None):
    """The array in data/fx/<name>_antennas.txt (the module's data folder),
    optionally n_antennas of it spread over the array (subset)."""
    if path is None:
        from . import gpudsp_python
        path = os.path.join(gpudsp_python.data_dir(), "fx", f"{name}_antennas.txt")
    names, enu, ref, dish = [], [], None, None
    with open(path) as f:
        for line in f:
            words = line.split()
            if line.startswith("# reference"):
                ref = (_dms(words[2]), _dms(words[3]), float(words[4]))
            elif line.startswith("# dish_diameter"):
                dish = float(words[2])
            elif words and not line.startswith("#"):
                names.append(words[0])
                enu.append([float(v) for v in words[1:4]])
    if ref is None or dish is None or not names:
        raise ValueError(f"{path}: not an antenna table (reference, dish_diameter, rows)")
    a = antenna_array(name, names, np.array(enu), ref[0], ref[1], ref[2], dish)
    return a if n_antennas is None else a.subset(n_antennas)


@dataclass
class sky_source:
    """A point source: ICRS position (deg), flux density (Jy) at ref_freq
    (Hz) and spectral index (S ~ nu^alpha)."""
    ra_deg: float
    dec_deg: float
    flux_jy: float
    spectral_index: float = 0.0

    def flux(self, freq, ref_freq):
        return self.flux_jy * (np.asarray(freq, float) / ref_freq) ** self.spectral_index


def radec_unit_vector(ra_deg, dec_deg):
    ra, dec = math.radians(ra_deg), math.radians(dec_deg)
    return np.array([math.cos(dec) * math.cos(ra), math.cos(dec) * math.sin(ra),
                     math.sin(dec)])


def _mjd_utc(iso):
    """MJD (UTC) of an ISO 8601 time 'YYYY-MM-DDTHH:MM:SS[.fff]'."""
    from datetime import datetime, timezone
    t = datetime.fromisoformat(iso.replace("Z", "")).replace(tzinfo=timezone.utc)
    epoch = datetime(1858, 11, 17, tzinfo=timezone.utc)
    return (t - epoch).total_seconds() / 86400.0


def _era_turns(mjd):
    """The Earth rotation angle in turns (IERS Conventions 2010, eq. 5.15),
    UT1 = UTC."""
    du = mjd - 51544.5
    return (0.7790572732640 + 0.00273781191135448 * du + du) % 1.0


def lst_deg(array, iso):
    """Local (mean) sidereal angle of the array at a UTC time, in degrees,
    from the Earth rotation angle: the RA that transits then (to 0.3 deg)."""
    return (360.0 * _era_turns(_mjd_utc(iso)) + array.longitude_deg) % 360.0


def direction_cosines(ra_deg, dec_deg, ra0_deg, dec0_deg):
    """(l, m, n) of (ra, dec) about the phase centre (ra0, dec0)."""
    ra, dec = math.radians(ra_deg), math.radians(dec_deg)
    ra0, dec0 = math.radians(ra0_deg), math.radians(dec0_deg)
    l = math.cos(dec) * math.sin(ra - ra0)
    m = math.sin(dec) * math.cos(dec0) - math.cos(dec) * math.sin(dec0) * math.cos(ra - ra0)
    return l, m, math.sqrt(max(0.0, 1 - l * l - m * m))


def offset_position(ra_deg, dec_deg, east_arcsec, north_arcsec):
    """The point east/north arcseconds from (ra, dec) on the sky (the tangent
    plane's l, m: RA grows to the east)."""
    l, m = math.radians(east_arcsec / 3600), math.radians(north_arcsec / 3600)
    ra0, dec0 = math.radians(ra_deg), math.radians(dec_deg)
    n = math.sqrt(1 - l * l - m * m)
    dec = math.asin(m * math.cos(dec0) + n * math.sin(dec0))
    ra = ra0 + math.atan2(l, n * math.cos(dec0) - m * math.sin(dec0))
    return math.degrees(ra) % 360, math.degrees(dec)


class geometry:
    """Baselines of an array in a celestial frame over an observation, with
    delays and UVW (see the module's docstring). start: an ISO string
    (UTC); duration in seconds.

    engine "astropy" (the default when astropy is installed): GCRS, with
    Earth rotation, precession-nutation and polar motion (IERS-B bundled
    with astropy; times after its end, 2022-11-29 for Debian 12's astropy
    5.2, fall back to its predictions with a warning). engine "simple":
    Earth rotation only (the Earth rotation angle, UT1 = UTC), the frame of
    date: positions differ from ICRS by precession and nutation (0.3 deg in
    2022) but delays and UVW stay consistent with each other, so the
    correlator's own checks hold; used where astropy is absent (the GPU
    suite's machines)."""

    SEGMENT_SECONDS = 600.0  # one polynomial per 10 minutes (see _fit)

    def __init__(self, array, start, duration, grid_seconds=60.0, engine=None):
        if engine is None:
            try:
                import astropy  # noqa: F401
                engine = "astropy"
            except ImportError:
                engine = "simple"
        if engine not in ("astropy", "simple"):
            raise ValueError('geometry: engine must be "astropy" or "simple"')
        if not (duration >= 0 and math.isfinite(duration)):
            raise ValueError(f"geometry: duration must be >= 0 s (got {duration})")
        self.engine = engine
        self.array = array
        self.start_iso = str(start)
        self.start_mjd = _mjd_utc(self.start_iso)
        self.duration = float(duration)
        # Segments of at most SEGMENT_SECONDS, each sampled at >= 5 points
        # <= grid_seconds apart (its ends shared with its neighbours).
        span = max(self.duration, 1e-3)
        self.n_segments = max(1, int(math.ceil(span / self.SEGMENT_SECONDS)))
        seg = span / self.n_segments
        per = max(4, int(math.ceil(seg / grid_seconds)))
        self.grid = np.linspace(0.0, span, self.n_segments * per + 1)  # s from start
        self.points_per_segment = per
        self.baselines = (self._astropy_baselines if engine == "astropy"
                          else self._simple_baselines)(self.grid)  # [time, antenna, 3] m
        self._fits = {}  # fitted delays / UVW per direction

    def _astropy_baselines(self, seconds):
        import warnings
        import astropy.units as u
        from astropy.coordinates import EarthLocation
        from astropy.time import Time
        from astropy.utils import iers
        iers.conf.auto_download = False  # the bundled IERS-B table, no network
        x = self.array.itrf()
        x0 = self.array.reference_itrf()
        ants = EarthLocation.from_geocentric(x[:, 0] * u.m, x[:, 1] * u.m, x[:, 2] * u.m)
        ref = EarthLocation.from_geocentric(*(x0 * u.m))
        start = Time(self.start_iso, scale="utc")
        out = np.empty((len(seconds), len(x), 3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", iers.IERSStaleWarning)
            for k, s in enumerate(seconds):
                t = start + s * u.s
                pa, _ = ants.get_gcrs_posvel(t)
                pr, _ = ref.get_gcrs_posvel(t)
                out[k] = (pa.xyz - pr.xyz[:, None]).to_value(u.m).T
        return out

    def _simple_baselines(self, seconds):
        b = self.array.itrf() - self.array.reference_itrf()  # [antenna, 3], ITRF
        out = np.empty((len(seconds), len(b), 3))
        for k, s in enumerate(seconds):
            era = 2 * math.pi * _era_turns(self.start_mjd + s / 86400.0)
            c, sn = math.cos(era), math.sin(era)
            out[k] = b @ np.array([[c, sn, 0.0], [-sn, c, 0.0], [0.0, 0.0, 1.0]])
        return out

    def _fit(self, values):
        """A function of seconds -> values: per segment, the degree-4
        polynomial through its grid points (least squares). Earth rotation
        turns a baseline by 0.044 rad in a segment: the fit's error is about
        0.044^5 / 120 = 1.4e-9 of the baseline (1e-5 m at 8 km, 1e-4 rad at
        1.7 GHz); inside a millisecond run it is exact to rounding. Times
        beyond the observation extrapolate the end segments."""
        per = self.points_per_segment
        flat = values.reshape(len(self.grid), -1)
        span = self.grid[-1]
        seg = span / self.n_segments
        coefs = []
        for j in range(self.n_segments):
            g = slice(j * per, (j + 1) * per + 1)
            coefs.append(np.polynomial.polynomial.polyfit(
                (self.grid[g] - j * seg) / seg, flat[g], min(4, per)))
        coefs = np.stack(coefs)  # [segment, degree + 1, value]
        shape = values.shape[1:]

        def at(seconds):
            t = np.atleast_1d(np.asarray(seconds, float))
            j = np.clip(np.floor(t / seg), 0, self.n_segments - 1).astype(int)
            x = (t - j * seg) / seg
            out = np.zeros((len(t), flat.shape[1]))
            for d in range(coefs.shape[1] - 1, -1, -1):  # Horner, per time
                out = out * x[:, None] + coefs[j, d]
            return out.reshape((len(t),) + shape)
        return at

    def delays(self, ra_deg, dec_deg):
        """A function of seconds from start (array) -> [time, antenna] geometric
        delays (s) of the source at (ra, dec), relative to the reference.
        Fitted once per direction (callers ask per message and per dump)."""
        key = ("delays", ra_deg, dec_deg)
        if key not in self._fits:
            s = radec_unit_vector(ra_deg, dec_deg)
            self._fits[key] = self._fit(-(self.baselines @ s) / SPEED_OF_LIGHT)
        return self._fits[key]

    def uvw(self, seconds, ra0_deg, dec0_deg):
        """[time, antenna, 3] (u, v, w) in m of each antenna relative to the
        reference, for the phase centre (ra0, dec0): J2000 (ICRS) axes."""
        key = ("uvw", ra0_deg, dec0_deg)
        if key not in self._fits:
            ra0, dec0 = math.radians(ra0_deg), math.radians(dec0_deg)
            s = radec_unit_vector(ra0_deg, dec0_deg)
            e = np.array([-math.sin(ra0), math.cos(ra0), 0.0])
            nv = np.array([-math.sin(dec0) * math.cos(ra0), -math.sin(dec0) * math.sin(ra0),
                           math.cos(dec0)])
            basis = np.stack([e, nv, s], 1)  # columns: u, v, w directions
            self._fits[key] = self._fit(self.baselines @ basis)
        return self._fits[key](seconds)

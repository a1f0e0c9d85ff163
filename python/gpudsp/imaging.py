#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The check a radio astronomer makes of a correlator: image its
MeasurementSet with WSClean and compare the image with the sky model
(docs/fx.md, "Imaging").

image_plan() sizes the image from the array and the sky (a pixel a fifth
of the synthesized beam, the image a dozen beams larger than the farthest
source); wsclean() runs it (Stokes I, Briggs 0, multi-frequency synthesis
cleaned jointly in 8 sub-bands with a second-order spectral fit,
Cotton-Schwab, auto-mask at 5 sigma, then to 1 sigma inside the mask); check_image() fits each model source's peak in the restored
image (a quadratic through the 3 x 3 pixels about the brightest pixel
within a beam of the model position) and requires its position within 0.1
synthesized beam (the offset measured in units of the beam ellipse) and
its flux within 5 % of the model's at the image's frequency, and nothing
above 5 sigma of the residual (1.4826 x its median absolute deviation)
more than 3 beams from every model source. A mirrored or rotated image
moves the off-axis sources and fails."""

import math
import os
import shutil
import subprocess
from dataclasses import dataclass

import numpy as np

from . import sky

__all__ = ["image_plan", "wsclean", "check_image", "plot_sky", "source_result"]


def image_plan(array, band, sky_model, pixels_per_beam=5, beams_margin=12):
    """(size in pixels, pixel scale in arcsec) for an image of the model."""
    lam = sky.SPEED_OF_LIGHT / ((band.low + band.high) / 2)
    beam = math.degrees(lam / array.max_baseline()) * 3600  # arcsec, approximate
    scale = beam / pixels_per_beam
    ra0, dec0 = sky_model["phase_centre"]["ra_deg"], sky_model["phase_centre"]["dec_deg"]
    far = 0.0
    for s in sky_model["sources"]:
        l, m, _ = sky.direction_cosines(s["ra_deg"], s["dec_deg"], ra0, dec0)
        far = max(far, math.degrees(max(abs(l), abs(m))) * 3600)
    half = far + beams_margin * beam
    size = max(128, int(math.ceil(2 * half / scale / 16)) * 16)
    return size, scale


def wsclean(ms, prefix, size, scale_arcsec, niter=20000, threads=None, log=None,
            fit_beam=True):
    """Runs WSClean on the MS's DATA; returns {"image", "residual", "model",
    "psf", "dirty"} FITS paths. Raises RuntimeError when it fails.

    fit_beam=False restores with the theoretical beam (-theoretic-beam)
    instead of a Gaussian fitted to the PSF: fitting the long, thin PSF of
    a short observation with few antennas takes 95 % of WSClean's time
    (40 s of 42 s for 16 MeerKAT antennas in a 256-pixel image), and the
    restored fluxes of the sources then differ by a few per cent."""
    exe = shutil.which("wsclean")
    if exe is None:
        raise RuntimeError("wsclean is not installed (Debian: apt install wsclean)")
    os.makedirs(os.path.dirname(prefix) or ".", exist_ok=True)
    # Multi-frequency synthesis over the octave, cleaned jointly in 8 sub-bands
    # with a second-order spectral fit (sources with spectral indices).
    cmd = [exe, "-name", prefix, "-size", str(size), str(size),
           "-scale", f"{scale_arcsec:.6f}asec", "-pol", "I", "-weight", "briggs", "0",
           "-niter", str(niter), "-auto-mask", "5", "-auto-threshold", "1", "-mgain", "0.8",
           "-join-channels", "-channels-out", "8", "-fit-spectral-pol", "2",
           "-data-column", "DATA", "-quiet"]
    if threads:
        cmd += ["-j", str(threads)]
    if not fit_beam:
        cmd += ["-theoretic-beam"]
    run = subprocess.run(cmd + [ms], capture_output=True, text=True)
    if log:
        with open(log, "w") as f:
            f.write(" ".join(cmd + [ms]) + "\n" + run.stdout + run.stderr)
    if run.returncode != 0:
        raise RuntimeError(f"wsclean failed ({run.returncode}): {run.stderr[-2000:]}")
    return {k: f"{prefix}-MFS-{k}.fits" for k in ("image", "residual", "model", "psf", "dirty")}


@dataclass
class source_result:
    ra_deg: float
    dec_deg: float
    model_flux: float
    flux: float            # fitted peak, Jy/beam
    offset_beams: float    # position error in units of the beam ellipse
    offset_arcsec: float
    x: float               # fitted pixel position
    y: float
    passed: bool


def _quadratic_peak(img, yi, xi):
    """Sub-pixel peak (y, x, value) of a quadratic through the 3 x 3 pixels
    about (yi, xi)."""
    w = img[yi - 1:yi + 2, xi - 1:xi + 2].astype(np.float64)
    dx = (w[1, 2] - w[1, 0]) / 2
    dy = (w[2, 1] - w[0, 1]) / 2
    dxx = w[1, 2] - 2 * w[1, 1] + w[1, 0]
    dyy = w[2, 1] - 2 * w[1, 1] + w[0, 1]
    dxy = (w[2, 2] - w[2, 0] - w[0, 2] + w[0, 0]) / 4
    H = np.array([[dxx, dxy], [dxy, dyy]])
    g = np.array([dx, dy])
    try:
        step = -np.linalg.solve(H, g)
    except np.linalg.LinAlgError:
        step = np.zeros(2)
    step = np.clip(step, -1, 1)
    value = w[1, 1] + g @ step + 0.5 * step @ H @ step
    return yi + step[1], xi + step[0], float(value)


def _read_image(path):
    """A WSClean FITS image: (header, the [y, x] plane, its celestial WCS)."""
    import warnings
    from astropy.io import fits
    from astropy.wcs import WCS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # WSClean's header keywords astropy frowns on
        head = fits.getheader(path)
        return head, fits.getdata(path)[0, 0], WCS(head).celestial


def check_image(fits_paths, sky_model, position_beams=0.1, flux_fraction=0.05,
                sigma_limit=5.0):
    """The image against the model: (list of source_result, dict of the
    image's figures, list of (name, passed, detail) checks)."""
    head, img, wcs = _read_image(fits_paths["image"])
    res = _read_image(fits_paths["residual"])[1]
    bmaj, bmin, bpa = head["BMAJ"] * 3600, head["BMIN"] * 3600, math.radians(head["BPA"])
    freq = head["CRVAL3"]
    pix = abs(head["CDELT1"]) * 3600
    sigma = 1.4826 * float(np.median(np.abs(res - np.median(res))))
    ref = sky_model["ref_freq_hz"]
    results = []
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]]
    masked = np.zeros(img.shape, bool)
    for s in sky_model["sources"]:
        model_flux = s["flux_jy"] * (freq / ref) ** s.get("spectral_index", 0.0)
        x0, y0 = (float(v) for v in wcs.world_to_pixel_values(s["ra_deg"], s["dec_deg"]))
        r = max(1, int(math.ceil(bmaj / pix)))
        near = (np.hypot(xx - x0, yy - y0) <= r)
        masked |= np.hypot(xx - x0, yy - y0) <= 3 * bmaj / pix
        sub = np.where(near, img, -np.inf)
        yi, xi = np.unravel_index(np.argmax(sub), img.shape)
        yi = int(np.clip(yi, 1, img.shape[0] - 2))
        xi = int(np.clip(xi, 1, img.shape[1] - 2))
        yf, xf, peak = _quadratic_peak(img, yi, xi)
        ra, dec = (float(v) for v in wcs.pixel_to_world_values(xf, yf))
        # Offset on the sky (east, north) in arcsec, then in beam units.
        l, m, _ = sky.direction_cosines(ra, dec, s["ra_deg"], s["dec_deg"])
        east, north = math.degrees(l) * 3600, math.degrees(m) * 3600
        # BPA is east of north: the major axis points (sin bpa, cos bpa).
        along = east * math.sin(bpa) + north * math.cos(bpa)
        across = east * math.cos(bpa) - north * math.sin(bpa)
        beams = math.hypot(along / bmaj, across / bmin)
        ok = beams <= position_beams and abs(peak / model_flux - 1) <= flux_fraction
        results.append(source_result(s["ra_deg"], s["dec_deg"], model_flux, peak, beams,
                                     math.hypot(east, north), xf, yf, ok))
    # The image's outer 5 % on each side is left out: gridding aliases there.
    border = max(2, img.shape[0] // 20)
    inner = np.zeros(img.shape, bool)
    inner[border:-border, border:-border] = True
    outside = img[inner & ~masked]
    brightest = float(outside.max()) if outside.size else 0.0
    figures = dict(bmaj_arcsec=bmaj, bmin_arcsec=bmin, bpa_deg=math.degrees(bpa),
                   freq_hz=freq, pixel_arcsec=pix, residual_sigma=sigma,
                   brightest_elsewhere=brightest)
    checks = []
    for k, r in enumerate(results):
        checks.append((f"source {k}", r.passed,
                       f"({r.ra_deg:.5f}, {r.dec_deg:+.5f}): flux {r.flux:.3f} Jy/beam vs "
                       f"{r.model_flux:.3f} ({100 * (r.flux / r.model_flux - 1):+.1f}%), position "
                       f"off by {r.offset_arcsec:.2f}\" = {r.offset_beams:.3f} beam"))
    checks.append(("image noise", brightest <= sigma_limit * sigma,
                   f"brightest pixel beyond 3 beams of the sources (inner 90%) {brightest:.4f} "
                   f"Jy/beam = "
                   f"{brightest / sigma:.1f} sigma (sigma {sigma:.4f}; limit {sigma_limit:g})"))
    return results, figures, checks


def plot_sky(fits_paths, sky_model, results, path):
    """sky.png: the restored image with the model positions marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    head, img, wcs = _read_image(fits_paths["image"])
    fig = plt.figure(figsize=(7, 6.2))
    ax = fig.add_subplot(projection=wcs)
    im = ax.imshow(img, origin="lower", cmap="inferno",
                   vmin=-0.05 * img.max(), vmax=img.max())
    fig.colorbar(im, ax=ax, label="Jy/beam")
    for k, (s, r) in enumerate(zip(sky_model["sources"], results)):
        x, y = (float(v) for v in wcs.world_to_pixel_values(s["ra_deg"], s["dec_deg"]))
        ax.plot(x, y, "o", mfc="none", mec="cyan" if r.passed else "red", ms=16, mew=1.2)
        ax.annotate(f"{k}: {r.flux:.2f}/{r.model_flux:.2f} Jy", (x, y), xytext=(10, 10),
                    textcoords="offset points", color="cyan" if r.passed else "red",
                    fontsize=8)
    ax.set_xlabel("RA (ICRS)")
    ax.set_ylabel("Dec (ICRS)")
    ax.set_title(f"WSClean image of the correlator's MS, circles: model sources\n"
                 f"beam {head['BMAJ'] * 3600:.1f}\" x {head['BMIN'] * 3600:.1f}\", "
                 f"{head['CRVAL3'] / 1e6:.0f} MHz")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


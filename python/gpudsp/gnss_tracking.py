#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A GNSS tracking receiver around gpudsp.wipeoff_correlator, for the
gpudsp_gnss_track demo: a synthetic multi-antenna source (GPS L1 C/A +
Galileo E1-B, or GPS L5 + Galileo E5a with data and pilot components) that
knows the truth, and FLL-assisted PLL + carrier-aided DLL loops
in Python, one per satellite, driven by the correlator's "corr" messages and
steering it through its "control" port.

Loops (per satellite component, integration time T = one primary code
period: 1 ms for L1 C/A, L5 and E5a, 4 ms for E1-B):
- antennas combined coherently: each antenna's prompt turned by its
  estimated phase offset to antenna 0 (running average of P_m conj(P_0));
- carrier: Costas discriminator atan(Q/I) (blind to data bits) into a
  2nd-order PLL, assisted by a 1st-order FLL on atan(cross/dot) of
  consecutive prompts (also blind to bit flips); FLL alone for the first
  pull-in period;
- code: normalised early-minus-late envelope (taps +-0.5 chip for the BPSK
  signals, +-0.15 chip for E1-B, from the block's 5 taps), 1st-order DLL
  aided by the carrier Doppler (f_code = f_chip (1 + f_D / f_carrier));
- secondary code (L5, E5a): once the PLL has run for a while, the signs of
  the last N prompts (N the secondary code's length; pilots carry no data)
  are correlated with the secondary code at every shift; the best shift
  (its correlation at least 0.8 N) gives the chip of an integration already
  seen, which the channel hands to the correlator with that integration's
  "epoch" (so the loop latency does not matter); from then on the
  correlator wipes the secondary code off, and the prompt's sign stays
  constant on a pilot (recorded as "secondary_synced");
- C/N0: the M2M4 moments estimator on the combined prompt; phase lock
  indicator: cos 2 phi = (sum I^2 - sum Q^2) / (sum I^2 + sum Q^2).
The loop output is applied by the correlator from its next integration
not yet started (one to two integrations later; the source stays at most
a few ms ahead of the loops so the delay is bounded)."""

import math
import threading
import time

import numpy as np
import pmt
from gnuradio import gr

from . import gnss, kernels

TAPS = [0.5, 0.15, 0.0, -0.15, -0.5]
PILOTS = ("gps_l5q", "galileo_e5aq")
#: the data component of each pilot (transmitted in quadrature with it)
DATA_OF = {"gps_l5q": "gps_l5i", "galileo_e5aq": "galileo_e5ai"}


def signal_of(system):
    s = kernels.gnss_signal(system)
    s["period"] = s["code_length"] / s["chip_rate"]
    # early/late tap indices in TAPS and their half spacing (chips)
    s["early_late"] = (1, 3, 0.15) if system == "galileo_e1b" else (0, 4, 0.5)
    return s


def code_freq_of(sig, doppler):
    """The code rate a carrier Doppler implies (the same relative shift)."""
    return sig["chip_rate"] * (1 + doppler / sig["carrier_hz"])


class truth_satellite:
    """One satellite of the synthetic sky: constant Doppler, code and
    carrier phase at sample 0, navigation data, per-antenna phase offsets."""

    def __init__(self, system, prn, doppler, code_phase, carrier_phase, bits,
                 antenna_phases, cn0_dbhz):
        self.system, self.prn = system, prn
        sig = signal_of(system)
        self.doppler = doppler
        self.code_freq = code_freq_of(sig, doppler)
        self.code_phase, self.carrier_phase = code_phase, carrier_phase
        self.bits, self.antenna_phases, self.cn0_dbhz = bits, antenna_phases, cn0_dbhz
        self.code_length = sig["code_length"]
        self.secondary = sig["secondary_length"] > 0

    def model(self):
        m = dict(system=self.system, prn=self.prn, carrier_freq=self.doppler,
                 code_freq=self.code_freq, code_phase=self.code_phase,
                 carrier_phase=self.carrier_phase, cn0_dbhz=self.cn0_dbhz,
                 secondary=self.secondary)
        if self.bits is not None:
            m["bits"] = self.bits
        return m

    def code_at(self, sample, fs):
        return (self.code_phase + self.code_freq * sample / fs) % self.code_length

    def carrier_at(self, sample, fs):
        return self.carrier_phase + self.doppler * sample / fs


def make_sky(l1_prns, e1b_prns, n_antennas, cn0_dbhz, rng, l5_prns=(), e5a_prns=()):
    """Satellites with random Doppler, code and carrier phase, data symbols
    (gnss.SYMBOL_PERIODS) and antenna phases. An L5 or E5a satellite is two
    entries, its data component (I) and its pilot (Q, no data, a quarter
    cycle later), each at half the satellite's power (cn0_dbhz - 3 dB)."""
    sats = []
    for system, prns in (("gps_l1ca", l1_prns), ("galileo_e1b", e1b_prns),
                         ("gps_l5q", l5_prns), ("galileo_e5aq", e5a_prns)):
        for prn in prns:
            length = kernels.gnss_signal(system)["code_length"]
            common = dict(doppler=rng.uniform(-4000, 4000), code_phase=rng.uniform(0, length),
                          carrier_phase=rng.uniform(0, 1),
                          antenna_phases=[0.0] + list(rng.uniform(-0.5, 0.5, n_antennas - 1)))
            if system not in PILOTS:
                sats.append(truth_satellite(system, prn, bits=rng.choice([-1.0, 1.0], 4096),
                                            cn0_dbhz=cn0_dbhz, **common))
                continue
            half = cn0_dbhz - 10 * math.log10(2)
            sats.append(truth_satellite(DATA_OF[system], prn,
                                        bits=rng.choice([-1.0, 1.0], 4096), cn0_dbhz=half,
                                        **common))
            common["carrier_phase"] += 0.25
            sats.append(truth_satellite(system, prn, bits=None, cn0_dbhz=half, **common))
    return sats


class synthetic_source(gr.sync_block):
    """n_antennas complex outputs: the sky plus unit-power noise per sample,
    generated as it is read, never more than `lead` samples beyond what
    the loops still need (so their corrections arrive in time)."""

    def __init__(self, sky, fs, n_samples, n_antennas, pacer, seed):
        gr.sync_block.__init__(self, "synthetic_gnss_source", [],
                               [np.complex64] * n_antennas)
        self.sky, self.fs, self.n_samples, self.n_antennas = sky, fs, n_samples, n_antennas
        self.pacer = pacer
        self.rng = np.random.default_rng(seed)
        self.phases = [[s.antenna_phases[m] for s in sky] for m in range(n_antennas)]
        self.models = [s.model() for s in sky]
        self.set_max_noutput_items(4096)

    def work(self, input_items, output_items):
        start = self.nitems_written(0)
        if start >= self.n_samples:
            return -1
        # Wait here rather than return 0: a source that produces nothing is
        # only woken by its readers, which may be waiting for it.
        allowed = self.pacer.allowed(start, timeout=0.2)
        while allowed <= 0 and not self.pacer.stopped:
            allowed = self.pacer.allowed(start, timeout=0.2)
        n = min(len(output_items[0]), self.n_samples - start, max(allowed, 1))
        x = gnss.synthetic_signal(n, self.fs, self.models, n_antennas=self.n_antennas,
                                  cn0_dbhz=self.sky[0].cn0_dbhz if self.sky else None,
                                  antenna_phases=self.phases, first_sample=start,
                                  rng=self.rng)
        for m in range(self.n_antennas):
            output_items[m][:n] = x[m]
        return n


class pacer:
    """How far the source may run: each satellite's next integration end
    plus `lead` samples."""

    def __init__(self, lead):
        self.lead = lead
        self.need = {}
        self.cond = threading.Condition()
        self.stopped = False

    def set_need(self, key, sample):
        with self.cond:
            self.need[key] = sample
            self.cond.notify_all()

    def allowed(self, start, timeout):
        with self.cond:
            limit = lambda: (min(self.need.values()) if self.need else start) + self.lead
            if limit() <= start and not self.stopped:
                self.cond.wait(timeout)
            return int(limit() - start)


class channel:
    """The loops of one satellite and what they record."""

    def __init__(self, truth, fs, n_antennas, doppler0, code0, pll_bw=15.0, fll_bw=8.0,
                 dll_bw=2.0, pull_in=0.1):
        self.truth, self.fs, self.M = truth, fs, n_antennas
        self.system, self.prn = truth.system, truth.prn
        self.sig = signal_of(self.system)
        self.T = self.sig["period"]
        self.secondary = kernels.gnss_secondary_code(self.system, self.prn)
        self.secondary_synced = False
        self.signs = []  # (epoch, sign of the prompt) before the secondary sync
        self.doppler0, self.code0 = doppler0, code0
        self.freq_acc = 2 * math.pi * doppler0  # rad/s
        self.w0p, self.w0f = pll_bw / 0.53, fll_bw / 0.25
        self.dll_gain = 4 * dll_bw
        self.pull_in = pull_in
        self.prev = None
        self.ant_est = np.ones(n_antennas, np.complex128)
        self.log = {k: [] for k in ("t", "I", "Q", "phase_err", "freq_err", "code_err",
                                    "cn0", "lock", "true_code_err", "true_carrier_err",
                                    "true_doppler_err", "ant_phase")}
        self.history = []  # combined prompts for the C/N0 estimator
        self.cn0 = float("nan")

    def update(self, msg):
        """One integration: returns the control dict for the correlator."""
        corr = np.asarray(msg["correlations"]).reshape(self.M, len(TAPS))
        start, length = msg["start"], msg["length"]
        t = start / self.fs
        # Antenna weights: phase of each antenna relative to antenna 0.
        p = corr[:, 2]
        self.ant_est = 0.98 * self.ant_est + 0.02 * p * np.conj(p[0]) / (abs(p[0]) + 1e-30)
        w = np.conj(self.ant_est / (np.abs(self.ant_est) + 1e-30))
        w[0] = 1
        comb = w @ corr / length  # combined taps, normalised per sample
        P = comb[2]
        e_i, l_i, half = self.sig["early_late"]
        E, L = abs(comb[e_i]), abs(comb[l_i])
        # Discriminators.
        phase_err = math.atan(P.imag / P.real) if P.real != 0 else 0.0  # rad
        freq_err = 0.0
        if self.prev is not None:
            cross = self.prev.real * P.imag - self.prev.imag * P.real
            dot = self.prev.real * P.real + self.prev.imag * P.imag
            freq_err = math.atan(cross / dot) / self.T if dot != 0 else 0.0  # rad/s
        self.prev = P
        slope = (1 - 3 * half) / 3 if self.system == "galileo_e1b" else (1 - half)
        code_err = slope * (E - L) / (E + L) if E + L > 0 else 0.0  # chips
        # Carrier loop: FLL alone during pull-in, then FLL-assisted PLL.
        pll = t >= self.pull_in
        if pll:
            self.freq_acc += self.T * (self.w0p ** 2 * phase_err + self.w0f * freq_err * 0.25)
            omega = self.freq_acc + 1.414 * self.w0p * phase_err
        else:
            self.freq_acc += self.T * self.w0f * freq_err
            omega = self.freq_acc
        doppler = omega / (2 * math.pi)
        code_freq = code_freq_of(self.sig, doppler) + self.dll_gain * code_err
        # C/N0 (M2M4 over the last 50 prompts) and the phase lock indicator.
        self.history.append(P)
        h = np.asarray(self.history[-50:])
        if len(h) >= 20:
            m2 = np.mean(np.abs(h) ** 2)
            m4 = np.mean(np.abs(h) ** 4)
            pd = math.sqrt(max(2 * m2 * m2 - m4, 0.0))
            pn = m2 - pd
            if pn > 0 and pd > 0:
                # Per-sample noise power after combining M antennas: the
                # per-antenna C/N0 is the combined one less 10 log10(M).
                self.cn0 = 10 * math.log10(pd / pn / self.T) - 10 * math.log10(self.M)
        i2, q2 = np.sum(h.real ** 2), np.sum(h.imag ** 2)
        lock = (i2 - q2) / (i2 + q2) if i2 + q2 > 0 else 0.0
        # Truth at this integration's first sample.
        tr = self.truth
        dc = (tr.code_at(start, self.fs) - msg["code_phase"] + tr.code_length / 2) % \
            tr.code_length - tr.code_length / 2
        dphi = (tr.carrier_at(start, self.fs) - msg["carrier_phase"] + 0.25) % 0.5 - 0.25
        for k, v in (("t", t), ("I", P.real), ("Q", P.imag), ("phase_err", phase_err),
                     ("freq_err", freq_err / (2 * math.pi)), ("code_err", code_err),
                     ("cn0", self.cn0), ("lock", lock), ("true_code_err", dc),
                     ("true_carrier_err", dphi),
                     ("true_doppler_err", msg["carrier_freq"] - tr.doppler),
                     ("ant_phase", np.angle(self.ant_est) / (2 * np.pi))):
            self.log[k].append(v)
        control = dict(system=self.system, prn=self.prn, carrier_freq=doppler,
                       code_freq=code_freq)
        sync = self.secondary_sync(msg, P, t)
        if sync is not None:
            control.update(sync)
        return control

    def secondary_sync(self, msg, P, t):
        """Once the PLL has pulled in: the secondary chip of an integration
        already seen, from the prompt signs of the last N (the code's
        length) integrations, or None. Pilots only (data symbols would
        scramble the signs), and one primary period per integration (as
        run() makes the correlator): the window must hold N consecutive
        epochs."""
        N = len(self.secondary)
        if self.secondary_synced or self.system not in PILOTS or t < 2 * self.pull_in:
            return None
        self.signs.append((msg["epoch"], 1.0 if P.real >= 0 else -1.0))
        if len(self.signs) < N:
            return None
        self.signs = self.signs[-N:]
        epochs = [e for e, _ in self.signs]
        if epochs != list(range(epochs[0], epochs[0] + N)):
            return None  # a gap (a code correction across an epoch): wait
        s = np.array([v for _, v in self.signs])
        scores = [abs(np.dot(s, np.roll(self.secondary, -k))) for k in range(N)]
        k = int(np.argmax(scores))
        if scores[k] < 0.8 * N:
            return None
        self.secondary_synced = True
        # Integration j of the window (epoch epochs[j]) carried chip k + j.
        return dict(secondary_chip=k, epoch=epochs[0])

    def summary(self, settle_fraction=0.4):
        n = len(self.log["t"])
        k0 = int(n * (1 - settle_fraction))
        tail = lambda k: np.asarray(self.log[k][k0:], float)
        ant = np.asarray(self.log["ant_phase"][-1]) if n else np.zeros(self.M)
        truth_ant = np.asarray(self.truth.antenna_phases)
        return dict(
            integrations=n,
            locked=bool(n and np.mean(tail("lock")) > 0.7),
            cn0=float(np.nanmean(tail("cn0"))) if n else float("nan"),
            code_rms=float(np.sqrt(np.mean(tail("true_code_err") ** 2))) if n else 1e9,
            carrier_rms=float(np.sqrt(np.mean(tail("true_carrier_err") ** 2))) if n else 1e9,
            doppler_mean=float(np.mean(tail("true_doppler_err"))) if n else 1e9,
            antenna_err=float(np.max(np.abs((ant - truth_ant + 0.5) % 1 - 0.5))) if n else 1e9,
            # Pilots: the secondary code found, and the prompt's sign constant
            # over the settled part (the correlator wipes the code off).
            secondary_ok=(self.system not in PILOTS or
                          (self.secondary_synced and n > 0 and
                           max(np.mean(tail("I") > 0), np.mean(tail("I") < 0)) >= 0.99)),
        )


class tracker(gr.basic_block):
    """Message block: "corr" in (from the correlator), "control" out (to
    it); one channel per satellite."""

    def __init__(self, channels, pacer_, fs, samples_total, progress=True):
        gr.basic_block.__init__(self, "gnss_tracker", None, None)
        self.channels = {(c.system, c.prn): c for c in channels}
        self.pacer, self.fs, self.total = pacer_, fs, samples_total
        self.progress = progress
        self.last_print = 0.0
        self.messages = 0
        self.message_port_register_in(pmt.intern("corr"))
        self.message_port_register_out(pmt.intern("control"))
        self.set_msg_handler(pmt.intern("corr"), self.handle)

    def handle(self, msg):
        m = pmt.to_python(msg)
        ch = self.channels.get((m["system"], m["prn"]))
        if ch is None:
            return
        self.messages += 1
        ctl = ch.update(m)
        self.message_port_pub(pmt.intern("control"), pmt.to_pmt(ctl))
        end = m["start"] + m["length"]
        self.pacer.set_need((ch.system, ch.prn), end + m["length"])
        if self.progress and end / self.fs - self.last_print >= 0.1:
            self.last_print = end / self.fs
            locked = sum(1 for c in self.channels.values()
                         if c.log["lock"] and c.log["lock"][-1] > 0.7)
            print(f"  t = {end / self.fs:6.2f} s of {self.total / self.fs:.2f} s: "
                  f"{locked}/{len(self.channels)} channels in phase lock", flush=True)


def run(sky, fs, seconds, n_antennas, backend="auto", device=0, seed=1,
        doppler_error=40.0, code_error=0.25, progress=True):
    """Tracks the sky; returns (channels, correlator, wall seconds)."""
    from gnuradio import gpudsp  # the module, not this file's package init order

    rng = np.random.default_rng(seed + 1)
    n = int(seconds * fs)
    pace = pacer(lead=int(0.003 * fs))
    corr = gpudsp.wipeoff_correlator(fs, n_antennas, TAPS, "complex", 1, backend, device)
    channels = []
    for s in sky:
        # "Acquisition": Doppler and code phase with errors.
        d0 = s.doppler + rng.uniform(-doppler_error, doppler_error)
        c0 = s.code_phase + rng.uniform(-code_error, code_error)
        ch = channel(s, fs, n_antennas, d0, c0)
        channels.append(ch)
        sig = signal_of(s.system)
        corr.add_satellite(s.system, s.prn, d0, code_freq_of(sig, d0),
                           s.carrier_phase + rng.uniform(0, 1), c0, 0)
        pace.set_need((s.system, s.prn), int((sig["period"] * 2) * fs))
    src = synthetic_source(sky, fs, n, n_antennas, pace, seed)
    trk = tracker(channels, pace, fs, n, progress)
    tb = gr.top_block("gpudsp_gnss_track")
    for m in range(n_antennas):
        tb.connect((src, m), (corr, m))
    tb.msg_connect(corr, "corr", trk, "corr")
    tb.msg_connect(trk, "control", corr, "control")
    t0 = time.time()
    tb.start()
    # The control loop (tracker -> correlator -> tracker) keeps GNU Radio
    # from ending the flowgraph by itself: stop it once the source is done
    # and the correlator has taken every whole integration it holds.
    last = -1
    while True:
        time.sleep(0.2)
        if src.nitems_written(0) >= n and trk.messages == last:
            break
        last = trk.messages
    pace.stopped = True
    tb.stop()
    tb.wait()
    return channels, corr, time.time() - t0


def plot(channels, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(channels), 4, figsize=(18, 2.6 * len(channels)),
                             squeeze=False)
    for row, c in zip(axes, channels):
        t = np.asarray(c.log["t"])
        name = f"{c.system} PRN {c.prn}"
        row[0].plot(t, c.log["I"], ".", ms=2, label="I")
        row[0].plot(t, c.log["Q"], ".", ms=2, label="Q")
        row[0].set_title(f"{name}: prompt (combined)")
        row[0].legend(loc="upper right")
        row[1].plot(t, np.asarray(c.log["phase_err"]) / (2 * np.pi), lw=0.6, label="PLL (cycles)")
        row[1].plot(t, c.log["code_err"], lw=0.6, label="DLL (chips)")
        row[1].set_title("discriminators")
        row[1].legend(loc="upper right")
        row[2].plot(t, c.log["true_code_err"], lw=0.6, label="code (chips)")
        row[2].plot(t, c.log["true_carrier_err"], lw=0.6, label="carrier (cycles, mod 1/2)")
        row[2].set_ylim(-0.3, 0.3)
        row[2].set_title("error against the truth")
        row[2].legend(loc="upper right")
        row[3].plot(t, c.log["cn0"], lw=0.8)
        row[3].axhline(c.truth.cn0_dbhz, color="k", ls=":", lw=0.8)
        row[3].set_title("C/N0 estimate (dB-Hz, per antenna)")
    for ax in axes[-1]:
        ax.set_xlabel("s")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)

#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""5G NR LDPC helpers in plain numpy, independent of the module's C++ code:
the parity-check matrix read from the installed tables, the bit selection
of TS 38.212 5.4.2 written out directly, a float64 sum-product (boxplus)
decoder, and a QPSK / AWGN channel, for the tests and gpudsp_ldpc_bler.
See docs/ldpc.md."""

import os

import numpy as np

from . import kernels

__all__ = ["base_graph", "parity_edges", "syndrome", "rate_match", "qpsk_awgn_llrs",
           "sum_product_decode", "ebn0_to_sigma"]

_tables = {}


def base_graph(bg):
    """[(row, col, V[0..7])] of base graph bg from data/ldpc (TS 38.212
    Tables 5.3.2-2/-3)."""
    if bg not in _tables:
        from . import gpudsp_python
        path = os.path.join(gpudsp_python.data_dir(), "ldpc", f"5G_bg{bg}.csv")
        entries, row = [], -1
        with open(path) as f:
            for n, line in enumerate(f):
                cells = line.strip().split(";")
                if n < 2 or len(cells) < 10:
                    continue
                if cells[0]:
                    row = int(cells[0])
                entries.append((row, int(cells[1]), [int(v) for v in cells[2:10]]))
        _tables[bg] = entries
    return _tables[bg]


def parity_edges(bg, Z, rows=None):
    """The parity-check matrix H as two int arrays (check index, variable
    index) over its ones: block (r, c) with shift s = V mod Z has its ones
    at (r Z + z, c Z + (z + s) mod Z). rows: the first base rows only."""
    ils = next(i for i, a in enumerate((2, 3, 5, 7, 9, 11, 13, 15))
               if any(a << j == Z for j in range(9)))
    chk, var = [], []
    z = np.arange(Z)
    for r, c, v in base_graph(bg):
        if rows is not None and r >= rows:
            continue
        s = v[ils] % Z
        chk.append(r * Z + z)
        var.append(c * Z + (z + s) % Z)
    return np.concatenate(chk), np.concatenate(var)


def syndrome(bg, Z, c):
    """H c over GF(2), one value per check."""
    chk, var = parity_edges(bg, Z)
    s = np.zeros(chk.max() + 1, np.int64)
    np.add.at(s, chk, np.asarray(c, np.int64)[var])
    return s % 2


def rate_match_positions(p):
    """TS 38.212 5.4.2.1 read directly: the mother codeword columns (index
    into c, n_cols Z bits) of the E bits sent, in bit-selection order
    (before the interleaver): from k0 around the circular buffer of Ncb
    bits that starts after the 2Z punctured columns, fillers skipped."""
    Z, K, K_ldpc, Ncb, k0, E = (p[k] for k in ("Z", "K", "K_ldpc", "Ncb", "k0", "E"))
    out, j = [], 0
    while len(out) < E:
        pos = (k0 + j) % Ncb
        j += 1
        if K <= pos + 2 * Z < K_ldpc:
            continue  # filler
        out.append(pos + 2 * Z)
    return np.array(out, np.int64)


def rate_match(c, p):
    """TS 38.212 5.4.2.1 and 5.4.2.2 read directly: E bits of the mother
    codeword c (n_cols Z bits) for the parameters p (kernels.ldpc5g_params)."""
    E, Qm = p["E"], p["Qm"]
    e = np.asarray(c, np.uint8)[rate_match_positions(p)]
    return e.reshape(Qm, E // Qm).T.reshape(-1)  # f[i + j Qm] = e[i E/Qm + j]


def erasure_decodable(p):
    """Whether message passing alone recovers the K information bits from
    the E sent (noise-free): a peeling decoder on the rows the decoder uses
    (p["rows_used"]), with the sent bits and the fillers known, solves each
    check that has one unknown left until none does. Where it fails, the
    sent bits do not pin the information down for an iterative decoder
    (at rates near 1 often not at all: two codewords send the same bits)."""
    Z, K, K_ldpc = p["Z"], p["K"], p["K_ldpc"]
    chk, var = parity_edges(p["BG"], Z, rows=p["rows_used"])
    known = np.zeros((68 if p["BG"] == 1 else 52) * Z, bool)
    known[rate_match_positions(p)] = True
    known[K:K_ldpc] = True
    while not known[:K].all():
        unknown = ~known[var]
        left = np.bincount(chk, weights=unknown, minlength=chk.max() + 1)
        solvable = unknown & (left[chk] == 1)
        if not solvable.any():
            return False
        known[var[solvable]] = True
    return True


def ebn0_to_sigma(ebn0_db, rate, bits_per_symbol=2):
    """Noise standard deviation per real dimension for unit-energy symbols."""
    esn0 = 10 ** (ebn0_db / 10) * rate * bits_per_symbol
    return np.sqrt(1 / (2 * esn0))


def qpsk_awgn_llrs(bits, sigma, rng):
    """Gray QPSK (bit 0 -> +1/sqrt2 on each axis) over AWGN: the exact LLRs
    log p(0)/p(1) of the bits (positive means 0), float64, same shape."""
    x = (1 - 2.0 * np.asarray(bits)) / np.sqrt(2)
    y = x + sigma * rng.standard_normal(x.shape)
    return 2 * y / np.sqrt(2) / sigma ** 2


def sum_product_decode(llr_rx, p, iterations=20):
    """Float64 flooding sum-product (tanh-rule boxplus) decoding of the
    received LLRs [batch, E] (positive = 0) for parameters p, with the same
    de-rate-matching as the module (repetitions added, punctured 0, fillers
    certain). Returns (bits [batch, K], ok [batch])."""
    llr_rx = np.atleast_2d(np.asarray(llr_rx, np.float64))
    batch = llr_rx.shape[0]
    Z, K, K_ldpc, E, Qm, Ncb = (p[k] for k in ("Z", "K", "K_ldpc", "E", "Qm", "Ncb"))
    sys = 22 if p["BG"] == 1 else 10
    rows = p["rows_used"]
    n_var = (sys + rows) * Z
    # Where each received LLR lands in the codeword: undo the interleaver,
    # then walk the circular buffer as rate_match does.
    received = np.arange(E).reshape(E // Qm, Qm).T.reshape(-1)  # e index -> received index
    pos, j = [], 0
    while len(pos) < E:
        q = (p["k0"] + j) % Ncb
        j += 1
        if K <= q + 2 * Z < K_ldpc:
            continue
        pos.append(q + 2 * Z)
    pos = np.array(pos)
    ch = np.zeros((batch, n_var))
    keep = pos < n_var
    np.add.at(ch, (slice(None), pos[keep]), llr_rx[:, received][:, keep])
    ch[:, K:K_ldpc] = 1e3  # fillers: certain zeros
    chk, var = parity_edges(p["BG"], Z, rows)
    n_chk = rows * Z
    # Sums over the edges of each check / each variable with reduceat over
    # edges sorted by check / by variable (every index has an edge).
    by_chk = np.argsort(chk, kind="stable")
    chk_starts = np.searchsorted(chk[by_chk], np.arange(n_chk))
    by_var = np.argsort(var, kind="stable")
    var_ids, var_starts = np.unique(var[by_var], return_index=True)

    def per_check(values):
        return np.add.reduceat(values[:, by_chk], chk_starts, axis=1)[:, chk]

    def var_total(c2v):
        total = ch.copy()
        total[:, var_ids] += np.add.reduceat(c2v[:, by_var], var_starts, axis=1)
        return total

    c2v = np.zeros((batch, len(chk)))
    for _ in range(iterations):
        v2c = var_total(c2v)[:, var] - c2v
        t = np.tanh(np.clip(v2c, -40, 40) / 2)
        mag = np.log(np.maximum(np.abs(t), 1e-300))
        neg = (t < 0).astype(np.int64)
        # The product over the other edges of the check: all of them,
        # divided by this one (in logs, with a sign count).
        ext = np.exp(per_check(mag) - mag)
        sgn = np.where((per_check(neg) - neg) % 2 == 1, -1.0, 1.0)
        c2v = 2 * np.arctanh(np.clip(sgn * ext, -1 + 1e-15, 1 - 1e-15))
    total = var_total(c2v)
    hard = (total < 0).astype(np.int64)
    s = np.add.reduceat(hard[:, var][:, by_chk], chk_starts, axis=1)
    ok = ~np.any(s % 2, axis=1)
    return hard[:, :K].astype(np.uint8), ok


def write_alist(path, bg, Z, rows):
    """Writes the parity-check matrix of the first `rows` base rows (and the
    columns they touch) in MacKay's alist format (1-based, zero-padded), as
    GNU Radio's gr-fec LDPC blocks read it."""
    chk, var = parity_edges(bg, Z, rows)
    n, m = int(var.max()) + 1, rows * Z
    cols = [[] for _ in range(n)]
    rws = [[] for _ in range(m)]
    for c, v in zip(chk, var):
        cols[v].append(int(c) + 1)
        rws[c].append(int(v) + 1)
    mc, mr = max(map(len, cols)), max(map(len, rws))
    with open(path, "w") as f:
        f.write(f"{n} {m}\n{mc} {mr}\n")
        f.write(" ".join(str(len(c)) for c in cols) + "\n")
        f.write(" ".join(str(len(r)) for r in rws) + "\n")
        for c in cols:
            f.write(" ".join(map(str, sorted(c) + [0] * (mc - len(c)))) + "\n")
        for r in rws:
            f.write(" ".join(map(str, sorted(r) + [0] * (mr - len(r)))) + "\n")
    return n, m

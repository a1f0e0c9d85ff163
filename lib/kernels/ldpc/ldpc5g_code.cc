/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The 5G NR LDPC code (TS 38.212 5.3.2) and rate matching (5.4.2): base
// graphs read from data/ldpc, code choice, encoding, and the maps between
// the circular buffer and the rate-matched, interleaved bits.

#include <gnuradio/gpudsp/kernels/ldpc5g.h>
#include <gnuradio/gpudsp/runtime/data_dir.h>
#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

const int set_bases[8] = { 2, 3, 5, 7, 9, 11, 13, 15 };

int set_of(int Z)
{
    for (int i = 0; i < 8; ++i)
        for (int z = set_bases[i]; z <= 384; z *= 2)
            if (z == Z)
                return i;
    throw std::invalid_argument("not a 5G lifting size: " + std::to_string(Z));
}

// Table entries (row, column, V for the 8 sets), from the ';'-separated
// files: the row index appears only on a row's first entry.
struct table_entry {
    int row, col, v[8];
};

std::vector<table_entry> read_table(int bg)
{
    const std::string path =
        runtime::data_dir() + "/ldpc/5G_bg" + std::to_string(bg) + ".csv";
    std::ifstream f(path);
    if (!f)
        throw std::runtime_error("LDPC base graph " + path +
                                 " cannot be read (set GPUDSP_DATA_DIR to the folder "
                                 "holding ldpc/)");
    std::vector<table_entry> out;
    std::string line;
    int row = -1, lineno = 0;
    while (std::getline(f, line)) {
        if (++lineno <= 2 || line.empty())
            continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ';'))
            cells.push_back(cell);
        if (cells.size() < 10)
            throw std::runtime_error(path + ":" + std::to_string(lineno) +
                                     ": expected row;col;8 shifts");
        if (!cells[0].empty())
            row = std::stoi(cells[0]);
        table_entry e;
        e.row = row;
        e.col = std::stoi(cells[1]);
        for (int i = 0; i < 8; ++i)
            e.v[i] = std::stoi(cells[2 + i]);
        out.push_back(e);
    }
    const std::size_t expect = bg == 1 ? 316 : 197;
    if (out.size() != expect)
        throw std::runtime_error(path + ": " + std::to_string(out.size()) +
                                 " entries, expected " + std::to_string(expect));
    return out;
}

const std::vector<table_entry>& table(int bg)
{
    static std::mutex lock;
    static std::vector<table_entry> tables[2];
    std::lock_guard<std::mutex> guard(lock);
    auto& t = tables[bg - 1];
    if (t.empty())
        t = read_table(bg);
    return t;
}

} // namespace

const std::vector<int>& ldpc5g_lifting_sizes()
{
    static const std::vector<int> sizes = [] {
        std::vector<int> z;
        for (int a : set_bases)
            for (int v = a; v <= 384; v *= 2)
                z.push_back(v);
        std::sort(z.begin(), z.end());
        return z;
    }();
    return sizes;
}

const ldpc5g_graph& ldpc5g_graph::get(int bg, int Z)
{
    static std::mutex lock;
    static std::map<std::pair<int, int>, std::unique_ptr<ldpc5g_graph>> cache;
    const int ils = set_of(Z);
    const auto& t = table(bg); // outside the lock: it takes its own
    std::lock_guard<std::mutex> guard(lock);
    auto& g = cache[{ bg, Z }];
    if (!g) {
        g = std::make_unique<ldpc5g_graph>();
        g->bg = bg;
        g->Z = Z;
        g->n_rows = bg == 1 ? 46 : 42;
        g->n_cols = bg == 1 ? 68 : 52;
        g->rows.resize(g->n_rows);
        for (const auto& e : t)
            g->rows.at(e.row).emplace_back(e.col, e.v[ils] % Z);
    }
    return *g;
}

ldpc5g_params ldpc5g_params::make(
    int K, int E, int rv, int Qm, int n_ref, const std::string& who, int force_bg)
{
    auto fail = [&](const std::string& what) {
        throw std::invalid_argument(who + ": " + what);
    };
    if (K < 1 || K > 8448)
        fail("K must lie in 1..8448 (larger blocks are segmented first), got " +
             std::to_string(K));
    if (Qm != 1 && Qm != 2 && Qm != 4 && Qm != 6 && Qm != 8 && Qm != 10)
        fail("Qm must be 1, 2, 4, 6, 8 or 10, got " + std::to_string(Qm));
    if (rv < 0 || rv > 3)
        fail("rv must lie in 0..3, got " + std::to_string(rv));
    if (E < K)
        fail("E = " + std::to_string(E) +
             " is too small: at least K = " + std::to_string(K) + " bits must be sent");
    if (E % Qm)
        fail("E must be a multiple of Qm");
    if (n_ref < 0)
        fail("n_ref must be >= 0 (0: full buffer)");
    ldpc5g_params p;
    p.K = K;
    p.E = E;
    p.rv = rv;
    p.Qm = Qm;
    p.n_ref = n_ref;
    const double R = double(K) / E;
    p.bg = (K <= 292 || (K <= 3824 && R <= 0.67) || R <= 0.25) ? 2 : 1;
    if (force_bg != 0 && force_bg != 1 && force_bg != 2)
        fail("base graph must be 1 or 2 (0: the standard's choice)");
    if (force_bg)
        p.bg = force_bg;
    if (p.bg == 2 && K > 3840)
        fail("K = " + std::to_string(K) + " at rate " + std::to_string(R) +
             " needs base graph 2, which carries at most 3840 bits");
    if (p.bg == 1)
        p.kb = 22;
    else
        p.kb = K > 640 ? 10 : K > 560 ? 9 : K > 192 ? 8 : 6;
    for (int z : ldpc5g_lifting_sizes())
        if (p.kb * z >= K) {
            p.Z = z;
            break;
        }
    p.iLS = set_of(p.Z);
    p.n_rows = p.bg == 1 ? 46 : 42;
    p.n_cols = p.bg == 1 ? 68 : 52;
    const int sys = p.bg == 1 ? 22 : 10;
    p.K_ldpc = sys * p.Z;
    p.N = (p.n_cols - 2) * p.Z;
    p.Ncb = n_ref > 0 ? std::min(p.N, n_ref) : p.N;
    if (p.Ncb <= p.K_ldpc - 2 * p.Z)
        fail("the limited buffer (" + std::to_string(p.Ncb) +
             " bits) does not reach past the systematic bits");
    static const int c1[4] = { 0, 17, 33, 56 }, c2[4] = { 0, 13, 25, 43 };
    const long c = p.bg == 1 ? c1[rv] : c2[rv];
    p.k0 = int((c * p.Ncb / (long(p.n_cols - 2) * p.Z)) * p.Z);
    p.fillers = p.K_ldpc - K;
    // The rows the decoder needs: 4 core rows, then one per extension
    // parity column up to the last one the rate matching reads.
    const int f0 = K - 2 * p.Z, f1 = p.K_ldpc - 2 * p.Z; // fillers in d
    int last_col = 0, readable = 0;
    for (int j = 0; j < p.Ncb; ++j)
        if (j < f0 || j >= f1)
            ++readable;
    const long reads = std::min<long>(E, readable);
    long k = 0;
    for (long j = 0; k < reads; ++j) {
        const int pos = int((p.k0 + j) % p.Ncb);
        if (pos >= f0 && pos < f1)
            continue;
        last_col = std::max(last_col, (pos + 2 * p.Z) / p.Z);
        ++k;
    }
    p.rows_used = std::max(4, std::min(p.n_rows, last_col - sys + 1));
    return p;
}

namespace {

// The inverse of the core (rows 0..3 x the 4 core parity columns) over
// GF(2), rows of bits; computed once per (base graph, Z).
std::vector<uint64_t> invert_core(const ldpc5g_graph& graph, int bg, int Z)
{
    const int sys = bg == 1 ? 22 : 10, n = 4 * Z;
    const auto& d_graph = graph;
    // B: rows 0..3 x core parity columns, inverted over GF(2) by
    // Gauss-Jordan elimination on [B | I], rows packed in 64-bit words.
    const int words = (2 * n + 63) / 64;
    std::vector<uint64_t> a(std::size_t(n) * words, 0);
    auto row = [&](int r) { return &a[std::size_t(r) * words]; };
    auto flip = [&](int r, int c) { row(r)[c / 64] ^= uint64_t(1) << (c % 64); };
    auto bit = [&](int r, int c) { return (row(r)[c / 64] >> (c % 64)) & 1; };
    for (int r = 0; r < 4; ++r)
        for (const auto& e : d_graph.rows[r])
            if (e.first >= sys && e.first < sys + 4)
                for (int z = 0; z < Z; ++z)
                    flip(r * Z + z, (e.first - sys) * Z + (z + e.second) % Z);
    for (int i = 0; i < n; ++i)
        flip(i, n + i);
    for (int col = 0; col < n; ++col) {
        int piv = col;
        while (piv < n && !bit(piv, col))
            ++piv;
        if (piv == n)
            throw std::runtime_error("ldpc5g: the core of base graph " +
                                     std::to_string(bg) + " at Z = " + std::to_string(Z) +
                                     " is singular");
        if (piv != col)
            std::swap_ranges(row(piv), row(piv) + words, row(col));
        for (int r = 0; r < n; ++r)
            if (r != col && bit(r, col))
                for (int w = col / 64; w < words; ++w)
                    row(r)[w] ^= row(col)[w];
    }
    const int nw = (n + 63) / 64;
    std::vector<uint64_t> inverse(std::size_t(n) * nw, 0);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            if (bit(r, n + c))
                inverse[std::size_t(r) * nw + c / 64] |= uint64_t(1) << (c % 64);
    return inverse;
}

const std::vector<uint64_t>& core_inverse(int bg, int Z)
{
    static std::mutex lock;
    static std::map<std::pair<int, int>, std::vector<uint64_t>> cache;
    const auto& graph = ldpc5g_graph::get(bg, Z);
    std::lock_guard<std::mutex> guard(lock);
    auto& inv = cache[{ bg, Z }];
    if (inv.empty())
        inv = invert_core(graph, bg, Z);
    return inv;
}

} // namespace

ldpc5g_encoder_core::ldpc5g_encoder_core(const ldpc5g_params& p)
    : d_p(p),
      d_graph(ldpc5g_graph::get(p.bg, p.Z)),
      d_core_inverse(core_inverse(p.bg, p.Z))
{
    const int Z = p.Z, sys = p.bg == 1 ? 22 : 10;
    // Every extension row must end on its own parity column, unshifted.
    for (int r = 4; r < p.n_rows; ++r) {
        const auto& row = d_graph.rows[r];
        const bool ok = std::any_of(row.begin(), row.end(), [&](const auto& e) {
            return e.first == sys + r && e.second == 0;
        });
        if (!ok)
            throw std::runtime_error("ldpc5g: base graph row " + std::to_string(r) +
                                     " lacks its identity parity block");
    }
    // Bit selection: which rate-matching index first reads each position.
    d_first.assign(p.Ncb, -1);
    const int f0 = p.K - 2 * Z, f1 = p.K_ldpc - 2 * Z;
    d_period = 0;
    for (int j = 0; j < p.Ncb; ++j)
        if (j < f0 || j >= f1)
            ++d_period;
    int k = 0;
    for (long j = 0; k < std::min(p.E, d_period); ++j) {
        const int pos = int((p.k0 + j) % p.Ncb);
        if (pos >= f0 && pos < f1)
            continue;
        d_first[pos] = k++;
    }
}

std::vector<uint8_t> ldpc5g_encoder_core::codeword(const uint8_t* info) const
{
    const int Z = d_p.Z, sys = d_p.bg == 1 ? 22 : 10, n = 4 * Z;
    std::vector<uint8_t> c(std::size_t(d_p.n_cols) * Z, 0);
    for (int i = 0; i < d_p.K; ++i)
        c[i] = info[i] & 1;
    // lambda = A s over the core rows, then p_core = B^-1 lambda.
    const int nw = (n + 63) / 64;
    std::vector<uint64_t> lambda(nw, 0);
    for (int r = 0; r < 4; ++r)
        for (const auto& e : d_graph.rows[r])
            if (e.first < sys)
                for (int z = 0; z < Z; ++z)
                    lambda[(r * Z + z) / 64] ^=
                        uint64_t(c[e.first * Z + (z + e.second) % Z])
                        << ((r * Z + z) % 64);
    for (int i = 0; i < n; ++i) {
        uint64_t v = 0;
        const uint64_t* row = &d_core_inverse[std::size_t(i) * nw];
        for (int w = 0; w < nw; ++w)
            v ^= row[w] & lambda[w];
        c[sys * Z + i] = uint8_t(__builtin_popcountll(v) & 1);
    }
    // Extension rows: their parity column is the sum of the rest.
    for (int r = 4; r < d_p.n_rows; ++r)
        for (const auto& e : d_graph.rows[r])
            if (e.first != sys + r)
                for (int z = 0; z < Z; ++z)
                    c[(sys + r) * Z + z] ^= c[e.first * Z + (z + e.second) % Z];
    return c;
}

void ldpc5g_encoder_core::encode(const uint8_t* info, uint8_t* out) const
{
    const auto c = codeword(info);
    const int two_z = 2 * d_p.Z;
    for (int j = 0; j < d_p.Ncb; ++j)
        if (d_first[j] >= 0)
            for (int e = d_first[j]; e < d_p.E; e += d_period)
                out[interleaved(e)] = c[j + two_z];
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

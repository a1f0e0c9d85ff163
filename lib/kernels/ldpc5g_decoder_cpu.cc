/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The LDPC decoder on the CPU: the reference of the CUDA kernel (bit-exact
// in fixed point). Codewords one after another; within a base-graph row
// the Z checks are processed together, so the inner loops run over z.

#include "ldpc5g_impl.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

template <typename T>
T quantise(float llr, const ldpc5g_decoder_config& c);
template <>
float quantise<float>(float llr, const ldpc5g_decoder_config&)
{
    return llr;
}
template <>
int32_t quantise<int32_t>(float llr, const ldpc5g_decoder_config& c)
{
    const long q = std::lrint(llr * c.fixed_scale); // round half to even
    return int32_t(std::clamp<long>(q, -ldpc_msg_max, ldpc_msg_max));
}

template <typename T>
T certain();
template <>
float certain<float>()
{
    return ldpc_float_certain;
}
template <>
int32_t certain<int32_t>()
{
    return ldpc_app_max;
}

template <typename T>
class decoder_cpu : public ldpc5g_decoder_plan::impl
{
public:
    explicit decoder_cpu(const ldpc5g_layout& l) : d_l(l)
    {
        const int Z = l.p.Z;
        d_channel.resize(std::size_t(l.cols_used) * Z);
        d_app.resize(d_channel.size());
        d_state.resize(std::size_t(l.p.rows_used) * Z);
        d_next.resize(d_state.size());
        d_t.resize(std::size_t(ldpc_max_degree) * Z);
    }

    void decode(const float* llrs,
                int batch,
                uint8_t* bits,
                int32_t* iterations,
                uint8_t* ok) override
    {
        for (int b = 0; b < batch; ++b) {
            prepare(llrs + std::size_t(b) * d_l.p.E);
            int it = 0;
            bool pass = false;
            std::fill(d_state.begin(), d_state.end(), ldpc_check_state<T>{ T(0), T(0), 0u, 0 });
            while (it < d_l.c.max_iterations) {
                if (d_l.c.layered)
                    layered_iteration();
                else
                    flooding_iteration();
                ++it;
                if (d_l.c.early_termination && (pass = syndrome_ok()))
                    break;
            }
            if (!d_l.c.early_termination)
                pass = syndrome_ok();
            for (int i = 0; i < d_l.p.K; ++i)
                bits[std::size_t(b) * d_l.p.K + i] = d_app[i] < T(0) ? 1 : 0;
            iterations[b] = it;
            ok[b] = pass ? 1 : 0;
        }
    }

private:
    // De-rate-matching: repetitions added, punctured bits 0, fillers
    // certain zeros.
    void prepare(const float* llr)
    {
        const auto& p = d_l.p;
        const int two_z = 2 * p.Z;
        const float sign = d_l.c.positive_is_zero ? 1.f : -1.f;
        for (std::size_t n = 0; n < d_channel.size(); ++n) {
            const int j = int(n) - two_z;
            T v = T(0);
            if (int(n) >= p.K && int(n) < p.K_ldpc)
                v = certain<T>();
            else if (j >= 0 && j < p.Ncb && d_l.first_read[j] >= 0)
                for (int e = d_l.first_read[j]; e < p.E; e += d_l.period)
                    v += quantise<T>(sign * llr[d_l.interleaved[e]], d_l.c);
            d_channel[n] = ldpc_clamp_app(v);
        }
        d_app = d_channel;
    }

    // v2c values of row r into d_t [edge][z].
    int gather(int r, const std::vector<ldpc_check_state<T>>& state)
    {
        const int Z = d_l.p.Z;
        const int e0 = d_l.row_start[r], deg = d_l.row_start[r + 1] - e0;
        const ldpc_check_state<T>* st = &state[std::size_t(r) * Z];
        for (int i = 0; i < deg; ++i) {
            const T* col = &d_app[std::size_t(d_l.edge_col[e0 + i]) * Z];
            const int s = d_l.edge_shift[e0 + i];
            T* t = &d_t[std::size_t(i) * Z];
            for (int z = 0; z < Z; ++z)
                t[z] = col[z + s < Z ? z + s : z + s - Z] - ldpc_c2v(st[z], i);
        }
        return deg;
    }

    void update_checks(int r, int deg, std::vector<ldpc_check_state<T>>& out)
    {
        const int Z = d_l.p.Z;
        T t[ldpc_max_degree];
        for (int z = 0; z < Z; ++z) {
            for (int i = 0; i < deg; ++i)
                t[i] = d_t[std::size_t(i) * Z + z];
            out[std::size_t(r) * Z + z] = ldpc_check_update(t, deg, d_l.norm);
        }
    }

    void layered_iteration()
    {
        const int Z = d_l.p.Z;
        for (int r = 0; r < d_l.p.rows_used; ++r) {
            const int deg = gather(r, d_state);
            update_checks(r, deg, d_state);
            const int e0 = d_l.row_start[r];
            const ldpc_check_state<T>* st = &d_state[std::size_t(r) * Z];
            for (int i = 0; i < deg; ++i) {
                T* col = &d_app[std::size_t(d_l.edge_col[e0 + i]) * Z];
                const int s = d_l.edge_shift[e0 + i];
                const T* t = &d_t[std::size_t(i) * Z];
                for (int z = 0; z < Z; ++z)
                    col[z + s < Z ? z + s : z + s - Z] = ldpc_clamp_app(t[z] + ldpc_c2v(st[z], i));
            }
        }
    }

    void flooding_iteration()
    {
        const int Z = d_l.p.Z;
        for (int r = 0; r < d_l.p.rows_used; ++r)
            update_checks(r, gather(r, d_state), d_next);
        std::swap(d_state, d_next);
        // APP = channel + every incoming message (fixed point: clamped once).
        std::vector<T>& sum = d_app;
        sum = d_channel;
        for (int r = 0; r < d_l.p.rows_used; ++r) {
            const int e0 = d_l.row_start[r], deg = d_l.row_start[r + 1] - e0;
            const ldpc_check_state<T>* st = &d_state[std::size_t(r) * Z];
            for (int i = 0; i < deg; ++i) {
                T* col = &sum[std::size_t(d_l.edge_col[e0 + i]) * Z];
                const int s = d_l.edge_shift[e0 + i];
                for (int z = 0; z < Z; ++z)
                    col[z + s < Z ? z + s : z + s - Z] += ldpc_c2v(st[z], i);
            }
        }
        for (auto& v : sum)
            v = ldpc_clamp_app(v);
    }

    bool syndrome_ok() const
    {
        const int Z = d_l.p.Z;
        for (int r = 0; r < d_l.p.rows_used; ++r)
            for (int z = 0; z < Z; ++z) {
                unsigned parity = 0;
                for (int e = d_l.row_start[r]; e < d_l.row_start[r + 1]; ++e) {
                    const int s = d_l.edge_shift[e];
                    parity ^=
                        d_app[std::size_t(d_l.edge_col[e]) * Z + (z + s < Z ? z + s : z + s - Z)] <
                        T(0);
                }
                if (parity)
                    return false;
            }
        return true;
    }

    const ldpc5g_layout d_l;
    std::vector<T> d_channel, d_app, d_t;
    std::vector<ldpc_check_state<T>> d_state, d_next;
};

} // namespace

std::unique_ptr<ldpc5g_decoder_plan::impl> make_ldpc5g_cpu(const ldpc5g_layout& l)
{
    if (l.c.fixed_point)
        return std::make_unique<decoder_cpu<int32_t>>(l);
    return std::make_unique<decoder_cpu<float>>(l);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal: the kernel stages of the CUDA F-engine's forms and the bytes
// each must move, so that a stage's measured time (fengine_plan::
// time_stages) becomes a bandwidth to set against the device's copy rate,
// and the forms' bytes per sample (18.25, 10.25, 2.25 for 10-bit in, ci8
// out: docs/fengine.md) come from one place.
//
// "Must move": each input row once (the T - 1 rows that prime a call
// counted once), each intermediate written once and read once, each output
// written once; tables (taps, rotations, twiddles) and saturation counts
// aside. A stage that moves more (a FIR section's priming rows, an FFT
// pass through memory) shows as less than its share of the copy rate.

#ifndef INCLUDED_GPUDSP_KERNELS_FENGINE_STAGES_H
#define INCLUDED_GPUDSP_KERNELS_FENGINE_STAGES_H

#include <gnuradio/gpudsp/kernels/pfb_fengine.h>
#include <gnuradio/gpudsp/kernels/unpack10.h>
#include <algorithm>
#include <cstddef>

namespace gr {
namespace gpudsp {
namespace kernels {

enum class fengine_stage {
    fir,          // decode + polyphase FIR: input -> FIR output (floats)
    fft,          // cuFFT (R2C, or C2C for complex input) -> spectra
    post,         // post-processing kernel: spectra -> output
    fft_callback, // cuFFT with the post-processing as its store callback
    fft_post,     // our fused FFT and post-processing kernel (fftpost)
    split_fft,    // cuFFT on rows of N/U points of the pairs
    split_post,   // last radix-U stage, real fold and post-processing
    one_pass,     // FIR, FFT and post-processing in one kernel
};

inline const char* fengine_stage_name(fengine_stage s)
{
    switch (s) {
    case fengine_stage::fir:
        return "FIR";
    case fengine_stage::fft:
        return "cuFFT";
    case fengine_stage::post:
        return "post-processing";
    case fengine_stage::fft_callback:
        return "cuFFT + callback";
    case fengine_stage::fft_post:
        return "FFT + post-processing";
    case fengine_stage::split_fft:
        return "cuFFT rows";
    case fengine_stage::split_post:
        return "split post-processing";
    case fengine_stage::one_pass:
        return "one pass";
    }
    return "?";
}

/*! Bytes of input that hold \p n samples of one input
 *  (fengine_plan::input_bytes). */
inline std::size_t fengine_input_bytes(const fengine_config& c, std::size_t n)
{
    switch (c.input) {
    case fengine_input::packed10:
        return packed10_bytes(n);
    case fengine_input::int16:
        return 2 * n;
    case fengine_input::float32:
        return 4 * n;
    case fengine_input::complex64:
        return 8 * n;
    }
    return 0;
}

/*! The bytes stage \p s must move for \p ns spectra of every input. */
inline double
fengine_stage_bytes(const fengine_config& c, fengine_stage s, std::size_t ns)
{
    const double I = c.n_inputs, S = double(ns), N = c.n_channels;
    const double in = I * double(fengine_input_bytes(c, c.samples_for(ns)));
    // FIR output: a spectrum's step samples as floats (real input: the N
    // complex pairs of the 2N reals), complex floats for complex input.
    const double fir = I * S * c.step() * (c.complex_input() ? 8.0 : 4.0);
    // cuFFT's spectra: N + 1 bins of a real transform, N of a complex one;
    // the post-processing reads N of them.
    const double bins = I * S * 8.0 * (N + (c.complex_input() ? 0 : 1));
    const double read_bins = I * S * 8.0 * N;
    const double out = S * double(c.output_item_size());
    switch (s) {
    case fengine_stage::fir:
        return in + fir;
    case fengine_stage::fft:
        return fir + bins;
    case fengine_stage::post:
        return read_bins + out;
    case fengine_stage::fft_callback:
    case fengine_stage::fft_post:
    case fengine_stage::split_post:
        return fir + out;
    case fengine_stage::split_fft:
        return fir + fir; // C2C rows in place of the pairs
    case fengine_stage::one_pass:
        return in + out;
    }
    return 0;
}

/*!
 * The fewest spectra a FIR section should be so that its priming rows
 * (MAXT - 1, the window's taps rounded up to a power of two to 16, or
 * T - 1 above 16 taps) add at most 1/8 to the rows it reads: 8 warm-ups,
 * rounded up to a power of two (1 for a single tap, which primes nothing).
 */
inline std::size_t fengine_primed_spectra(const fengine_config& c)
{
    int maxt = 1;
    while (maxt < c.n_taps && maxt < 16)
        maxt *= 2;
    if (c.n_taps > 16)
        maxt = c.n_taps;
    std::size_t primed = 1;
    while (primed < std::size_t(8) * std::size_t(maxt - 1))
        primed *= 2;
    return primed;
}

/*!
 * Spectra a chunk of the CUDA plan takes (its scratch serves one chunk at a
 * time): about 128 MiB of FIR output, but at least 8 of the FIR's warm-ups
 * (MAXT - 1 priming rows a section, T - 1 above 16 taps), rounded up to a
 * power of two (one cuFFT plan a chunk), so that priming adds at most 1/8
 * to the input the FIR reads; as long as the chunk's two scratch buffers
 * (FIR output, spectra) take at most 1/16 of the device's memory (else the
 * largest power of two of spectra they do, if more than 128 MiB's). With 128
 * MiB alone, 128 inputs at N = 4096 (the FX job's 64 antennas) made chunks
 * of 32 spectra, each one FIR section with 15 priming rows: 1.47x the input.
 */
inline int fengine_chunk_spectra(const fengine_config& c, std::size_t device_memory)
{
    const std::size_t I = std::size_t(c.n_inputs);
    const std::size_t fir = I * std::size_t(c.step()) * (c.complex_input() ? 8 : 4);
    const std::size_t spectra = I * (std::size_t(c.n_channels) + 1) * 8;
    std::size_t chunk = (std::size_t(128) << 20) / fir;
    const std::size_t primed = fengine_primed_spectra(c);
    if (primed > 1 && chunk < primed) {
        std::size_t room = 1; // in a sixteenth of the memory, a power of two
        while (2 * room * (fir + spectra) <= device_memory / 16 && room < primed)
            room *= 2;
        chunk = std::max(chunk, room);
    }
    return int(std::clamp<std::size_t>(chunk, 1, 65535));
}

/*!
 * Spectra a chunk takes in the L2-resident variants of the F-engine's forms
 * (configuration ids ending " l2", tuner candidates): the most, a power of
 * two, whose intermediates (what the form writes and reads back within a
 * chunk: the FIR's output, and cuFFT's spectra where \p spectra_scratch)
 * take at most half of \p l2_bytes, so that they are read back from the L2
 * and, the same scratch serving the next chunk, overwritten there before
 * they reach memory: HBM then sees the input and the output, 2.25 B a
 * 10-bit sample for ci8 out, instead of 18.25 (10.25 fused). 0 (no such
 * variant) where that is fewer spectra than fengine_primed_spectra or not
 * fewer than the plan's own chunk \p plan_chunk. (Where the inputs' columns
 * fill the GPU, a chunk is one FIR section, and priming then costs at most
 * 1/8 more input; with few inputs the FIR cuts any chunk into sections of
 * max(T, 16) spectra for parallelism, whose priming rows its neighbours
 * read at about the same time, from the L2.)
 */
inline int fengine_l2_chunk_spectra(const fengine_config& c,
                                    std::size_t l2_bytes,
                                    bool spectra_scratch,
                                    int plan_chunk)
{
    const std::size_t I = std::size_t(c.n_inputs);
    std::size_t per = I * std::size_t(c.step()) * (c.complex_input() ? 8 : 4);
    if (spectra_scratch)
        per += I * (std::size_t(c.n_channels) + 1) * 8;
    std::size_t chunk = 0;
    while ((chunk ? 2 * chunk : 1) * per <= l2_bytes / 2)
        chunk = chunk ? 2 * chunk : 1;
    if (chunk < fengine_primed_spectra(c) || chunk >= std::size_t(plan_chunk))
        return 0;
    return int(chunk);
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

#endif

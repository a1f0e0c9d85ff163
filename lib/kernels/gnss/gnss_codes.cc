/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The signals' primary and secondary codes. GPS L1 C/A and Galileo E1-B
// are memory tables read from the data folder; GPS L5 and Galileo E5a are
// generated here by the ICDs' shift registers from the ICDs' per-PRN
// constants (tables below, with their sources). Chip value 1 of an ICD is
// stored as +1 (docs/gnss.md); a secondary chip s multiplies a primary
// period by 1 - 2 s (the ICDs add the two modulo 2).

#include "gnss_correlator_impl.h"
#include <gnuradio/gpudsp/runtime/data_dir.h>
#include <array>
#include <fstream>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace gpudsp {
namespace kernels {

namespace {

// ---------------------------------------------------------------- GPS L5
// IS-GPS-705 (L5 code generation): each 10230-chip code is XA xor XB of two 13-stage
// registers. XA: 1 + x^9 + x^10 + x^12 + x^13, all ones at every code
// epoch and short-cycled to 8190 chips; XB: 1 + x + x^3 + x^4 + x^6 + x^7 +
// x^8 + x^12 + x^13, started per PRN at the state the all-ones register
// reaches after the "XB code advance" of IS-GPS-705 Tables 3-Ia (PRN 1-37)
// and 3-Ib (38-63). The same tables list those states as "initial XB code
// state"; qa_gnss_codes checks the generated codes against that column.
// Registers as integers: stage 1 in bit 12, stage 13 (the output) in bit 0.

constexpr int l5_prns = 63;

const uint16_t l5_xb_advance[2][l5_prns] = {
    // I5
    { 266,  365,  804,  1138, 1509, 1559, 1756, 2084, 2170, 2303, 2527, 2687, 2930,
      3471, 3940, 4132, 4332, 4924, 5343, 5443, 5641, 5816, 5898, 5918, 5955, 6243,
      6345, 6477, 6518, 6875, 7168, 7187, 7329, 7577, 7720, 7777, 8057, 5358, 3550,
      3412, 819,  4608, 3698, 962,  3001, 4441, 4937, 3717, 4730, 7291, 2279, 7613,
      5723, 7030, 1475, 2593, 2904, 2056, 2757, 3756, 6205, 5053, 6437 },
    // Q5
    { 1701, 323,  5292, 2020, 5429, 7136, 1041, 5947, 4315, 148,  535,  1939, 5206,
      5910, 3595, 5135, 6082, 6990, 3546, 1523, 4548, 4484, 1893, 3961, 7106, 5299,
      4660, 276,  4389, 3783, 1591, 1601, 749,  1387, 1661, 3210, 708,  4226, 5604,
      6375, 3056, 1772, 3662, 4401, 5218, 2838, 6913, 1685, 1194, 6963, 5001, 6694,
      991,  7489, 2441, 639,  2097, 2498, 6470, 2399, 242,  3768, 1186 },
};

// One clock of a 13-stage register with feedback taps \p taps (stage k in
// bit 13 - k): returns the new state; the output was bit 0.
uint32_t l5_clock(uint32_t reg, uint32_t taps)
{
    const uint32_t fb = uint32_t(__builtin_parity(reg & taps));
    return (reg >> 1) | (fb << 12);
}

constexpr uint32_t l5_stage(int k) { return 1u << (13 - k); }
constexpr uint32_t xa_taps = l5_stage(9) | l5_stage(10) | l5_stage(12) | l5_stage(13);
constexpr uint32_t xb_taps = l5_stage(1) | l5_stage(3) | l5_stage(4) | l5_stage(6) |
                             l5_stage(7) | l5_stage(8) | l5_stage(12) | l5_stage(13);

std::vector<int8_t> l5_codes(int component)
{
    constexpr int L = 10230;
    std::vector<int8_t> out(std::size_t(l5_prns) * L);
    for (int p = 0; p < l5_prns; ++p) {
        uint32_t xb = 0x1fff;
        for (int k = 0; k < l5_xb_advance[component][p]; ++k)
            xb = l5_clock(xb, xb_taps);
        uint32_t xa = 0x1fff;
        for (int c = 0; c < L; ++c) {
            out[std::size_t(p) * L + c] = ((xa ^ xb) & 1) ? 1 : -1;
            xa = c == 8189 ? 0x1fff : l5_clock(xa, xa_taps); // short cycle
            xb = l5_clock(xb, xb_taps);
        }
    }
    return out;
}

// ---------------------------------------------------------- Galileo E5a
// Galileo OS SIS ICD (E5 primary code generation): each 10230-chip
// code is the xor of two 14-stage registers, feedback polynomials octal
// 40503 (register 1) and 50661 (register 2); register 1 starts all ones,
// register 2 at the PRN's start value (octal, below). As integers: stage 1
// (the output) in bit 13; a clock shifts towards it and feeds back the
// parity of the stages the polynomial names (its octal value without the
// constant term, shifted right once). qa_gnss_codes checks the first 24
// chips of every code and a digest of all of them against the ICD's hex
// listing.

constexpr int e5a_prns = 50;

const uint16_t e5a_start[2][e5a_prns] = {
    // E5a-I, register 2
    { 030305, 014234, 027213, 020577, 023312, 033463, 015614, 012537, 001527, 030236,
      027344, 007272, 036377, 017046, 006434, 015405, 024252, 011631, 024776, 000630,
      011560, 017272, 027445, 031702, 013012, 014401, 034727, 022627, 030623, 027256,
      001520, 014211, 031465, 022164, 033516, 002737, 021316, 035425, 035633, 024655,
      014054, 027027, 006604, 031455, 034465, 025273, 020763, 031721, 017312, 013277 },
    // E5a-Q, register 2
    { 025652, 005142, 024723, 031751, 027366, 024660, 033655, 027450, 007626, 001705,
      012717, 032122, 016075, 016644, 037556, 002477, 002265, 006430, 025046, 012735,
      004262, 011230, 000037, 006137, 004312, 020606, 011162, 022252, 030533, 024614,
      007767, 032705, 005052, 027553, 003711, 002041, 034775, 005274, 037356, 016205,
      036270, 006600, 026773, 017375, 035267, 036255, 012044, 026442, 021621, 025411 },
};

std::vector<int8_t> e5a_codes(int component)
{
    constexpr int L = 10230;
    constexpr uint32_t mask = 0x3fff, taps1 = 040503 >> 1, taps2 = 050661 >> 1;
    std::vector<int8_t> out(std::size_t(e5a_prns) * L);
    for (int p = 0; p < e5a_prns; ++p) {
        uint32_t r1 = mask, r2 = e5a_start[component][p];
        for (int c = 0; c < L; ++c) {
            out[std::size_t(p) * L + c] = (((r1 ^ r2) >> 13) & 1) ? 1 : -1;
            r1 = ((r1 << 1) & mask) | uint32_t(__builtin_parity(r1 & taps1));
            r2 = ((r2 << 1) & mask) | uint32_t(__builtin_parity(r2 & taps2));
        }
    }
    return out;
}

// ------------------------------------------------------ secondary codes
// The Neuman-Hofman codes of IS-GPS-705 (NH10 on I5, NH20 on Q5), the
// E5a-I secondary code CS20 (hex 842E9) and the 50 E5a-Q secondary codes
// CS100 (hex, 25 digits, 100 chips each) of the Galileo OS SIS ICD, first
// chip first. The CS100 table agrees with two independent receivers'
// listings (docs/gnss.md).
const char* const nh10 = "0000110101";
const char* const nh20 = "00000100110101001110";
const char* const e5ai_secondary = "842E9";
const char* const e5aq_secondary[e5a_prns] = {
    "83F6F69D8F6E15411FB8C9B1C", "66558BD3CE0C7792E83350525", "59A025A9C1AF0651B779A8381",
    "D3A32640782F7B18E4DF754B7", "B91FCAD7760C218FA59348A93", "BAC77E933A779140F094FBF98",
    "537785DE280927C6B58BA6776", "EFCAB4B65F38531ECA22257E2", "79F8CAE838475EA5584BEFC9B",
    "CA5170FEA3A810EC606B66494", "1FC32410652A2C49BD845E567", "FE0A9A7AFDAC44E42CB95D261",
    "B03062DC2B71995D5AD8B7DBE", "F6C398993F598E2DF4235D3D5", "1BB2FB8B5BF24395C2EF3C5A1",
    "2F920687D238CC7046EF6AFC9", "34163886FC4ED7F2A92EFDBB8", "66A872CE47833FB2DFD5625AD",
    "99D5A70162C920A4BB9DE1CA8", "81D71BD6E069A7ACCBEDC66CA", "A654524074A9E6780DB9D3EC6",
    "C3396A101BEDAF623CFC5BB37", "C3D4AB211DF36F2111F2141CD", "3DFF25EAE761739265AF145C1",
    "994909E0757D70CDE389102B5", "B938535522D119F40C25FDAEC", "C71AB549C0491537026B390B7",
    "0CDB8C9E7B53F55F5B0A0597B", "61C5FA252F1AF81144766494F", "626027778FD3C6BB4BAA7A59D",
    "E745412FF53DEBD03F1C9A633", "3592AC083F3175FA724639098", "52284D941C3DCAF2721DDB1FD",
    "73B3D8F0AD55DF4FE814ED890", "94BF16C83BD7462F6498E0282", "A8C3DE1AC668089B0B45B3579",
    "E23FFC2DD2C14388AD8D6BEC8", "F2AC871CDF89DDC06B5960D2B", "06191EC1F622A77A526868BA1",
    "22D6E2A768E5F35FFC8E01796", "25310A06675EB271F2A09EA1D", "9F7993C621D4BEC81A0535703",
    "D62999EACF1C99083C0B4A417", "F665A7EA441BAA4EA0D01078C", "46F3D3043F24CDEABD6F79543",
    "E2E3E8254616BD96CEFCA651A", "E548231A82F9A01A19DB5E1B2", "265C7F90A16F49EDE2AA706C8",
    "364A3A9EB0F0481DA0199D7EA", "9810A7A898961263A0F749F56",
};

// Chips of a binary or hex string as signs 1 - 2 s.
std::vector<int8_t> signs_of_bits(const char* bits)
{
    std::vector<int8_t> out;
    for (const char* c = bits; *c; ++c)
        out.push_back(*c == '1' ? -1 : 1);
    return out;
}

std::vector<int8_t> signs_of_hex(const char* hex, int n_chips)
{
    std::vector<int8_t> out;
    for (const char* c = hex; *c && int(out.size()) < n_chips; ++c) {
        const int v = *c <= '9' ? *c - '0' : *c - 'A' + 10;
        for (int b = 3; b >= 0 && int(out.size()) < n_chips; --b)
            out.push_back(((v >> b) & 1) ? -1 : 1);
    }
    return out;
}

// ---------------------------------------------------------- the tables

const char* code_files[2] = { "gnss/codes_gps_l1ca.bin", "gnss/codes_galileo_e1b.bin" };

std::vector<int8_t> read_codes(gnss_system system)
{
    const auto& s = gnss_signal(system);
    const std::string path = runtime::data_dir() + "/" + code_files[int(system)];
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw std::runtime_error("gnss code table " + path +
                                 " cannot be read (set GPUDSP_DATA_DIR to the folder "
                                 "holding gnss/)");
    std::vector<int8_t> codes(std::size_t(s.code_length) * s.n_prns);
    f.read(reinterpret_cast<char*>(codes.data()), std::streamsize(codes.size()));
    if (std::size_t(f.gcount()) != codes.size() || f.peek() != EOF)
        throw std::runtime_error("gnss code table " + path + " does not hold " +
                                 std::to_string(s.n_prns) + " x " +
                                 std::to_string(s.code_length) + " chips");
    for (auto c : codes)
        if (c != 1 && c != -1)
            throw std::runtime_error("gnss code table " + path +
                                     " holds values other than +1/-1");
    return codes;
}

std::vector<int8_t> make_codes(gnss_system system)
{
    switch (system) {
    case gnss_system::gps_l1ca:
    case gnss_system::galileo_e1b:
        return read_codes(system);
    case gnss_system::gps_l5i:
        return l5_codes(0);
    case gnss_system::gps_l5q:
        return l5_codes(1);
    case gnss_system::galileo_e5ai:
        return e5a_codes(0);
    case gnss_system::galileo_e5aq:
        return e5a_codes(1);
    }
    throw std::logic_error("gnss_codes: unknown system");
}

} // namespace

const std::vector<int8_t>& gnss_codes(gnss_system system)
{
    static std::mutex lock;
    static std::vector<int8_t> tables[gnss_n_systems];
    std::lock_guard<std::mutex> guard(lock);
    auto& t = tables[int(system)];
    if (t.empty())
        t = make_codes(system);
    return t;
}

const std::vector<int8_t>& gnss_secondary_code(gnss_system system, int prn)
{
    // Every system's codes, made once ([system][prn - 1]; empty codes for
    // systems without one): the plan reads them on every call.
    using table = std::vector<std::vector<int8_t>>;
    static const std::array<table, gnss_n_systems> codes = [] {
        std::array<table, gnss_n_systems> t;
        for (int s = 0; s < gnss_n_systems; ++s)
            t[s].resize(std::size_t(gnss_signal(gnss_system(s)).n_prns));
        for (int p = 0; p < e5a_prns; ++p)
            t[int(gnss_system::galileo_e5aq)][p] = signs_of_hex(e5aq_secondary[p], 100);
        for (int p = 0; p < l5_prns; ++p) {
            t[int(gnss_system::gps_l5i)][p] = signs_of_bits(nh10);
            t[int(gnss_system::gps_l5q)][p] = signs_of_bits(nh20);
        }
        for (int p = 0; p < e5a_prns; ++p)
            t[int(gnss_system::galileo_e5ai)][p] = signs_of_hex(e5ai_secondary, 20);
        return t;
    }();
    const auto& s = gnss_signal(system);
    if (prn < 1 || prn > s.n_prns)
        throw std::invalid_argument(std::string("gnss_secondary_code: ") + s.name +
                                    " has PRNs 1.." + std::to_string(s.n_prns));
    return codes[int(system)][std::size_t(prn - 1)];
}

} // namespace kernels
} // namespace gpudsp
} // namespace gr

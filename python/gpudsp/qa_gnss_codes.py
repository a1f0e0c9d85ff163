#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The GPS L5 and Galileo E5a codes the module generates (its own shift
registers, lib/kernels/gnss/gnss_codes.cc) against what the ICDs publish beside
the generators' constants, so that a wrong tap, start value, bit order or
short cycle fails here:
- GPS L5 (IS-GPS-705 Tables 3-Ia): the codes are generated from the "XB
  code advance" column; the "initial XB code state" column (PRN 1-37, I5
  and Q5) must equal the first 13 chips of XB, recovered from each code by
  removing an XA register written here;
- Galileo E5a (OS SIS ICD): the first 24 chips (octal) of all 100 codes
  and a digest of every chip, both from the ICD's hexadecimal code listing
  (as distributed by GNSS-SDR, src/core/system_parameters/Galileo_E5a.h);
- the secondary codes: NH10, NH20, CS20 = 842E9 and a digest of the 47
  E5a-Q codes CS100 that GNSS-SDR lists (it omits PRN 37-39; those three
  match two further receivers' listings, docs/gnss.md).
Plus the correlation properties every such code family has."""

import hashlib

import numpy as np
from gnuradio import gr_unittest
from gnuradio.gpudsp import kernels

# IS-GPS-705 Table 3-Ia, "initial XB code state", stage 1 first, PRN 1-37.
L5_INITIAL_XB = {
    "gps_l5i": [
    "0101011100100", "1100000110101", "0100000001000", "1011000100110", "1110111010111",
    "0110011111010", "1010010011111", "1011110100100", "1111100101011", "0111111011110",
    "0000100111010", "1110011111001", "0001110011100", "0100000100111", "0110101011010",
    "0001111001001", "0100110001111", "1111000011110", "1100100011111", "0110101101101",
    "0010000001000", "1110111101111", "1000011111110", "1100010110100", "1101001101101",
    "1010110010110", "0101011011110", "0111101010110", "0101111100001", "1000010110111",
    "0001010011110", "0000010111001", "1101010000001", "1101111111001", "1111011011100",
    "1001011001000", "0011010010000",
    ],
    "gps_l5q": [
    "1001011001100", "0100011110110", "1111000100011", "0011101101010", "0011110110010",
    "0101010101001", "1111110000001", "0110101101000", "1011101000011", "0010010000110",
    "0001000000101", "0101011000101", "0100110100101", "1010000111111", "1011110001111",
    "1101001011111", "1110011001000", "1011011100100", "0011001011011", "1100001110001",
    "0110110010000", "0010110001110", "1000101111101", "0110111110011", "0100010011011",
    "0101010111100", "1000011111010", "1111101000010", "0101000100100", "1000001111001",
    "0101111100101", "1001000101010", "1011001000100", "1111001000100", "0110010110011",
    "0011110101111", "0010011010001",
    ],
}

# The first 24 chips of each E5a code in octal, PRN 1-50, from the ICD's
# hexadecimal listing.
E5A_FIRST_24 = {
    "galileo_e5ai": [
    "17165235", "47306361", "21350710", "36400463", "31152043", "10630015", "44347362", "52501334",
    "74520575", "17302256", "21066470", "61212362", "03000604", "41663740", "62707377", "44765715",
    "27252716", "54315574", "26002774", "76317241", "54436345", "41212750", "20664042", "14173573",
    "51753051", "46775307", "06121133", "32321637", "16331175", "21242630", "74536142", "47355706",
    "14624047", "33427712", "10543325", "72100731", "35142333", "04725403", "04311443", "26244206",
    "47646611", "21721700", "62366523", "14644624", "06625060", "25211763", "36030701", "14134472",
    "41152664", "51201234",
    ],
    "galileo_e5aq": [
    "24252467", "65472471", "26131345", "14054424", "21023420", "26236370", "10245327", "20657246",
    "60323725", "74164512", "52141071", "13533073", "43605106", "42266724", "00442761", "72600540",
    "73224263", "62717533", "25662622", "52104021", "67233111", "55317502", "77700766", "63500450",
    "67152534", "36362120", "55432140", "33253053", "16510020", "26346562", "60020432", "12165626",
    "65652513", "20450446", "70155373", "73674762", "06004135", "65206330", "01043671", "43364167",
    "03217640", "62376367", "22010555", "41005714", "05220004", "03244227", "53666445", "22672623",
    "34335433", "24755016",
    ],
}

# sha256 of the chips of all 50 PRNs (one byte 0/1 per chip, ICD chip
# value, PRN-major) of the ICD's hexadecimal listing.
E5A_DIGEST = {
    "galileo_e5ai": "1d5d74064b45e55f07d84955c31bd6dfec9bf76d6d32699900aba5bad6492f6d",
    "galileo_e5aq": "92f3c05a27ca4b26fe63b00ba4a2bc0f721e65fc5867b6e76c8d7a13d614b573",
}

# sha256 of the E5a-Q secondary codes of PRN 1-36 and 40-50 as one string
# of "0"/"1" characters (ICD chip values, PRN-major), from GNSS-SDR's
# binary listing.
E5AQ_SECONDARY_DIGEST = "ce3c6af37ccb62868e0e057bc77e16e6f16b25d8da7fb0dae6cff0961b05d807"


def chips01(code):
    """ICD chip values (0/1) of a +1/-1 code (chip value 1 stored as +1)."""
    return (np.asarray(code) > 0).astype(np.uint8)


def xa_chips(n):
    """The L5 XA register's output: 1 + x^9 + x^10 + x^12 + x^13, all ones
    at the epoch, reset to all ones after 8190 chips (list form, stage 1
    first, unlike the library's integer form)."""
    reg = [1] * 13
    out = []
    for c in range(n):
        if c == 8190:
            reg = [1] * 13
        out.append(reg[12])
        fb = reg[8] ^ reg[9] ^ reg[11] ^ reg[12]
        reg = [fb] + reg[:12]
    return np.array(out, np.uint8)


class qa_gnss_codes(gr_unittest.TestCase):

    def test_l5_codes_start_from_the_icd_initial_xb_states(self):
        xa = xa_chips(10230)
        for system, states in L5_INITIAL_XB.items():
            for prn, state in enumerate(states, start=1):
                xb = chips01(kernels.gnss_code(system, prn)) ^ xa
                # The register outputs stage 13 first, then 12, ... 1.
                want = [int(b) for b in reversed(state)]
                self.assertEqual(list(xb[:13]), want, f"{system} PRN {prn}")

    def test_l5_xb_is_the_icd_register_for_every_prn(self):
        # XB = code xor XA obeys 1 + x + x^3 + x^4 + x^6 + x^7 + x^8 + x^12
        # + x^13 over the whole code (XB is not short-cycled), PRN 1-63.
        xa = xa_chips(10230)
        for system in ("gps_l5i", "gps_l5q"):
            self.assertEqual(kernels.gnss_signal(system)["n_prns"], 63)
            for prn in range(1, 64):
                b = chips01(kernels.gnss_code(system, prn)) ^ xa
                # output o[n] = stage 13 at clock n; stage k at clock n is
                # o[n + 13 - k]; the feedback enters stage 1.
                lhs = b[13:]
                rhs = np.zeros(10230 - 13, np.uint8)
                for k in (1, 3, 4, 6, 7, 8, 12, 13):
                    rhs ^= b[13 - k:10230 - k]
                np.testing.assert_array_equal(lhs, rhs, f"{system} PRN {prn}")

    def test_e5a_codes_equal_the_icd_listing(self):
        for system, firsts in E5A_FIRST_24.items():
            allbits = []
            for prn, octal in enumerate(firsts, start=1):
                c = chips01(kernels.gnss_code(system, prn))
                self.assertEqual(c.shape, (10230,))
                got = int("".join(map(str, c[:24])), 2)
                self.assertEqual(f"{got:08o}", octal, f"{system} PRN {prn}")
                allbits.append(c.tobytes())
            self.assertEqual(hashlib.sha256(b"".join(allbits)).hexdigest(),
                             E5A_DIGEST[system], system)

    def test_secondary_codes(self):
        def bits(system, prn):
            return "".join("1" if s < 0 else "0"
                           for s in kernels.gnss_secondary_code(system, prn))
        self.assertEqual(bits("gps_l5i", 5), "0000110101")
        self.assertEqual(bits("gps_l5q", 63), "00000100110101001110")
        self.assertEqual(hex(int(bits("galileo_e5ai", 50), 2)), "0x842e9")
        self.assertEqual(bits("galileo_e5aq", 1)[:24], f"{0x83F6F6:024b}")
        listed = [p for p in range(1, 51) if p not in (37, 38, 39)]
        digest = hashlib.sha256("".join(bits("galileo_e5aq", p) for p in listed)
                                .encode()).hexdigest()
        self.assertEqual(digest, E5AQ_SECONDARY_DIGEST)
        self.assertEqual(len(kernels.gnss_secondary_code("gps_l1ca", 1)), 0)
        self.assertEqual(len(kernels.gnss_secondary_code("galileo_e1b", 50)), 0)
        for system, prn in (("gps_l5i", 0), ("gps_l5q", 64), ("galileo_e5aq", 51)):
            with self.assertRaises(ValueError):
                kernels.gnss_secondary_code(system, prn)

    def test_correlation_properties(self):
        # Balanced codes with a sharp autocorrelation and low cross-
        # correlation within each family (circular, over all shifts by FFT).
        for system in ("gps_l5i", "gps_l5q", "galileo_e5ai", "galileo_e5aq"):
            codes = np.array([kernels.gnss_code(system, p) for p in (1, 2, 17, 50)],
                             np.float64)
            self.assertTrue(np.all(np.abs(codes.sum(axis=1)) < 0.02 * 10230), system)
            f = np.fft.fft(codes, axis=1)
            auto = np.fft.ifft(f[0] * np.conj(f[0])).real
            self.assertAlmostEqual(auto[0], 10230, places=6)
            self.assertLess(np.abs(auto[1:]).max(), 0.05 * 10230, system)
            cross = np.fft.ifft(f[1:] * np.conj(f[0]), axis=1).real
            self.assertLess(np.abs(cross).max(), 0.05 * 10230, system)
        # The I and Q components of a PRN are different codes.
        self.assertGreater(np.abs(kernels.gnss_code("gps_l5i", 1) -
                                  kernels.gnss_code("gps_l5q", 1)).sum(), 0)


if __name__ == "__main__":
    gr_unittest.run(qa_gnss_codes)

#!/usr/bin/env python3
#
# Copyright 2026 gr-gpudsp authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""5G LDPC from Python: the code checked against an independent numpy
reading of the standard (parity checks from the tables, bit selection and
interleaving written out), round trips for both graphs and several rates,
rate matching for rv 0..3, limited buffer, Qm 1..8, E below and above N,
the LLR sign option, batch sizes 1, 3, 64, early termination, bad
parameters, the gr-fec objects in fec.extended_encoder/decoder and the
stream blocks with their tags. CPU and emulated device; qa_ldpc5g_cuda runs
the decoder tests on CUDA."""

import numpy as np
import pmt
from gnuradio import blocks, digital, fec, gr, gr_unittest
from gnuradio import gpudsp
from gnuradio.gpudsp import kernels, ldpc


def noisy(tx, sigma, rng):
    """BPSK over AWGN, exact LLRs (positive = 0)."""
    y = (1 - 2.0 * tx) + sigma * rng.standard_normal(tx.shape)
    return (2 * y / sigma ** 2).astype(np.float32)


class ldpc_decoder_tests:
    backend = "emulated"

    def decode(self, llr, K, **kw):
        return kernels.ldpc5g_decode(llr, K, backend=self.backend, **kw)

    def test_round_trips_rates_and_rate_matching(self):
        rng = np.random.default_rng(1)
        cases = [(100, 300, 0, 1, 0), (500, 1000, 1, 2, 0), (1000, 1100, 2, 4, 0),
                 (3000, 3600, 3, 6, 0), (8448, 9504, 0, 8, 0), (3800, 30000, 0, 2, 0),
                 (500, 5400, 1, 2, 0), (1000, 8000, 2, 4, 0),
                 (2000, 9000, 2, 2, 5000), (292, 8000, 1, 2, 0)]
        for K, E, rv, Qm, n_ref in cases:
            with self.subTest(K=K, E=E, rv=rv, Qm=Qm, n_ref=n_ref):
                p = kernels.ldpc5g_params(K, E, rv=rv, Qm=Qm, n_ref=n_ref)
                bits = rng.integers(0, 2, (3, K)).astype(np.uint8)
                tx = kernels.ldpc5g_encode(bits, E, rv=rv, Qm=Qm, n_ref=n_ref)
                for b in range(3):
                    c = kernels.ldpc5g_codeword(bits[b], E, rv=rv, Qm=Qm, n_ref=n_ref)
                    self.assertFalse(ldpc.syndrome(p["BG"], p["Z"], c).any())
                    np.testing.assert_array_equal(c[:K], bits[b])
                    np.testing.assert_array_equal(tx[b], ldpc.rate_match(c, p))
                # rv 1 and 2 start in the parity bits: alone they decode only
                # when E reaches around the whole buffer.
                if rv in (0, 3) or E >= p["Ncb"] - p["fillers"]:
                    out, its, ok = self.decode(4.0 * (1 - 2.0 * tx), K, rv=rv, Qm=Qm,
                                               n_ref=n_ref)
                    np.testing.assert_array_equal(out, bits)
                    self.assertTrue(ok.all())

    def test_llr_sign_option_and_batches(self):
        rng = np.random.default_rng(2)
        K, E = 1000, 2000
        for batch in (1, 3, 64):
            bits = rng.integers(0, 2, (batch, K)).astype(np.uint8)
            llr = noisy(kernels.ldpc5g_encode(bits, E, Qm=2), 0.7, rng)
            a, ia, oa = self.decode(llr, K, Qm=2)
            b, ib, ob = self.decode(-llr, K, Qm=2, llr_sign="positive_is_one")
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(ia, ib)
            np.testing.assert_array_equal(a, bits)
            self.assertEqual(a.shape, (batch, K))

    def test_early_termination(self):
        rng = np.random.default_rng(3)
        K, E = 1000, 2000
        bits = rng.integers(0, 2, (32, K)).astype(np.uint8)
        llr = noisy(kernels.ldpc5g_encode(bits, E), 0.75, rng)
        _, its, ok = self.decode(llr, K, max_iterations=25)
        self.assertTrue(ok.all())
        self.assertLess(its.max(), 25)
        self.assertGreater(its.max(), its.min())  # each codeword stops on its own
        _, its2, ok2 = self.decode(llr, K, max_iterations=25, early_termination=False)
        self.assertTrue((its2 == 25).all())
        self.assertTrue(ok2.all())

    def test_fixed_point_and_flooding_decode(self):
        rng = np.random.default_rng(4)
        K, E = 2000, 4000
        bits = rng.integers(0, 2, (16, K)).astype(np.uint8)
        llr = noisy(kernels.ldpc5g_encode(bits, E), 0.7, rng)
        for kw in (dict(arithmetic="fixed"), dict(algorithm="flooding_nms", max_iterations=30),
                   dict(arithmetic="fixed", algorithm="flooding_nms", max_iterations=30)):
            out, _, ok = self.decode(llr, K, **kw)
            np.testing.assert_array_equal(out, bits, err_msg=str(kw))

    def test_llr_formats_and_packed_bits(self):
        # float16 and int8 (fixed-point steps: LLR = value / fixed_scale)
        # decode as the same values given as float32; packed bits are
        # numpy's packbits of the unpacked ones.
        rng = np.random.default_rng(7)
        K, E = 1003, 2000
        bits = rng.integers(0, 2, (5, K)).astype(np.uint8)
        llr = noisy(kernels.ldpc5g_encode(bits, E, Qm=2), 0.8, rng)
        q = np.clip(np.round(llr * 4), -128, 127).astype(np.int8)
        h = llr.astype(np.float16)
        for arithmetic in ("fixed", "float"):
            for given, same in ((q, q.astype(np.float32) / 4), (h, h.astype(np.float32))):
                kw = dict(Qm=2, arithmetic=arithmetic, fixed_scale=4.0)
                a, ia, oa = self.decode(given, K, **kw)
                b, ib, ob = self.decode(same, K, **kw)
                np.testing.assert_array_equal(a, b, err_msg=f"{arithmetic} {given.dtype}")
                np.testing.assert_array_equal(ia, ib)
                np.testing.assert_array_equal(oa, ob)
                p, ip, _ = self.decode(given, K, packed_bits=True, **kw)
                self.assertEqual(p.shape, (5, (K + 7) // 8))
                np.testing.assert_array_equal(p, np.packbits(a, axis=1))
                np.testing.assert_array_equal(ip, ia)

    def test_bad_parameters_are_refused(self):
        for args in ((8449, 9000), (100, 99), (100, 200, 0, 3), (100, 200, 4, 2),
                     (100, 201, 0, 2)):
            with self.assertRaises(ValueError, msg=str(args)):
                kernels.ldpc5g_params(*args)
        with self.assertRaises(ValueError):
            self.decode(np.zeros((2, 3, 4), np.float32), 100)
        with self.assertRaises(ValueError):
            self.decode(np.zeros((1, 200), np.float32), 100, algorithm="bp")
        with self.assertRaises(ValueError):
            self.decode(np.zeros((1, 200), np.float32), 100, llr_sign="up")
        with self.assertRaises(ValueError):
            kernels.ldpc5g_encode(np.full((1, 100), 2, np.uint8), 200)
        with self.assertRaises(ValueError):  # LLR length mismatch
            self.decode(np.zeros((2, 199), np.float32), 100, E=200)


class qa_ldpc5g(ldpc_decoder_tests, gr_unittest.TestCase):
    backend = "emulated"

    def test_lifting_sizes(self):
        z = kernels.ldpc5g_lifting_sizes()
        self.assertEqual(len(z), 51)
        self.assertEqual(z[:8], [2, 3, 4, 5, 6, 7, 8, 9])
        self.assertEqual(z[-1], 384)

    def test_fec_extended_encoder_and_decoder(self):
        # GNU Radio's FEC chain: bits -> extended_encoder -> map to +-1
        # (bit 1 -> +1, as fec_test does) -> extended_decoder -> bits.
        K, E, frames = 600, 1200, 6
        rng = np.random.default_rng(5)
        bits = rng.integers(0, 2, K * frames).astype(np.uint8)
        enc = gpudsp.ldpc5g_encoder_make(K, E, Qm=2)
        dec = gpudsp.ldpc5g_decoder_make(K, E, Qm=2, backend="cpu", batch=2)
        self.assertAlmostEqual(fec.get_encoder_output_size(enc) / fec.get_encoder_input_size(enc),
                               2.0)
        self.assertEqual(fec.get_decoder_input_size(dec), 2 * E)
        tb = gr.top_block()
        src = blocks.vector_source_b(bits.tolist())
        noise = rng.normal(0, 0.6, E * frames).astype(np.float32)
        add = blocks.add_ff()
        sink = blocks.vector_sink_b()
        tb.connect(src, fec.extended_encoder(enc, threading=None, puncpat="11"),
                   digital.map_bb([-1, 1]), blocks.char_to_float(1, 1), (add, 0))
        tb.connect(blocks.vector_source_f(noise.tolist()), (add, 1))
        tb.connect(add, fec.extended_decoder(dec, threading=None, ann=None, puncpat="11",
                                             integration_period=10000), sink)
        tb.run()
        out = np.array(sink.data(), np.uint8)
        np.testing.assert_array_equal(out, bits)
        self.assertEqual(len(dec.last_iterations()), 2)
        self.assertTrue(all(dec.last_ok()))

    def test_fec_decoder_with_int8_soft_values(self):
        # llr_format="char": the decoder object takes int8 (input item size 1).
        K, E, frames = 600, 1200, 4
        rng = np.random.default_rng(8)
        bits = rng.integers(0, 2, (frames, K)).astype(np.uint8)
        llr = noisy(kernels.ldpc5g_encode(bits, E, Qm=2), 0.6, rng)
        q = np.clip(np.round(-llr * 2), -127, 127).astype(np.int8)  # positive is 1
        dec = gpudsp.ldpc5g_decoder_make(K, E, Qm=2, backend="cpu", batch=2,
                                         arithmetic="fixed", llr_format="char")
        self.assertEqual(dec.get_input_item_size(), 1)
        tb = gr.top_block()
        src = blocks.vector_source_b(q.view(np.uint8).reshape(-1).tolist())
        sink = blocks.vector_sink_b()
        tb.connect(src, fec.decoder(dec, 1, 1), sink)
        tb.run()
        np.testing.assert_array_equal(np.array(sink.data(), np.uint8), bits.reshape(-1))
        with self.assertRaises(ValueError):
            gpudsp.ldpc5g_decoder_make(K, E, llr_format="int4")

    def test_stream_blocks_with_tags(self):
        K, E, n = 800, 1600, 5
        rng = np.random.default_rng(6)
        bits = rng.integers(0, 2, K * n).astype(np.uint8)
        tx = kernels.ldpc5g_encode(bits.reshape(n, K), E, Qm=2).reshape(-1)
        llr = noisy(tx, 0.6, rng)
        for output, fmt in (("unpacked", "float"), ("packed", "float"), ("unpacked", "char")):
            tb = gr.top_block()
            src_b = blocks.vector_source_b(bits.tolist())
            enc = gpudsp.ldpc5g_encode(K, E, Qm=2)
            enc_sink = blocks.vector_sink_b()
            tb.connect(src_b, enc, enc_sink)
            if fmt == "float":
                src = blocks.vector_source_f(llr.tolist())
            else:
                src = blocks.vector_source_b(
                    np.clip(np.round(llr * 2), -127, 127).astype(np.int8).view(np.uint8).tolist())
            dec = gpudsp.ldpc5g_decode(K, E, Qm=2, llr_format=fmt, output=output,
                                       batch=2, backend=self.backend, arithmetic="fixed"
                                       if fmt == "char" else "float")
            sink = blocks.vector_sink_b()
            tb.connect(src, dec, sink)
            tb.run()
            np.testing.assert_array_equal(np.array(enc_sink.data(), np.uint8), tx)
            out = np.array(sink.data(), np.uint8)
            want = np.packbits(bits.reshape(n, K), axis=1).reshape(-1) if output == "packed" \
                else bits
            np.testing.assert_array_equal(out, want, err_msg=f"{output} {fmt}")
            per = (K + 7) // 8 if output == "packed" else K
            tags = sorted(sink.tags(), key=lambda t: (t.offset, pmt.symbol_to_string(t.key)))
            its = [t for t in tags if pmt.symbol_to_string(t.key) == "gpudsp.ldpc_iterations"]
            oks = [t for t in tags if pmt.symbol_to_string(t.key) == "gpudsp.ldpc_ok"]
            self.assertEqual([t.offset for t in its], [b * per for b in range(n)])
            self.assertTrue(all(pmt.to_bool(t.value) for t in oks))
            self.assertTrue(all(1 <= pmt.to_long(t.value) <= 10 for t in its))


if __name__ == "__main__":
    gr_unittest.run(qa_ldpc5g)
